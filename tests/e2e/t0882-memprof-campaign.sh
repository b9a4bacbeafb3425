#!/bin/sh
# The memprof stage of a campaign: the memprof: section's programs
# profiled into the campaign, skipped when stored (by the content of the
# source, the flags and the plugin), a failing program stored with its
# reason, the rows exported; a bad section is a file:line error that
# stores nothing; without the section the stage has nothing to do.
. tests/e2e/lib.sh
command -v python3 >/dev/null || skip "python3 is not installed"
plugin=$(dirname "$LOOPKIT")/plugin/lkmemprof.so
[ -r "$plugin" ] || skip "GCC plugin not built (gcc-12-plugin-dev missing)"
src=$(pwd)
cd "$TMPD"
cp "$src/examples/memprof/mix.c" mix.c
printf 'int main(void) { return 3; }\n' >fails.c

cat >c.yaml <<'EOF'
name: mp
sources: [mix.c]
memprof:
  programs: [mix.c, fails.c]
  cflags: -O1
EOF
# export: the memprof rows of campaign mp (CSV)
rows() { POSIXLY_CORRECT=1 "$LOOPKIT" export -o st --csv --memprof \
	--campaign mp >"$1" || fail "export --memprof"; }

"$LOOPKIT" campaign -c c.yaml -o st --only memprof >out 2>err ||
	fail "campaign --only memprof: $(cat err)"
cat out
grep -q '^memprof  2 programs: 1 profiled now, 0 stored earlier, 1 failed' \
	out || fail "first run: $(cat out)"
grep -Eq '^ +mix\.c: load [0-9.]+, store [0-9.]+ TSC ticks per operation \(least squares over 9 functions' \
	out || fail "the fit in the summary: $(cat out)"
grep -q 'fails.c: failed: the instrumented program failed (exit 3)' err ||
	fail "the failure's reason: $(cat err)"
rows first.csv
python3 - first.csv <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert {r["program"] for r in rows} == {"mix.c"}, rows
assert {r["cflags"] for r in rows} == {"-O1"}, rows
f = {r["function"]: r for r in rows}
assert len(rows) == 10 and set(f) >= {"main", "load1", "mix2x4"}, f.keys()
assert f["load8"]["loads"] == "8192" and f["load8"]["calls"] == "300"
assert f["store4"]["stores"] == "4096" and f["store4"]["loads"] == "0"
# Times are t0510's business: load1's 0.1 ms in all can lose one
# preemption to a busy machine and outgrow load8's.
assert all(float(r["self"]) > 0 for r in rows)
PY

# Again: nothing profiled twice; the failure stays stored, untried.
"$LOOPKIT" campaign -c c.yaml -o st --only memprof >out 2>err ||
	fail "rerun: $(cat err)"
grep -q '^memprof  2 programs: 0 profiled now, 1 stored earlier, 1 failed' \
	out || fail "rerun: $(cat out)"
grep -q 'failed: ' err && fail "rerun tried the failed program again"
rows again.csv
cmp -s first.csv again.csv || fail "the rerun changed the stored rows"
# memprof run -c is the same stage; --retry-failed tries fails.c again
"$LOOPKIT" memprof run -c c.yaml -o st --retry-failed >out 2>err ||
	fail "memprof run -c: $(cat err)"
grep -q '^memprof  2 programs: 0 profiled now, 1 stored earlier, 1 failed' \
	out || fail "memprof run -c: $(cat out)"
grep -q 'fails.c: failed: ' err || fail "--retry-failed: $(cat err)"

# Other flags, or another source, make another key: profiled again.
sed 's/cflags: -O1/cflags: [-O1, -g]/' c.yaml >c2.yaml
"$LOOPKIT" campaign -c c2.yaml -o st --only memprof >out 2>err ||
	fail "new flags: $(cat err)"
grep -q '^memprof  2 programs: 1 profiled now, 0 stored earlier, 1 failed' \
	out || fail "new flags: $(cat out)"
rows flags.csv
python3 - flags.csv <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert sorted({r["cflags"] for r in rows}) == ["-O1", "-O1 -g"], rows
assert len({r["run"] for r in rows}) == 2
PY
echo '/* edited */' >>mix.c
"$LOOPKIT" campaign -c c.yaml -o st --only memprof -q >out 2>err ||
	fail "edited source: $(cat err)"
grep -q ' 1 profiled now, 0 stored earlier' out || fail "edited: $(cat out)"

# A bad section: one line with the file and the line, exit 2, nothing
# stored.
rows before.csv
printf 'name: mp\nsources: [mix.c]\nmemprof:\n  programs: [mix.c]\n  strict: perhaps\n' >bad.yaml
set +e
"$LOOPKIT" campaign -c bad.yaml -o st --only memprof >out 2>err
rc=$?
set -e
[ $rc -eq 2 ] || fail "bad section: exit 2, got $rc"
[ "$(wc -l <err)" -eq 1 ] || fail "bad section: one line: $(cat err)"
grep -q "^loopkit: error: bad.yaml:5: memprof.strict: expected true or false, not 'perhaps'" \
	err || fail "bad section: $(cat err)"
printf 'name: mp\nsources: [mix.c]\nmemprof:\n  programs: [nope.c]\n' >missing.yaml
set +e
"$LOOPKIT" memprof run -c missing.yaml -o st >out 2>err
rc=$?
set -e
[ $rc -eq 2 ] && grep -q "missing.yaml:4: memprof.programs: 'nope.c' not found" \
	err || fail "missing program: exit $rc, $(cat err)"
rows after.csv
cmp -s before.csv after.csv || fail "a bad section stored something"

# No memprof: section: nothing to do, and a success.
printf 'name: plain\nsources: [mix.c]\n' >plain.yaml
"$LOOPKIT" campaign -c plain.yaml -o st --only memprof >out 2>err ||
	fail "no section: $(cat err)"
grep -q '^memprof  nothing to do: the file has no memprof: section' out ||
	fail "no section: $(cat out)"
