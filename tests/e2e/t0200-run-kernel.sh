# loopkit run on one kernel: every figure labelled with its source, TSC
# ticks never called cycles, unsupported counters said so.
. tests/e2e/lib.sh
cd "$TMPD"

"$LOOPKIT" run -q "$SRC/examples/run/triad.c" \
	-m tsc,cycles,ns,instructions,task-clock >out
cat out
grep -Eq '^  tsc +[0-9.]+ +ticks/step +tsc ' out || fail "tsc in ticks/step"
grep -Eq '^  ns +[0-9.]+ +ns/step +clock_monotonic_raw ' out || fail "ns/step"
grep -Eq '^  task-clock +[0-9.]+ +ns/step +perf-sw ' out ||
	fail "software counter"
if has_pmu; then
	grep -Eq '^  cycles +[0-9.]+ +cycles/step +pmu ' out || fail "pmu cycles"
	grep -Eq '^  instructions +[0-9.]+ ' out || fail "instructions"
else
	grep -Eq '^  cycles +[0-9.]+ +cycles/step +tsc-calibrated ' out ||
		fail "cycles labelled tsc-calibrated"
	grep -Eq '^  instructions +- .*unsupported:E[A-Z]+' out ||
		fail "instructions: not supported, with the errno"
fi
! grep -Eq 'ticks/step +(pmu|tsc-calibrated)' out || fail "ticks are not cycles"

# The same as JSON; numbers as properties, never exact timings.
"$LOOPKIT" run -q --json "$SRC/examples/run/triad.c" -D N=2000 >run.json
python3 - run.json <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
assert len(v) == 1 and v[0]["status"] == "ok", v
r = {x["metric"]: x for x in v[0]["results"]}
tsc, ns, cyc = r["tsc"]["value"], r["ns"]["value"], r["cycles"]["value"]
assert tsc > 0 and ns > 0 and cyc > 0
# ticks per ns is the TSC frequency in GHz: plausible for any x86 box
assert 0.5 < tsc / ns < 6, tsc / ns
# core cycles per tick: the core clock against the TSC
assert 0.2 < cyc / tsc < 4, cyc / tsc
# 2,000 elements of a triad cannot take less than ~0.1 cycle each
assert cyc > 200, cyc
assert sum(1 for x in v[0]["results"] if x["primary"]) == 1
PY

# Bigger N takes longer: ordering, not timing.
"$LOOPKIT" run -q --json -m tsc "$SRC/examples/run/dot.c" -D N=500 >a.json
"$LOOPKIT" run -q --json -m tsc "$SRC/examples/run/dot.c" -D N=8000 >b.json
python3 - a.json b.json <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))[0]["results"][0]["value"]
b = json.load(open(sys.argv[2]))[0]["results"][0]["value"]
assert b > 4 * a, (a, b)     # 16x the work: at least 4x the time
PY
