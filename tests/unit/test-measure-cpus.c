/*
 * measure: lk_measure_check_cpus, the check that every CPU of
 * method.cpu is online and within this process's affinity before a
 * sweep stores or runs anything. Each test runs in its own process
 * (Criterion), so narrowing the affinity here touches no other test.
 */
#include <criterion/criterion.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "loopkit/measure.h"

static struct lk_ctx ctx;
static struct lk_method m;

static void setup(void)
{
	lk_ctx_init(&ctx);
	lk_method_init(&m);
}

TestSuite(check_cpus, .init = setup);

static void set_cpu(const char *list, const char *where)
{
	cr_assert_eq(lk_method_set(&ctx, &m, "cpu", list, where), 0, "%s",
		     ctx.msg);
}

Test(check_cpus, no_pinning_is_fine)
{
	cr_assert_eq(lk_measure_check_cpus(&ctx, &m), 0);
	set_cpu("none", "s.yaml:3");
	cr_assert_eq(lk_measure_check_cpus(&ctx, &m), 0);
}

Test(check_cpus, allowed_cpus_pass)
{
	struct lk_cpuset allowed;
	char *list;

	cr_assert_eq(lk_cpus_allowed(&allowed), 0);
	list = lk_cpuset_format(&allowed);
	set_cpu(list, "s.yaml:3");
	cr_assert_eq(lk_measure_check_cpus(&ctx, &m), 0, "%s", ctx.msg);
	free(list);
}

Test(check_cpus, a_cpu_not_online_names_the_line)
{
	struct lk_cpuset online;
	char *list, *want;

	cr_assert_eq(lk_cpus_online(&online), 0);
	if (lk_cpuset_has(&online, LK_CPUS_MAX - 1))
		cr_skip_test("CPU %d is online here", LK_CPUS_MAX - 1);
	set_cpu("0,1023", "s.yaml:12");
	cr_assert_eq(lk_measure_check_cpus(&ctx, &m), LK_EINPUT);
	list = lk_cpuset_format(&online);
	want = lk_asprintf("s.yaml:12: method.cpu: CPU 1023 is not online "
			   "here (online: %s)", list);
	cr_assert_str_eq(ctx.msg, want);
	free(want);
	free(list);
	/* From the command line, and from nowhere in particular. */
	set_cpu("1023", "command line");
	lk_measure_check_cpus(&ctx, &m);
	cr_assert(!strncmp(ctx.msg, "command line: method.cpu: CPU 1023 ",
			   35), "%s", ctx.msg);
	set_cpu("1023", NULL);
	lk_measure_check_cpus(&ctx, &m);
	cr_assert(!strncmp(ctx.msg, "method.cpu: CPU 1023 ", 21), "%s",
		  ctx.msg);
}

Test(check_cpus, a_cpu_outside_the_affinity_is_refused)
{
	struct lk_cpuset allowed;
	cpu_set_t one;
	int first, second;
	char *text;

	cr_assert_eq(lk_cpus_allowed(&allowed), 0);
	first = lk_cpuset_next(&allowed, -1);
	second = lk_cpuset_next(&allowed, first);
	if (second < 0)
		cr_skip_test("this process may run on one CPU only");
	CPU_ZERO(&one);
	CPU_SET(first, &one);
	cr_assert_eq(sched_setaffinity(0, sizeof(one), &one), 0);
	text = lk_asprintf("%d-%d", first, second);
	set_cpu(text, "s.yaml:4");
	free(text);
	cr_assert_eq(lk_measure_check_cpus(&ctx, &m), LK_EINPUT);
	text = lk_asprintf("s.yaml:4: method.cpu: CPU %d is outside the CPUs "
			   "loopkit may run on (%d; a taskset, cpuset or "
			   "cgroup limits it)", second, first);
	cr_assert_str_eq(ctx.msg, text);
	free(text);
}
