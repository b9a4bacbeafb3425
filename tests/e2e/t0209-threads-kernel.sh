# A kernel that starts its own threads (pthreads, no OpenMP) reads the
# count with lk_threads(); the threads: axis reaches it, the export and
# 'loopkit analyze' see threads as a parameter, and its cycles are
# flagged multi-threaded from the count asked for, though its threads
# are joined before the region ends.
. tests/e2e/lib.sh
cd "$TMPD"

cat >spin.c <<'C'
#include <pthread.h>
#include <lkrt.h>

#define WORK 400000L

static long nthreads;
static volatile double sink;

static void *part(void *arg)
{
	double s = 0;
	long i;

	for (i = 0; i < WORK / nthreads; i++)
		s += (double)i * 0.5;
	sink = s;
	return arg;
}

/* WORK iterations split over lk_threads() threads, joined per call. */
__attribute__((noinline)) static void split(void)
{
	pthread_t t[64];
	long i;

	for (i = 1; i < nthreads; i++)
		pthread_create(&t[i], NULL, part, NULL);
	part(NULL);
	for (i = 1; i < nthreads; i++)
		pthread_join(t[i], NULL);
}

int main(int argc, char **argv)
{
	lk_init(argc, argv);
	nthreads = lk_threads() < 64 ? lk_threads() : 64;
	LK_MEASURE_NAMED("split", split());
	return lk_finish();
}
C

cat >c.yaml <<'Y'
name: e2e-threads
sources: [spin.c]
flags: {O2: -O2 -pthread}
threads: [1, 2, 4]
metrics: [tsc, cycles, ns]
method: {repetitions: 5, processes: 1, warmup: 2}
analyze:
  - name: threads
    target: ns
    features: [threads]
    categories: none
    forest: 0
    knn: 0
    permutation: 0
    plots:
      - {x: threads}
Y
"$LOOPKIT" run -q -c c.yaml >out || { cat out; fail "run"; }
cat out
[ "$(grep -c ' ok ' out)" = 3 ] || fail "3 variants ok"

q() { sqlite3 loopkit.d/store.db "$1"; }
for t in 1 2 4; do
	seen=$(q "select distinct i.value from run_info i join runs r on
		i.run_id = r.id join variant_params p on
		p.variant_id = r.variant_id where p.name = 'threads' and
		p.value = '$t' and i.key = 'threads'")
	[ "$seen" = "$t" ] || fail "threads=$t: lk_threads() said '$seen'"
done

# Joined threads leave one at the region's end; the count asked for
# still flags the figures that are one CPU's.
"$LOOPKIT" export --csv >all.csv
python3 - all.csv <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows and "threads" in rows[0], rows[:1]
for r in rows:
    if r["metric"] != "cycles":
        continue
    mt = "multi-threaded" in r["flags"].split(",")
    assert mt == (r["threads"] != "1"), r
    assert (r["primary"] in ("1", "true")) == (not mt) or \
        "calibration-unreliable" in r["flags"], r
PY
[ "$(q "select distinct i.value from run_info i where i.key = 'split.threads'")" = 1 ] ||
	fail "joined threads should leave one thread at the region's end"

# analyze: threads is a column and the tree's only feature.
"$LOOPKIT" analyze -c c.yaml >an 2>err || fail "analyze: $(cat err)"
d=loopkit.d/analyze/threads
head -1 $d/input.csv | grep -q '^variant,source,compiler,flags,threads,' ||
	fail "input header: $(head -1 $d/input.csv)"
[ "$(cut -d, -f5 $d/input.csv | sed 1d | sort -n | tr '\n' ' ')" = "1 2 4 " ] ||
	fail "threads column: $(cut -d, -f5 $d/input.csv)"
grep -q 'threads' $d/tree.txt || fail "the tree does not split on threads"
if command -v gnuplot >/dev/null; then
	[ -s $d/plot1.svg ] || fail "no plot of ns against threads"
fi
exit 0
