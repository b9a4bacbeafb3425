/*
 * out.c: the protocol writer. Lines are formatted into one static buffer
 * and written to LK_RESULT_FD when it fills, at the end of a region, at
 * the end and before a fatal exit, so no write() runs inside a sample.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lkrt-int.h"

#define OUT_BUF_SIZE 65536
#define OUT_LINE_MAX 1024

static char out_buf[OUT_BUF_SIZE];
static size_t out_len;
static int out_err;   /* the errno of the first failed write, or 0 */

int lk__out_flush(void)
{
	size_t done = 0;

	while (done < out_len && lk__rt.result_fd >= 0) {
		ssize_t n = write(lk__rt.result_fd, out_buf + done,
				  out_len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			/* Say it once where the runner still looks: the
			 * program may have closed the descriptor. */
			if (!out_err)
				fprintf(stderr, "lkrt: error: cannot write the "
					"results to descriptor %d: %s (closed "
					"by the program?)\n", lk__rt.result_fd,
					n < 0 ? strerror(errno) : "no space");
			out_err = n < 0 ? errno : EIO;
			break;
		}
		done += n;
	}
	out_len = 0;
	return out_err ? -1 : 0;
}

void lk__out(const char *fmt, ...)
{
	va_list ap;
	int n;

	if (lk__rt.result_fd < 0)
		return;
	if (OUT_BUF_SIZE - out_len < OUT_LINE_MAX)
		lk__out_flush();
	va_start(ap, fmt);
	n = vsnprintf(out_buf + out_len, OUT_LINE_MAX, fmt, ap);
	va_end(ap);
	/* Lines are short by construction; a cut one still ends the line. */
	if (n >= OUT_LINE_MAX) {
		n = OUT_LINE_MAX - 1;
		out_buf[out_len + n - 1] = '\n';
	}
	if (n > 0)
		out_len += n;
}

/* Protocol values carry no spaces: anything outside [A-Za-z0-9_.:-] -> _. */
void lk__sanitise(char *s)
{
	for (; *s; s++)
		if (!strchr("_.:-", *s) && !(*s >= 'a' && *s <= 'z') &&
		    !(*s >= 'A' && *s <= 'Z') && !(*s >= '0' && *s <= '9'))
			*s = '_';
}

void lk__fatal(const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (lk__rt.result_fd >= 0) {
		lk__sanitise(msg);
		lk__out("error msg=%s\n", msg);
		lk__out_flush();
	} else {
		fprintf(stderr, "lkrt: error: %s\n", msg);
	}
	/* exit() runs the atexit handler: it must not write `end`. */
	lk__rt.failed = 1;
	exit(3);
}

const char *lk__errname(int err)
{
	const char *name = strerrorname_np(err);

	return name ? name : "EUNKNOWN";
}
