# loopkit env: the facts, as text and JSON; --tune without privileges or
# with --dry-run only says what it would do.
# e2e: shares the machine
. tests/e2e/lib.sh
cd "$TMPD"
"$LOOPKIT" env >env.txt
cat env.txt
for k in cpu.model cpu.microarch tsc.hz tsc.invariant core.tsc_ratio \
	pmu.available pmu.perf_event_paranoid virt.guest kernel.release; do
	grep -q "^$k " env.txt || fail "env reports $k"
done
"$LOOPKIT" env --json --no-calibrate >env.json
python3 -c 'import json; d=json.load(open("env.json")); assert d["tsc.hz"]'
LOOPKIT_TUNE_STATE=$TMPD/tune.state "$LOOPKIT" env --tune --dry-run >tune.txt
cat tune.txt
[ -s tune.txt ] || fail "--tune --dry-run reports"
[ ! -e "$TMPD/tune.state" ] || fail "a dry run saves nothing"
"$LOOPKIT" env --store -o store --no-calibrate >/dev/null
[ "$(sqlite3 store/store.db 'select count(*) from environments')" -eq 1 ] ||
	fail "snapshot stored"
