# A sweep: every variant stored, a rerun measures nothing, export is tidy.
. tests/e2e/lib.sh
cd "$TMPD"
cp "$SRC"/examples/run/dot.c "$SRC"/examples/run/triad.c .
cat >sweep.yaml <<'Y'
name: t0300
sources: [dot.c, triad.c]
flags: {O1: -O1, O2: -O2}
defines:
  N: {from: 1000, to: 3000, step: 1000}
exclude:
  - {source: triad.c, N: {gt: 2000}}
metrics: [tsc, cycles, ns]
method: {repetitions: 10, processes: 2, timeout: 30}
Y
"$LOOPKIT" run -q -c sweep.yaml >first.out
cat first.out
# 2 flags x (3 sizes for dot + 2 for triad) = 10 variants
[ "$(grep -c ' ok ' first.out)" -eq 10 ] || fail "10 variants measured"
n=$(sqlite3 loopkit.d/store.db "select count(*) from variants")
[ "$n" -eq 10 ] || fail "10 variants stored, got $n"
n=$(sqlite3 loopkit.d/store.db "select count(*) from runs where status='ok'")
[ "$n" -eq 10 ] || fail "10 runs stored, got $n"
# all raw samples are kept: 2 processes x 10 repetitions per run in the
# launches kept (the last of each process; a contended launch launched
# again is stored too)
n=$(sqlite3 loopkit.d/store.db "select min(c), max(c) from (select
	count(*) c from samples s where metric='tsc' and attempt = (select
	max(attempt) from samples t where t.run_id = s.run_id and t.process
	= s.process) group by run_id)")
[ "$n" = "20|20" ] || fail "20 raw tsc samples per run, got $n"

"$LOOPKIT" run -c sweep.yaml >second.out 2>second.err
grep -q '0 measured now, 10 stored earlier' second.err ||
	fail "a rerun measures nothing"
n=$(sqlite3 loopkit.d/store.db "select count(*) from runs")
[ "$n" -eq 10 ] || fail "no run duplicated, got $n"

"$LOOPKIT" export --csv >all.csv
python3 - all.csv <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 30, len(rows)           # 10 variants x 3 metrics
assert {r["metric"] for r in rows} == {"tsc", "cycles", "ns"}
assert {r["N"] for r in rows} == {"1000", "2000", "3000"}
assert all(float(r["value"]) > 0 for r in rows)
assert {r["metric_source"] for r in rows if r["metric"] == "cycles"} <= {
    "pmu", "tsc-calibrated"}
# N is a column and larger N means more time, per (source, flagset)
for src in ("dot.c", "triad.c"):
    for fl in ("O1", "O2"):
        t = sorted((int(r["N"]), float(r["value"])) for r in rows
                   if r["source"].endswith(src) and r["flagset"] == fl
                   and r["metric"] == "tsc")
        assert all(a[1] < b[1] for a, b in zip(t, t[1:])), (src, fl, t)
PY
"$LOOPKIT" export --json >all.json
python3 -c 'import json,sys; v=json.load(open("all.json")); assert len(v)==30 and isinstance(v[0]["N"], int)'
