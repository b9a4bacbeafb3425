/*
 * lkrt-int.h: state and helpers shared by the runtime's files. Not
 * installed, not included by benchmarks.
 */
#ifndef LKRT_INT_H
#define LKRT_INT_H

#include <sched.h>
#include <stdint.h>
#include <time.h>

#include "lkrt.h"

#define LK__MAX_EVENTS 9
#define LK__NAME_MAX 64
#define LK__MAX_STEPS ((uint64_t)1 << 24)
#define LK__MAX_WORK 8
#define LK__WORK_UNIT_MAX 32
#define LK__CPULIST_MAX 400 /* a cpulist on an info line */
/*
 * A sample shorter than LK__SPAN_US waits for an uncontended core: the
 * issue probe within LK__CONTENDED of its floor and the window probe
 * within LK__WINDOW_SLACK of its best in the process (both measured
 * against the issue probe), for at most
 * LK__WAIT_MS per region in all (the runner's LK_CONTENDED,
 * LK_WINDOW_SLACK and LK_CONTENTION_SPAN_NS, include/loopkit/measure.h:
 * rt/ includes nothing of the library).
 */
#define LK__CONTENDED 1.01
#define LK__WINDOW_SLACK 1.10
#define LK__SPAN_US 1000
#define LK__WAIT_MS 100

/* One lk_work() declaration: per_call units of work per kernel call. */
struct lk__work {
	char unit[LK__WORK_UNIT_MAX + 1];
	double per_call;
};

/* One requested event; slot is its index in the group read, -1 if none. */
struct lk__event {
	const char *name;
	int fd;
	int err;
	int slot;
};

/*
 * The layout of read() on a group leader with PERF_FORMAT_GROUP |
 * TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING.
 */
struct lk__group_read {
	uint64_t nr;
	uint64_t enabled;
	uint64_t running;
	uint64_t values[LK__MAX_EVENTS];
};

struct lk__sample {
	uint64_t tsc;
	uint64_t ns;
	uint64_t ref_tsc;
	uint64_t issue_tsc; /* the slower of the probes before and after */
	uint64_t window_tsc; /* likewise */
	int mux;
	uint64_t ev[LK__MAX_EVENTS]; /* by group slot */
};

enum lk__phase {
	LK__START,
	LK__WARMUP,
	LK__PROBE,
	LK__SAMPLE,
	LK__WAIT, /* a round outside the region while the core is contended */
	LK__DONE,
};

struct lk__region {
	struct lk__region *next;
	char base[LK__NAME_MAX + 1];
	char name[LK__NAME_MAX + 16];
	enum lk__phase phase;
	uint64_t steps;
	uint64_t probe_min;
	int probe_tries;
	void *roi_addr;
	uint64_t nsamples;
	struct lk__sample *samples;
	int threads; /* the process's threads when the last sample ended */
	struct lk__work work[LK__MAX_WORK];
	int nwork;

	/* The round in flight, written by lk__sample_start/stop. */
	uint64_t tsc0, tsc1;
	uint64_t ns0, ns1;
	struct lk__group_read ev0, ev1;
	uint64_t ref_before, issue_before, window_before;
	uint64_t waited; /* TSC ticks spent waiting for an uncontended core */
	uint64_t wait_mark; /* when the LK__WAIT round in flight began */
	uint64_t last_calls; /* kernel calls in the round in flight */
};

struct lk__rt {
	int initialised;
	int finished;
	int failed;
	int result_fd; /* -1: started by hand */

	uint64_t warmup;
	uint64_t steps; /* 0: auto */
	uint64_t min_sample_ticks;
	uint64_t repetitions;
	int cold;
	int pinned;         /* LK_CPU was given */
	cpu_set_t cpus;     /* its set */
	char cpu_list[LK__CPULIST_MAX]; /* its canonical text, "-1" if none */
	int threads;        /* LK_THREADS, 0 if unset */
	int calibrate;
	char fifo[48];

	uint64_t tsc_hz;
	uint64_t ovh_tsc_min, ovh_tsc_median;
	uint64_t ovh_ns_min, ovh_ns_median;

	int nevents;
	struct lk__event events[LK__MAX_EVENTS];
	int group_fd; /* -1 if no event opened */
	int nslots;

	struct lk__work work[LK__MAX_WORK]; /* declared for the next region */
	int nwork;

	double best_window; /* the window probe's best pace so far, in
			       issue probes (region.c) */
	double best_issue;  /* the issue probe's fewest core cycles so far */
	uint64_t waited;    /* TSC ticks all regions waited (region.c) */

	struct lk__region *regions, *last_region;
	void *roi_ret; /* return address of the latest lk_roi_begin() */
	uint64_t total_samples;
};

extern struct lk__rt lk__rt;

/* out.c: protocol output (a no-op by hand) and fatal errors. */
void lk__out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int lk__out_flush(void);
void lk__fatal(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
const char *lk__errname(int err);
void lk__sanitise(char *s);

/* timer.c */
uint64_t lk__ns_now(void);
void lk__measure_overhead(void);
uint64_t lk__ref_run(void);
uint64_t lk__issue_run(void);
uint64_t lk__window_run(void);

/* region.c: was the sample contended, by the runner's rule, given the
 * window probe's best over the whole process? */
int lk__sample_contended(const struct lk__sample *s);

/* events.c */
void lk__events_parse(const char *list);
void lk__events_open(void);
void lk__events_read(struct lk__group_read *g);
void lk__events_header(void);

/* cpus.c */
void lk__cpus_parse(const char *text, cpu_set_t *set);
void lk__cpus_format(const cpu_set_t *set, char *buf, size_t size);
void lk__pin(void);
void lk__threads_read(void);
int lk__threads_now(void);

/* cache.c */
void lk__cache_flush(void);

/* summary.c */
void lk__u64_sort(uint64_t *v, size_t n);
double lk__median_d(double *v, size_t n);
void lk__summary_print(void);

#endif /* LKRT_INT_H */
