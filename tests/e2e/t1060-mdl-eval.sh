# loopkit mdl eval and the campaign's mdl: section on a small campaign
# (triad, dot and a gather, gcc -O2 without vectorisation) against a
# tiny scalar database (L1 and RAM): each extracted loop gets a positive
# prediction and replay per level, the replay at RAM is slower than at
# L1 for the streaming triad, the gather's loop is refused with its
# reason; the rows are stored, printed as CSV and shown in the report;
# a rerun measures no replay again; the campaign's mdl stage gives the
# same rows; without a database each row names the command that builds
# it; a bad mdl: section exits 2 with file:line and changes nothing
# stored.
. tests/e2e/lib.sh
command -v python3 >/dev/null || skip "python3 not installed"
cd "$TMPD"
cp "$SRC/examples/run/triad.c" "$SRC/examples/run/dot.c" .
cat >gather.c <<'C'
#include <lkrt.h>
#define N 4096
__attribute__((noinline)) static void gather(double *restrict a,
					     const double *restrict b,
					     const int *restrict idx, long n)
{
	for (long i = 0; i < n; i++)
		a[i] = b[idx[i]];
}
int main(int argc, char **argv)
{
	double *a, *b;
	int *idx;
	lk_init(argc, argv);
	a = lk_alloc(N * sizeof(*a));
	b = lk_alloc(N * sizeof(*b));
	idx = lk_alloc(N * sizeof(*idx));
	for (long i = 0; i < N; i++) {
		b[i] = (double)i;
		idx[i] = (int)((i * 7) % N);
	}
	LK_MEASURE_NAMED("gather", gather(a, b, idx, N));
	lk_free(a);
	lk_free(b);
	lk_free(idx);
	return lk_finish();
}
C
cat >c.yaml <<'Y'
name: ev
sources: [triad.c, dot.c, gather.c]
compilers: [gcc]
flags:
  O2: -O2 -fno-tree-vectorize
defines:
  N: [2000]
method:
  warmup: 1
  repetitions: 3
  processes: 1
mdl:
  levels: [L1, RAM]
Y
"$LOOPKIT" run -c c.yaml -o d -q >run.out 2>&1 || fail "run: $(cat run.out)"
"$LOOPKIT" mdl db build --isa scalar --levels L1,RAM --explore minimal -q \
	-o d --seeds L1S0,L2S0,L1S1,L2S1,L1S0A1M1,L2S1A1M1 >db.out 2>&1 ||
	fail "db build: $(cat db.out)"

"$LOOPKIT" mdl eval -c c.yaml -o d -q >eval1.out 2>eval1.err ||
	fail "eval exited $?: $(cat eval1.out eval1.err)"
grep -q '^mdl eval: 3 loops in 3 variants: 2 extracted, 1 refused; replays: 4 measured now, 0 stored earlier$' \
	eval1.out || fail "eval: $(cat eval1.out)"
grep -q '^         L1   2 of 2 loops: MDL MAPE [0-9.]* %' eval1.out ||
	fail "no L1 figures: $(cat eval1.out)"
grep -q '^         refused 1: .*indirect' eval1.out ||
	fail "no refusal: $(cat eval1.out)"
"$LOOPKIT" mdl eval -c c.yaml -o d --csv >rows.csv || fail "csv exited $?"
python3 - rows.csv <<'PY' || fail "rows: $(cat rows.csv)"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ok = [r for r in rows if r["status"] == "ok"]
assert len(rows) == 5 and len(ok) == 4, rows
v = {}
for r in ok:
    assert r["isa"] == "scalar" and r["level"] in ("L1", "RAM"), r
    assert float(r["predicted"]) > 0 and float(r["replayed"]) > 0, r
    assert int(r["unroll"]) >= 1 and len(r["database"]) == 12, r
    v[r["variant"].split()[0], r["level"]] = float(r["replayed"])
