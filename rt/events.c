/*
 * events.c: LK_EVENTS through perf_event_open, all in one group so one
 * read() gives every value at the same instant and the kernel schedules
 * them together (no multiplexing between members).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lkrt-int.h"

#define CACHE_EV(cache, op, result)                                            \
	(PERF_COUNT_HW_CACHE_##cache | PERF_COUNT_HW_CACHE_OP_##op << 8 |      \
	 PERF_COUNT_HW_CACHE_RESULT_##result << 16)

struct event_desc {
	const char *name;
	uint32_t type;
	uint64_t config;
};

/*
 * llc-misses is the last-level cache read-miss event, not the generic
 * "cache-misses" whose meaning differs between vendors; where the core PMU
 * has no such event it is honestly unsupported.
 */
static const struct event_desc event_table[] = {
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "l1d-misses", PERF_TYPE_HW_CACHE, CACHE_EV(L1D, READ, MISS) },
	{ "llc-misses", PERF_TYPE_HW_CACHE, CACHE_EV(LL, READ, MISS) },
	{ "branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", PERF_TYPE_SOFTWARE,
	  PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
};

#define NR_EVENT_DESC (sizeof(event_table) / sizeof(event_table[0]))

static const struct event_desc *find_desc(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < NR_EVENT_DESC; i++)
		if (strlen(event_table[i].name) == len &&
		    !memcmp(event_table[i].name, name, len))
			return &event_table[i];
	return NULL;
}

static int already_requested(const char *name)
{
	int i;

	for (i = 0; i < lk__rt.nevents; i++)
		if (!strcmp(lk__rt.events[i].name, name))
			return 1;
	return 0;
}

/* An unknown name is bad input, never an event silently left out. */
void lk__events_parse(const char *list)
{
	while (list && *list) {
		size_t len = strcspn(list, ",");
		const struct event_desc *d = find_desc(list, len);

		if (len && !d)
			lk__fatal("unknown event in LK_EVENTS: %.*s", (int)len,
				  list);
		if (d && !already_requested(d->name)) {
			struct lk__event *e = &lk__rt.events[lk__rt.nevents++];

			e->name = d->name;
			e->fd = -1;
			e->slot = -1;
		}
		list += len + (list[len] == ',');
	}
}

static int open_one(const struct event_desc *d, int group_fd)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = d->type;
	attr.config = d->config;
	attr.read_format = PERF_FORMAT_GROUP |
			   PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	return syscall(SYS_perf_event_open, &attr, 0, -1, group_fd,
		       PERF_FLAG_FD_CLOEXEC);
}

/*
 * The first event that opens leads the group. Members count from the
 * moment they open; samples only use differences, so no enable ioctl is
 * needed.
 */
void lk__events_open(void)
{
	int i;

	for (i = 0; i < lk__rt.nevents; i++) {
		struct lk__event *e = &lk__rt.events[i];
		const struct event_desc *d =
			find_desc(e->name, strlen(e->name));

		e->fd = open_one(d, lk__rt.group_fd);
		if (e->fd < 0) {
			e->err = errno;
			continue;
		}
		if (lk__rt.group_fd < 0)
			lk__rt.group_fd = e->fd;
		e->slot = lk__rt.nslots++;
	}
}

void lk__events_header(void)
{
	int i;

	for (i = 0; i < lk__rt.nevents; i++) {
		struct lk__event *e = &lk__rt.events[i];

		if (e->slot >= 0)
			lk__out("event name=%s status=ok\n", e->name);
		else
			lk__out("event name=%s status=unsupported errno=%d "
				"reason=%s\n",
				e->name, e->err, lk__errname(e->err));
	}
}

/* The one syscall allowed next to the timer reads. */
void lk__events_read(struct lk__group_read *g)
{
	if (lk__rt.group_fd >= 0 &&
	    read(lk__rt.group_fd, g, (3 + lk__rt.nslots) * sizeof(uint64_t)) <
		    0)
		lk__fatal("reading perf events: %s", lk__errname(errno));
}
