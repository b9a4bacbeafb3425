# threads: as a sweep axis: one build serves every count, each count is
# its own variant (a parameter, never a -D), the runner hands the count
# to OpenMP (OMP_NUM_THREADS) and to lk_threads(), exclude sees it,
# and a multi-threaded region's cycles say they are one CPU's clock.
. tests/e2e/lib.sh
cd "$TMPD"
printf 'int main(void) { return 0; }\n' >probe.c
gcc -fopenmp -o probe probe.c 2>/dev/null || skip "gcc has no OpenMP (-fopenmp)"

cat >omp.c <<'C'
#include <lkrt.h>

#ifndef N
#define N 200000
#endif

static double a[N], b[N];

__attribute__((noinline)) static void scale(void)
{
	long i;

#pragma omp parallel for schedule(static)
	for (i = 0; i < N; i++)
		a[i] = 2.0 * b[i];
}

int main(int argc, char **argv)
{
	lk_init(argc, argv);
	lk_work("bytes", 2.0 * N * sizeof(double));
	LK_MEASURE_NAMED("scale", scale());
	return lk_finish();
}
C
cat >sweep.yaml <<'Y'
sources: [omp.c]
flags: {omp: -O2 -fopenmp}
defines:
  N: [200000, 400000]
threads: [1, 2, 3]
exclude:
  - {N: 400000, threads: {gt: 1}}
metrics: [tsc, cycles, ns]
method: {repetitions: 3, processes: 1, warmup: 2}
Y
"$LOOPKIT" run -q -c sweep.yaml >out
cat out
[ "$(grep -c ' ok ' out)" = 4 ] || fail "4 variants ok"
grep -q 'omp.c gcc omp N=200000 threads=2 ' out ||
	fail "no variant named with threads=2"
grep -q 'N=400000 threads=2' out && fail "exclude did not see threads"

q() { sqlite3 loopkit.d/store.db "$1"; }
[ "$(q "select count(*) from variants")" = 4 ] || fail "4 variants stored"
[ "$(q "select count(distinct value) from variant_params where name = 'threads'")" = 3 ] ||
	fail "threads is no stored parameter"
# One build per -D combination: the count is not compiled in.
[ "$(q "select count(distinct build_id) from runs")" = 2 ] ||
	fail "not one build per N"

# What each launch said: lk_threads() and the region's threads.
for t in 1 2 3; do
	seen=$(q "select distinct i.value from run_info i join runs r on
		i.run_id = r.id join variant_params p on
		p.variant_id = r.variant_id where p.name = 'threads' and
		p.value = '$t' and i.key = 'threads'")
	[ "$seen" = "$t" ] || fail "threads=$t: lk_threads() said '$seen'"
	region=$(q "select distinct i.value from run_info i join runs r on
		i.run_id = r.id join variant_params p on
		p.variant_id = r.variant_id where p.name = 'threads' and
		p.value = '$t' and i.key = 'scale.threads'")
	[ "$region" = "$t" ] || fail "threads=$t: the OpenMP team had '$region'"
done

# Honest figures: with 2 or 3 threads, cycles and bytes/cycle are
# flagged and tsc is the headline; with one thread, cycles are.
"$LOOPKIT" export --json >all.json
python3 - all.json <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
for r in rows:
    mt = "multi-threaded" in r["flags"].split(",")
    if r["metric"] in ("cycles", "bytes/cycle"):
        assert mt == (r["threads"] > 1), r
    if r["metric"] in ("tsc", "ns", "bytes/s"):
        assert not mt, r
    if r["threads"] > 1 and r["primary"]:
        assert r["metric"] == "tsc", r
PY
grep -q '^\* multi-threaded: ' out || fail "the table explains no star"
grep -Eq 'threads=2 +ok +[0-9.e+]+ +[0-9.e+]+\* ' out ||
	fail "threads=2's cycles are not starred"
grep -Eq 'threads=1 +ok +[0-9.e+]+ +[0-9.e+]+ ' out ||
	fail "threads=1's cycles are starred"

# A rerun skips all four: the thread count is part of the key.
"$LOOPKIT" run -c sweep.yaml >again 2>&1
grep -q '4 variants: 0 measured now, 4 stored earlier' again ||
	fail "rerun measured again"

# A pinned set: OpenMP gets one place per CPU, and a run without a
# threads: value gets as many threads as the set has CPUs.
first=$(python3 -c 'import os; print(min(os.sched_getaffinity(0)))')
cat >pinned.yaml <<Y
name: pinned
sources: [omp.c]
flags: {omp: -O2 -fopenmp}
method: {cpu: [$first], repetitions: 3, processes: 1, warmup: 2}
Y
"$LOOPKIT" run -q -c pinned.yaml >pinned.out || { cat pinned.out; fail "pinned run"; }
pin() { q "select distinct i.value from run_info i join runs r on
	i.run_id = r.id join variants v on r.variant_id = v.id join campaigns c
	on v.campaign_id = c.id where c.name = 'pinned' and i.key = '$1'"; }
[ "$(pin threads)" = 1 ] || fail "pinned to one CPU: lk_threads() said $(pin threads)"
[ "$(pin scale.threads)" = 1 ] || fail "pinned to one CPU: a team of $(pin scale.threads)"
[ "$(pin cpus_allowed)" = "$first" ] || fail "not pinned to $first"
exit 0
