#!/bin/sh
# loopkit analyze -c: the campaign's variants as the table (parameters as
# columns, a metric as the target), the analyze: section, the stage in
# 'loopkit campaign', reruns that do nothing, file:line errors with
# nothing written, and analysis.html: self-contained, rendered by headless
# Chromium with its plots and no console message, or saying why a figure
# is missing when gnuplot or dot is not there.
. tests/e2e/lib.sh
src=$(pwd)
cd "$TMPD"
cp "$src/examples/run/dot.c" "$src/examples/run/triad.c" .
cat >c.yaml <<'EOF2'
name: e2e-analyze
sources: [dot.c, triad.c]
flags:
  O0: -O0
  O2: -O2
defines:
  N: [100, 400, 1600, 6400]
metrics: [tsc, cycles, ns]
method:
  warmup: 2
  repetitions: 5
  processes: 1
analyze:
  - name: cycles
    target: cycles
    categories: none
    forest: 30
    plots:
      - {x: N, group: flags}
      - {x: N, y: ns, group: source, kind: scatter}
EOF2
"$LOOPKIT" run -c c.yaml -q >/dev/null 2>err || fail "run: $(cat err)"

# Bad usage: exit 2, nothing written.
"$LOOPKIT" analyze >out 2>err && fail "no input accepted"
[ $? -eq 2 ] || fail "no input: exit 2"
grep -q 'expected -c CAMPAIGN.yaml, or --csv FILE and --target COL' err ||
	fail "no input: $(cat err)"
"$LOOPKIT" analyze -c c.yaml --csv x.csv >out 2>err && fail "-c with --csv"
[ $? -eq 2 ] || fail "-c with --csv: exit 2"
[ ! -e loopkit.d/analyze ] || fail "bad usage wrote something"

# One row per measured variant; N explains cycles (16x over the sizes).
"$LOOPKIT" analyze -c c.yaml >out 2>err || fail "analyze -c: $(cat err)"
grep -q '^analyze: 1 analysis (1 done, 0 up to date, 0 failed) over 16 variants' out ||
	fail "analyze line: $(cat out)"
d=loopkit.d/analyze/cycles
for f in input.csv processed.csv tree.txt tree.dot model.json importance.csv \
	summary.json analysis.html campaign.txt importance.svg plot1.svg plot2.svg; do
	[ -s "$d/$f" ] || fail "no $f"
done
[ "$(head -1 $d/input.csv)" = "variant,source,compiler,flags,N,tsc,cycles,ns" ] ||
	fail "input header: $(head -1 $d/input.csv)"
[ "$(grep -c . $d/input.csv)" -eq 17 ] || fail "16 rows"
[ "$(cat $d/campaign.txt)" = e2e-analyze ] || fail "campaign.txt"
python3 - "$d/summary.json" <<'PY' || fail "summary: $(cat $d/summary.json)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["rows"] == 16 and d["task"] == "regression", d
imp = d["forest"]["importance"]
assert set(imp) == {"source", "flags", "N"}, imp
assert max(imp, key=imp.get) == "N", imp
PY

# A rerun with the same input and config does nothing.
touch -d '2001-01-01' "$d/analysis.html"
"$LOOPKIT" analyze -c c.yaml >out 2>err || fail "rerun: $(cat err)"
grep -q '(0 done, 1 up to date, 0 failed)' out || fail "rerun: $(cat out)"
[ "$(stat -c %Y $d/analysis.html)" -lt 1000000000 ] || fail "rerun rewrote"
# ... and so does the stage in 'loopkit campaign'.
"$LOOPKIT" campaign -c c.yaml --only analyze -q >out 2>err ||
	fail "campaign --only analyze: $(cat err)"
grep -q '^analyze  1 analysis (0 done, 1 up to date' out ||
	fail "campaign line: $(cat out)"

# Bad sections: one file:line error, exit 2, nothing written.
sed 's/    forest: 30/    forrest: 30/' c.yaml >bad-key.yaml
"$LOOPKIT" analyze -c bad-key.yaml >out 2>err && fail "bad key accepted"
[ $? -eq 2 ] || fail "bad key: exit 2"
grep -q "bad-key.yaml:17: unknown key 'forrest' in analyze (did you mean 'forest'?)" err ||
	fail "bad key: $(cat err)"
sed 's/  - name: cycles/  - name: other/; s/    target: cycles/    target: cycels/' c.yaml >bad-col.yaml
"$LOOPKIT" analyze -c bad-col.yaml >out 2>err && fail "bad column accepted"
[ $? -eq 2 ] || fail "bad column: exit 2"
[ "$(grep -c . err)" -eq 1 ] || fail "one line: $(cat err)"
grep -q "^loopkit: error: bad-col.yaml:14: analysis 'other': no column 'cycels'" err ||
	fail "bad column: $(cat err)"
[ ! -e loopkit.d/analyze/other ] || fail "bad column wrote something"

# The page: self-contained, its plots inline.
html=$TMPD/$d/analysis.html
! grep -Eiq '<script|<link|src=|https?://[^"]*\.(js|css)' "$html" ||
	fail "the page is self-contained"
n=$(grep -c '<svg' "$html")
if command -v gnuplot >/dev/null; then
	[ "$n" -ge 3 ] || fail "three inline plots, got $n"
fi

# Without gnuplot and dot: the page says why, the tree as text.
sed 's/    forest: 30/    forest: 20/' c.yaml >c2.yaml
PATH=/nonexistent "$LOOPKIT" analyze -c c2.yaml >out 2>err ||
	fail "analyze without gnuplot: $(cat err)"
grep -q 'No plots: gnuplot is not installed' "$html" || fail "no gnuplot note"
grep -q 'graphviz dot is not installed' "$html" || fail "no dot note"
grep -q '<pre>|--- ' "$html" || fail "no text tree"
[ ! -e "$d/importance.svg" ] || fail "an old plot was left"
# gnuplot back: the key notices, the plots come back.
"$LOOPKIT" analyze -c c2.yaml >out 2>err || fail "analyze: $(cat err)"
grep -q '(1 done' out || fail "tools changed, no rerun: $(cat out)"

command -v gnuplot >/dev/null || skip "gnuplot is not installed (gnuplot-nox)"
chromium=$(command -v chromium || command -v chromium-browser || true)
[ -n "$chromium" ] || skip "chromium is not installed"
printf '<!DOCTYPE html><p>x</p><script>console.error("boom")</script>\n' \
	>bad.html
shoot "$TMPD/bad.html" bad.png bad.log
grep -q 'CONSOLE.*boom' bad.log ||
	skip "chromium does not log console messages here"
shoot "$html" shot.png chrome.log
! grep -q 'CONSOLE' chrome.log ||
	fail "console messages: $(grep CONSOLE chrome.log)"
python3 "$E2E_DIR/pngcheck.py" shot.png ||
	fail "the plots are on the screenshot"
