# The command line: help, usage errors, exit codes, loopkit check.
# e2e: shares the machine
. tests/e2e/lib.sh
cd "$TMPD"

"$LOOPKIT" --help | grep -q '^    run ' || fail "--help lists run"
"$LOOPKIT" run -h | grep -q -- '--repetitions' || fail "run -h lists options"
"$LOOPKIT" env -h | grep -q -- '--tune' || fail "env -h"
"$LOOPKIT" export -h | grep -q -- '--csv' || fail "export -h"

set +e
"$LOOPKIT" frobnicate 2>err; rc=$?
set -e
[ $rc -eq 2 ] || fail "unknown command exits 2, got $rc"
grep -q "unknown command 'frobnicate'" err || fail "unknown command named"

set +e
"$LOOPKIT" run --no-such-option x.c 2>err; rc=$?
set -e
[ $rc -eq 2 ] || fail "unknown option exits 2, got $rc"
[ "$(wc -l <err)" -le 2 ] || fail "a short message"
grep -q "unknown option '--no-such-option'" err || fail "option named"

set +e
"$LOOPKIT" run missing.c 2>err; rc=$?
set -e
[ $rc -eq 2 ] || fail "missing kernel exits 2, got $rc"
grep -q "missing.c" err || fail "missing file named"
[ ! -e loopkit.d ] || fail "nothing stored for a missing kernel"

"$LOOPKIT" check >check.out
for cap in cc runtime pmu perf-sw ptrace zydis llvm-mca valgrind gcc-plugin; do
	grep -q "^$cap " check.out || fail "check reports $cap"
done
grep -q '^runtime  *yes' check.out || fail "the runtime is found"
# Zydis is linked in (blocks, count): the version it reports, and it
# decodes; never "not linked"
grep -Eq '^zydis +yes +Zydis [0-9]+\.[0-9]+\.[0-9]+ linked in, decodes' \
	check.out || { grep zydis check.out; fail "check reports Zydis's version"; }
! grep -q 'not linked' check.out || fail "check says nothing untrue"

# Options anywhere, before, between or after the operands, whatever the
# environment says (POSIXLY_CORRECT stops getopt's own reordering).
trace=$SRC/tests/data/memprof-cli/nested.trace
"$LOOPKIT" memprof profile "$trace" --json >p.json ||
	fail "memprof profile TRACE --json"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' p.json ||
	fail "--json after the trace gives JSON"
POSIXLY_CORRECT=1 "$LOOPKIT" memprof profile "$trace" --tree -n 3 >t.out ||
	fail "memprof profile TRACE --tree -n 3"
grep -q 'f' t.out || fail "--tree after the trace prints the tree"
"$LOOPKIT" memprof --json profile "$trace" >p2.json || fail "memprof --json profile"
cmp -s p.json p2.json || fail "--json before the subcommand"
set +e
"$LOOPKIT" memprof profile "$trace" --frobnicate 2>err; rc=$?
set -e
[ $rc -eq 2 ] || fail "profile: an unknown option exits 2, got $rc"
grep -q -- "--frobnicate" err || fail "the unknown option is named"

POSIXLY_CORRECT=1 "$LOOPKIT" run -q "$SRC/examples/run/triad.c" --json \
	-D N=2000 -o store -m tsc >run.json || fail "run KERNEL.c --json -o DIR"
grep -q '"status":"ok"' run.json || fail "run: options after the kernel"
[ -d store ] || fail "run: -o after the kernel"
POSIXLY_CORRECT=1 "$LOOPKIT" export -o store --csv >e.csv || fail "export"
grep -q '^campaign,variant,' e.csv || fail "export -o DIR --csv"
set +e
POSIXLY_CORRECT=1 "$LOOPKIT" report --json - -o store >/dev/null 2>err; rc=$?
set -e
# the store after the options is read: no lifted prediction there yet
[ $rc -eq 1 ] || fail "report --json - -o DIR: exit 1, got $rc"
grep -q "nothing to report" err || fail "report reads -o after --json -"
POSIXLY_CORRECT=1 "$LOOPKIT" gen "$SRC/tests/data/gen/gemm.c" -t original \
	>gen.c || fail "gen KERNEL.c -t original"
grep -q 'pragma scop' gen.c || fail "gen: -t after the kernel"
gcc -c -o loop.o "$SRC/tests/data/blocks/loop.s"
POSIXLY_CORRECT=1 "$LOOPKIT" blocks loop.o --function f --json >b.json ||
	fail "blocks BINARY --function f --json"
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))' b.json ||
	fail "blocks: --json after the binary"
# "--" ends the options: what follows is an operand, even '--json'
set +e
"$LOOPKIT" memprof profile -- "$trace" --json >/dev/null 2>err; rc=$?
set -e
[ $rc -eq 2 ] && grep -q "unexpected '--json'" err ||
	fail "after --, --json is an operand"