assert v["triad.c", "RAM"] > v["triad.c", "L1"], v
(g,) = [r for r in rows if r["status"] != "ok"]
assert g["variant"].startswith("gather.c") and g["status"] == "refused", g
assert "indirect" in g["reason"] and g["level"] == "", g
print("triad replay L1 %.3g RAM %.3g cycles per canonical iteration"
      % (v["triad.c", "L1"], v["triad.c", "RAM"]))
PY

# A rerun measures no replay again and stores the same rows.
runs() { sqlite3 d/store.db 'SELECT count(*) FROM runs'; }
n1=$(runs)
"$LOOPKIT" mdl eval -c c.yaml -o d -q >eval2.out ||
	fail "rerun exited $?: $(cat eval2.out)"
grep -q 'replays: 0 measured now, 4 stored earlier' eval2.out ||
	fail "rerun: $(cat eval2.out)"
[ "$(runs)" = "$n1" ] || fail "rerun added runs"
"$LOOPKIT" mdl eval -c c.yaml -o d --csv | cut -d, -f1-8 >rows2.csv
cut -d, -f1-8 rows.csv | cmp -s - rows2.csv || fail "rerun changed the rows"

# The report shows the section, even with no analyzer compared.
"$LOOPKIT" report -c c.yaml -o d >report.out 2>&1 ||
	fail "report: $(cat report.out)"
grep -q '<h2>MDL</h2>' d/report/report.html || fail "no MDL section"
grep -q '3 innermost loops, 2 extracted, 1 refused' d/report/report.html ||
	fail "MDL section without its coverage"

# The campaign's mdl stage: the same rows.
"$LOOPKIT" campaign -c c.yaml -o d --only mdl >camp.out 2>&1 ||
	fail "campaign --only mdl: $(cat camp.out)"
grep -q '^mdl .*3 loops in 3 variants: 2 extracted, 1 refused' camp.out ||
	fail "campaign: $(cat camp.out)"

# Without a database: the loops are replayed, and each row says how to
# build the database it lacks.
"$LOOPKIT" run -c c.yaml -o e -q >rune.out 2>&1 || fail "run e: $(cat rune.out)"
"$LOOPKIT" mdl eval -c c.yaml -o e -q >nodb.out || fail "eval e: $(cat nodb.out)"
grep -q "^         no-database 4: no MDL database for scalar in e: build it with 'loopkit mdl db build --isa scalar -o e'$" \
	nodb.out || fail "no database: $(cat nodb.out)"
grep -q 'replays: 4 measured now' nodb.out || fail "no database: $(cat nodb.out)"

# Bad mdl: sections: one line naming file:line, exit 2, nothing changed.
sum() { sqlite3 d/store.db 'SELECT count(*), total(replayed) FROM mdl_evals'; }
before=$(sum)
sed 's/levels: \[L1, RAM\]/levels: [L1, L4]/' c.yaml >bad1.yaml
sed 's/levels:/level:/' c.yaml >bad2.yaml
sed 's/levels: \[L1, RAM\]/kmax: 0/' c.yaml >bad3.yaml
for b in bad1 bad2 bad3; do
	code=0
	"$LOOPKIT" mdl eval -c $b.yaml -o d -q >$b.out 2>$b.err || code=$?
	[ $code = 2 ] || fail "$b: exit $code: $(cat $b.err)"
	[ "$(wc -l <$b.err)" = 1 ] || fail "$b: $(cat $b.err)"
	grep -q "^loopkit: error: $b.yaml:1[0-9]" $b.err ||
		fail "$b: no file:line: $(cat $b.err)"
done
grep -q "'L4' is not L1, L2, L3 or RAM" bad1.err || fail "bad1: $(cat bad1.err)"
[ "$(sum)" = "$before" ] || fail "a bad file changed the rows"
code=0
"$LOOPKIT" mdl eval -o d >/dev/null 2>noc.err || code=$?
[ $code = 2 ] && grep -q 'CAMPAIGN.yaml is required' noc.err ||
	fail "no -c: exit $code: $(cat noc.err)"
exit 0
