# loopkit memprof: static counts of a program, exact self times of a
# trace with known nesting, line-numbered errors, and the latency fit on
# functions that differ only in their load/store mix.
. tests/e2e/lib.sh
plugin=$(dirname "$LOOPKIT")/plugin/lkmemprof.so
[ -r "$plugin" ] || skip "GCC plugin not built (gcc-12-plugin-dev missing)"

# Exact self times: main 1000-300-400-50 = 250; f (3 calls) 200+200+200;
# g (2 calls) 100+50; f's total counts the outer instances only.
"$LOOPKIT" memprof profile --json tests/data/memprof-cli/nested.trace \
	>"$TMPD/p.json"
python3 - "$TMPD/p.json" <<'PY'
import json, sys
p = {x["name"]: x for x in json.load(open(sys.argv[1]))}
assert (p["main"]["calls"], p["main"]["self"], p["main"]["total"]) == \
    (1, 250, 1000), p["main"]
assert (p["f"]["calls"], p["f"]["self"], p["f"]["total"]) == \
    (3, 600, 700), p["f"]
assert (p["g"]["calls"], p["g"]["self"], p["g"]["total"]) == \
    (2, 150, 150), p["g"]
PY
"$LOOPKIT" memprof profile --tree tests/data/memprof-cli/nested.trace \
	| grep -q 'f' || fail "call tree printed"

# A malformed line: its number, and parsing goes on; --strict stops.
sed '3s/enter cycle/enter cycel/' tests/data/memprof-cli/nested.trace \
	>"$TMPD/bad.trace"
"$LOOPKIT" memprof profile "$TMPD/bad.trace" >/dev/null 2>"$TMPD/err" ||
	fail "a bad line is skipped, not fatal"
grep -q 'bad.trace:3:' "$TMPD/err" || { cat "$TMPD/err"; fail "line 3 named"; }
set +e
"$LOOPKIT" memprof profile --strict "$TMPD/bad.trace" >/dev/null 2>&1
rc=$?
set -e
[ $rc -eq 2 ] || fail "--strict: exit 2, got $rc"

# Static counts per call (volatile accesses: one access per statement).
"$LOOPKIT" memprof static --json examples/memprof/mix.c -O1 >"$TMPD/s.json"
python3 - "$TMPD/s.json" <<'PY'
import json, sys
s = {x["name"]: x for x in json.load(open(sys.argv[1]))}
want = {"load1": (1024, 0), "load2": (2048, 0), "load4": (4096, 0),
        "load8": (8192, 0), "store1": (0, 1024), "store2": (0, 2048),
        "store4": (0, 4096), "mix4x2": (4096, 2048),
        "mix2x4": (2048, 4096), "main": (0, 0)}
for f, (l, st) in want.items():
    assert (s[f]["loads"], s[f]["stores"]) == (l, st), (f, s[f])
PY

# Options anywhere; compiler flags after "--", or, unambiguous, right
# after the file: all three spellings give the same counts.
"$LOOPKIT" memprof static examples/memprof/mix.c -O1 --json >"$TMPD/s2.json" ||
	fail "memprof static FILE.c -O1 --json"
cmp -s "$TMPD/s.json" "$TMPD/s2.json" || fail "--json after a compiler flag"
"$LOOPKIT" memprof static examples/memprof/mix.c --json -- -O1 \
	>"$TMPD/s3.json" || fail "memprof static FILE.c --json -- -O1"
cmp -s "$TMPD/s.json" "$TMPD/s3.json" || fail "flags after --"
# after "--" everything is the compiler's, even what looks like ours
set +e
"$LOOPKIT" memprof static examples/memprof/mix.c -- --json 2>"$TMPD/err"
rc=$?
set -e
[ $rc -eq 2 ] && grep -q "unrecognized.*--json" "$TMPD/err" ||
	fail "--json after -- goes to gcc (exit $rc)"
"$LOOPKIT" memprof static examples/memprof/mix.c -h | grep -q -- \
	'static FILE.c \[--\] \[compiler flags\]' || fail "-h shows [--]"

# The whole pipeline, with the fit and its quality. Loops aligned to a
# line: a one-load loop whose cmp/jne pair straddles two lines takes two
# cycles an iteration, and then load1 measured slower than load4, on a
# machine with nothing else running (the ordering below failed once).
"$LOOPKIT" memprof run examples/memprof/mix.c --keep -o "$TMPD/store" -- -O1 \
	-falign-loops=64 >"$TMPD/run.out" 2>"$TMPD/run.err"
cat "$TMPD/run.out"
grep -q "least squares, 9 functions" "$TMPD/run.out" || fail "fit over 9"
grep -Eq "R\^2 (0|1)\.[0-9]+" "$TMPD/run.out" || fail "fit quality"
grep -q "Cramer's rule" "$TMPD/run.out" || fail "Cramer estimate"
kept=$(sed -n 's/^loopkit: kept //p' "$TMPD/run.err")
[ -d "$kept" ] || fail "--keep keeps the files"
"$LOOPKIT" memprof trace --text "$kept/trace" >"$TMPD/t.txt"
# 1 main + 300 rounds x 9 functions
[ "$(grep -c '^Call [0-9]* to function ' "$TMPD/t.txt")" -eq 2701 ] ||
	fail "2701 calls in the trace"
"$LOOPKIT" memprof profile "$TMPD/t.txt" >/dev/null || fail "text round trip"
rm -rf "$kept"

# Stored, and exportable as a tidy table.
POSIXLY_CORRECT=1 "$LOOPKIT" export -o "$TMPD/store" --csv --memprof \
	>"$TMPD/mp.csv"
python3 - "$TMPD/mp.csv" <<'PY'
import csv, sys
rows = {r["function"]: r for r in csv.DictReader(open(sys.argv[1]))}
assert set(rows) >= {"main", "load1", "mix2x4"}, rows.keys()
assert rows["load8"]["loads"] == "8192" and rows["load8"]["calls"] == "300"
# more accesses per call take more time: ordering, not timing
assert float(rows["load8"]["self"]) > float(rows["load1"]["self"])
assert float(rows["store4"]["self"]) > float(rows["store1"]["self"])
PY
