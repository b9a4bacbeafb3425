# Runtime work counters: lk_work() declares a region's work per call and
# the runner derives <unit>/cycle (from the cycles figure) and <unit>/s
# (from the ns figure), each labelled with the figure it rests on. The
# numbers are checked as identities between stored figures, never as
# timings; a bad declaration fails with the runtime's message.
. tests/e2e/lib.sh
cd "$TMPD"

cat >work.c <<'C'
#include <lkrt.h>

#ifndef N
#define N 4000
#endif

__attribute__((noinline)) static void triad(double *restrict a,
					    const double *restrict b,
					    const double *restrict c, long n)
{
	long i;

	for (i = 0; i < n; i++)
		a[i] = b[i] + 3.0 * c[i];
}

__attribute__((noinline)) static void copy(double *restrict a,
					   const double *restrict b, long n)
{
	long i;

	for (i = 0; i < n; i++)
		a[i] = b[i];
}

int main(int argc, char **argv)
{
	double *a, *b, *c;

	lk_init(argc, argv);
	a = lk_alloc(N * sizeof(*a));
	b = lk_alloc(N * sizeof(*b));
	c = lk_alloc(N * sizeof(*c));
	lk_work("bytes", 3.0 * N * 8);
	lk_work("flops", 2.0 * N);
	LK_MEASURE_NAMED("triad", triad(a, b, c, N));
	/* Declared for triad only: copy, measured next, declares nothing. */
	LK_MEASURE_NAMED("copy", copy(a, b, N));
	return lk_finish();
}
C

"$LOOPKIT" run -q -r 10 -p 2 -D N=4000 work.c >out
cat out
grep -Eq '^  bytes/s +[0-9.e+]+ +bytes/s +work/ns:clock_monotonic_raw ' out ||
	fail "no bytes/s row labelled work/ns:clock_monotonic_raw"
grep -Eq '^  flops/s +[0-9.e+]+ +flops/s +work/ns:clock_monotonic_raw ' out ||
	fail "no flops/s row"
if has_pmu; then cyc=pmu; else cyc=tsc-calibrated; fi
grep -Eq "^  bytes/cycle +[0-9.e+]+ +bytes/cycle +work/cycles:$cyc " out ||
	fail "no bytes/cycle row labelled work/cycles:$cyc"
grep -Eq "^  flops/cycle +[0-9.e+]+ +flops/cycle +work/cycles:$cyc " out ||
	fail "no flops/cycle row labelled work/cycles:$cyc"

# Stored, and exported to full precision: the derived figures are the
# declared work over the measured ones.
"$LOOPKIT" export --json >all.json
"$LOOPKIT" run -q --json -r 10 -p 2 -D N=4000 work.c >run.json
python3 - all.json run.json "$cyc" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
cyc_source = sys.argv[3]
n = 4000
def row(region, metric):
    m = [r for r in rows if r["region"] == region and r["metric"] == metric]
    assert len(m) == 1, (region, metric, m)
    return m[0]
def near(a, b):
    return abs(a - b) <= 1e-9 * abs(b)
ns, cycles = row("triad", "ns"), row("triad", "cycles")
assert cycles["metric_source"] == cyc_source, cycles
bs, fs = row("triad", "bytes/s"), row("triad", "flops/s")
bc, fc = row("triad", "bytes/cycle"), row("triad", "flops/cycle")
assert near(bs["value"], 3 * n * 8 / ns["value"] * 1e9), (bs, ns)
assert near(fs["value"], 2 * n / ns["value"] * 1e9), (fs, ns)
assert near(bc["value"], 3 * n * 8 / cycles["value"]), (bc, cycles)
assert near(fc["value"], 2 * n / cycles["value"]), (fc, cycles)
for r, unit, src in ((bs, "bytes/s", "work/ns:clock_monotonic_raw"),
                     (fs, "flops/s", "work/ns:clock_monotonic_raw"),
                     (bc, "bytes/cycle", "work/cycles:" + cyc_source),
                     (fc, "flops/cycle", "work/cycles:" + cyc_source)):
    assert r["unit"] == unit and r["metric_source"] == src, r
# the region measured after triad declared nothing
assert not [r for r in rows if r["region"] == "copy" and "/" in r["metric"]]
assert [r for r in rows if r["region"] == "copy" and r["metric"] == "ns"]
# loopkit run --json shows the same rows (stored earlier: not measured again)
v = json.load(open(sys.argv[2]))
got = {(x["region"], x["metric"]): x for x in v[0]["results"]}
assert ("triad", "bytes/s") in got and ("triad", "flops/cycle") in got, got
assert not got[("triad", "bytes/s")]["primary"]
PY

# A unit outside [a-z0-9_]: the run fails with the runtime's message.
sed 's/lk_work("bytes"/lk_work("Bytes"/' work.c >bad.c
"$LOOPKIT" run -q -r 3 -p 1 bad.c >bad.out 2>&1 && fail "bad unit accepted"
cat bad.out
grep -q 'failed: runtime error: lk work unit name Bytes is not 1 to 32 characters of a-z 0-9 and underscore' bad.out ||
	fail "no runtime message for a bad unit"

# By hand: the same message on stderr, exit 3; a bad per-call value too.
lib=$(dirname "$LOOPKIT")/lib/liblkrt.a
sed 's/3.0 \* N \* 8/0.0/' work.c >zero.c
for f in bad zero; do
	gcc -std=gnu11 -O2 -I"$SRC/rt" -o $f $f.c "$lib" -lm ||
		fail "compiling $f.c"
	rc=0
	LK_REPETITIONS=3 ./$f >$f.stdout 2>$f.stderr || rc=$?
	cat $f.stderr
	[ $rc -eq 3 ] || fail "$f: exit $rc, not 3"
done
grep -qx 'lkrt: error: lk_work unit name Bytes is not 1 to 32 characters of a-z 0-9 and underscore' bad.stderr ||
	fail "by hand: no message for a bad unit"
grep -qx 'lkrt: error: lk_work bytes per call 0 is not a finite number above 0' zero.stderr ||
	fail "by hand: no message for a zero per-call value"

# By hand, the summary shows the derived figures too.
gcc -std=gnu11 -O2 -I"$SRC/rt" -o good work.c "$lib" -lm
LK_REPETITIONS=5 ./good >summary
cat summary
grep -Eq '^  bytes/s +[0-9.e+]+$' summary || fail "summary: no bytes/s"
grep -Eq '^  flops/cycle \(tsc-calibrated\) +[0-9.e+]+$' summary ||
	fail "summary: no flops/cycle"
