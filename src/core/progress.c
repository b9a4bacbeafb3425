/* Progress: a redrawn bar with ETA on a terminal, plain lines elsewhere. */
#include <stdio.h>
#include <unistd.h>

#include "loopkit/core.h"

void lk_progress_init(struct lk_progress *p, const char *label, size_t total,
		      int quiet)
{
	p->label = label;
	p->total = total;
	p->done = 0;
	p->start = lk_now();
	p->out = stderr;
	p->tty = isatty(fileno(stderr));
	p->quiet = quiet;
}

static void format_eta(char *out, size_t size, double seconds)
{
	long s = (long)(seconds + 0.5);

	if (s >= 3600)
		snprintf(out, size, "%ldh%02ldm", s / 3600, s / 60 % 60);
	else
		snprintf(out, size, "%ldm%02lds", s / 60, s % 60);
}

static void draw_bar(struct lk_progress *p, const char *what)
{
	double elapsed = lk_now() - p->start;
	double frac = p->total ? (double)p->done / (double)p->total : 1;
	int width = 24, filled = (int)(frac * width), i;
	char eta[32] = "?";

	if (p->done)
		format_eta(eta, sizeof(eta),
			   elapsed / (double)p->done *
				   (double)(p->total - p->done));
	fprintf(p->out, "\r\033[K%s [", p->label);
	for (i = 0; i < width; i++)
		fputc(i < filled ? '#' : '.', p->out);
	fprintf(p->out, "] %zu/%zu ETA %s %.40s", p->done, p->total, eta,
		what ? what : "");
	fflush(p->out);
}

void lk_progress_step(struct lk_progress *p, const char *what,
		      const char *status)
{
	p->done++;
	if (p->quiet)
		return;
	if (p->tty)
		draw_bar(p, what);
	else
		fprintf(p->out, "%s %zu/%zu %s %s\n", p->label, p->done,
			p->total, what ? what : "", status ? status : "");
}

void lk_progress_end(struct lk_progress *p)
{
	if (p->quiet || !p->tty)
		return;
	fprintf(p->out, "\r\033[K%s: %zu/%zu done in %.1f s\n", p->label,
		p->done, p->total, lk_now() - p->start);
}
