#!/bin/sh
# loopkit campaign: every stage from one file on real kernels, resumed
# stage by stage; lifted = sum of occurrences x prediction on the store;
# the summary gives each analyzer's figures as report.csv does;
# the report opens in headless Chromium with its plots and no console
# message.
. tests/e2e/lib.sh
command -v python3 >/dev/null || skip "python3 is not installed"
command -v llvm-mca-19 >/dev/null || command -v llvm-mca >/dev/null ||
	skip "no llvm-mca installed"
chromium=$(command -v chromium || command -v chromium-browser || true)
src=$(pwd)
cd "$TMPD"

cat >c.yaml <<EOF2
name: e2e-campaign
sources:
  - $src/kernels/gemm.c
  - $src/kernels/trisolv.c
  - $src/kernels/jacobi-1d.c
flags:
  O1: -O1 -DMINI_DATASET
  O2: -O2 -DMINI_DATASET
predict:
  tools: [llvm-mca, bprof]
analyze:
  name: cycles
  target: cycles
  categories: none
  forest: 10
EOF2

# Bad usage first: nothing may be stored.
"$LOOPKIT" campaign -c c.yaml --only nosuch >out 2>err && fail "bad stage"
[ $? -eq 2 ] || fail "bad stage: exit 2"
grep -q "unknown stage 'nosuch'" err || fail "bad stage: $(cat err)"
"$LOOPKIT" campaign >out 2>err && fail "no config"
[ ! -e loopkit.d ] || fail "bad usage stored something"

# Up to the counts, then the rest: nothing done twice.
"$LOOPKIT" campaign -c c.yaml --to count -q >first 2>err ||
	fail "campaign --to count: $(cat err)"
grep -q '^measure  6 variants: 6 measured now' first ||
	fail "measure: $(cat first)"
grep -q '^count    6 variants: 6 counted now' first || fail "count: $(cat first)"
! grep -q '^predict' first || fail "--to count ran predict"
"$LOOPKIT" campaign -c c.yaml -q >second 2>err ||
	fail "campaign: $(cat err)"
grep -q '^measure  6 variants: 0 measured now, 6 stored earlier' second ||
	fail "measure again: $(cat second)"
grep -q '^count    6 variants: 0 counted now, 6 stored earlier' second ||
	fail "count again: $(cat second)"
grep -q '^predict .* predictions made now' second || fail "no predict line"
grep -q '^report   .*report.html' second || fail "no report line"
# The analyze stage after the report: the page, linked from the report
# (the link is there before the page, since the report runs first).
grep -q '^analyze  1 analysis (1 done, 0 up to date, 0 failed) over 6 variants' second ||
	fail "no analyze line: $(cat second)"
grep -q '^         cycles: 6 rows, tree R^2 .*loopkit.d/analyze/cycles/analysis.html' second ||
	fail "no analysis line: $(cat second)"
grep -q '<a href="../analyze/cycles/analysis.html">cycles</a>' \
	loopkit.d/report/report.html || fail "no link to the analysis"
# Under it, each analyzer's coverage, MAPE, median |error| and tau-b:
# report.csv's figures.
python3 "$E2E_DIR/summarycheck.py" second loopkit.d/report/report.csv ||
	fail "analyzer lines: $(cat second)"
grep -q '^         bprof [^:]*: [0-9]/6 kernels compared' second ||
	fail "bprof's line: $(cat second)"
"$LOOPKIT" campaign -c c.yaml --from predict -q >third 2>err ||
	fail "campaign --from predict: $(cat err)"
grep -q '^predict .*: 0 predictions made now' third ||
	fail "predicted again: $(cat third)"
grep -q '^analyze  1 analysis (0 done, 1 up to date' third ||
	fail "analyzed again: $(cat third)"
grep -q '<a href="../analyze/cycles/analysis.html">cycles</a></li>' \
	loopkit.d/report/report.html || fail "the written page's link"
! grep -q '^measure' third || fail "--from predict measured"

# Lifted = sum over the counted blocks of occurrences x prediction.
python3 - loopkit.d/store.db <<'PY' || fail "lifted values"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("""
  SELECT l.variant_id, l.tool, l.tool_version, l.params, l.value,
         l.function_id FROM lifted l WHERE l.status = 'ok'""").fetchall()
assert rows, "nothing lifted"
tools = set()
for vid, tool, ver, params, value, fid in rows:
    tools.add(tool)
    total = 0.0
    for count, hash in db.execute("""
        SELECT c.count, b.hash FROM bb_counts c JOIN bb_blocks b
        ON b.function_id = c.function_id AND b.idx = c.idx
        WHERE c.function_id = ? AND c.count > 0""", (fid,)):
        p = db.execute("""SELECT value FROM predictions WHERE block_hash = ?
            AND tool = ? AND tool_version = ? AND params = ?
            AND status = 'ok'""", (hash, tool, ver, params)).fetchone()
        assert p is not None, (vid, tool, hash)
        total += count * p[0]
    assert abs(total - value) <= 1e-9 * max(1.0, abs(value)), (vid, tool,
                                                              total, value)
assert any(t.startswith("llvm-mca") for t in tools), tools
assert "bprof" in tools, tools
# Every variant measured, with a cycles figure, and judged by the filter.
n = db.execute("SELECT count(*) FROM variants").fetchone()[0]
v = db.execute("SELECT count(*) FROM verdicts WHERE filter = 'l1'").fetchone()[0]
assert n == 6 and v == 6, (n, v)
print("lifted rows:", len(rows), "tools:", sorted(tools))
PY

html=loopkit.d/report/report.html
[ -s "$html" ] || fail "no report page"
[ -s loopkit.d/report/report.csv ] || fail "no report CSV"
[ -n "$chromium" ] || skip "chromium is not installed (the rest passed)"
command -v gnuplot >/dev/null || skip "gnuplot is not installed"
shoot "$TMPD/$html" shot.png chrome.log
! grep -q 'CONSOLE' chrome.log ||
	fail "console messages: $(grep CONSOLE chrome.log)"
[ -s shot.png ] || fail "no screenshot"
python3 "$E2E_DIR/pngcheck.py" shot.png 20 ||
	fail "the plots are on the screenshot"
