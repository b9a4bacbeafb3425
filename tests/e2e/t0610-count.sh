# loopkit count: every block's count in the region equals valgrind
# callgrind's execution count of the block's first instruction (one
# kernel call: LK_WARMUP=0 LK_STEPS=1 LK_REPETITIONS=1 LK_CALIBRATE=0, as
# count sets: the runtime runs the kernel nowhere else),
# whether measured by int3, by hardware breakpoint or derived; plus the
# counts known by hand. Kernels are built without -march (valgrind dies
# on AVX-512).
# e2e: shares the machine
. tests/e2e/lib.sh
command -v valgrind >/dev/null || skip "valgrind not installed"
rt=$(dirname "$LOOPKIT")/lib/liblkrt.a
cc=${CC:-cc}

build() { # name source flags...
	out=$TMPD/$1; src=$2; shift 2
	$cc -O2 -g -Irt "$@" "$src" "$rt" -lm -o "$out"
}
build triad examples/run/triad.c -DN=1000
build triad-scalar examples/run/triad.c -DN=1000 -fno-tree-vectorize
build dot examples/run/dot.c -DN=1000
build branchy tests/data/count/branchy.c -DN=100 -DM=10 -fno-tree-vectorize
build nopie tests/data/count/branchy.c -DN=64 -DM=3 -no-pie \
	-fno-tree-vectorize
# The runtime as a shared object: the markers are PLT entries.
$cc -shared -fPIC -O2 -Irt -D_GNU_SOURCE -o "$TMPD/liblkrt.so" rt/*.c -lm
$cc -O2 -g -Irt -DN=100 -DM=10 -fno-tree-vectorize \
	tests/data/count/branchy.c -L"$TMPD" -llkrt -Wl,-rpath,"$TMPD" -lm \
	-o "$TMPD/shared"

"$LOOPKIT" count "$TMPD/triad" >/dev/null 2>"$TMPD/err" || {
	cat "$TMPD/err"
	grep -q 'ptrace' "$TMPD/err" && skip "ptrace refused here"
	fail "count triad"
}

# callgrind's count per instruction address of function $2 in $1.
callgrind() {
	LK_WARMUP=0 LK_STEPS=1 LK_REPETITIONS=1 LK_CALIBRATE=0 \
		valgrind --tool=callgrind \
		--dump-instr=yes --compress-pos=no --compress-strings=no \
		--callgrind-out-file="$TMPD/cg.out" "$1" >/dev/null 2>&1 ||
		fail "valgrind on $1"
}

compare() { # binary [count options...]
	bin=$1; shift
	fn=$("$LOOPKIT" blocks "$bin" | sed -n '1s/^function \([^ ]*\).*/\1/p')
	"$LOOPKIT" count --json "$@" "$bin" >"$TMPD/count.json" ||
		fail "loopkit count $* $bin"
	python3 - "$TMPD/count.json" "$TMPD/cg.out" "$fn" "$bin $*" <<'PY'
import json, sys
blocks = json.load(open(sys.argv[1]))
want, fn, what = {}, sys.argv[3], sys.argv[4]
cur, skip = None, False
for line in open(sys.argv[2]):
    line = line.strip()
    if line.startswith("fn="):
        cur = line[3:]
    elif line.startswith("calls="):
        skip = True  # the next line is the call's inclusive cost
    elif line.startswith("0x"):
        if skip:
            skip = False
            continue
        if cur == fn:
            f = line.split()
            want[int(f[0], 16)] = want.get(int(f[0], 16), 0) + int(f[-1])
assert want, "callgrind saw no instruction of %s" % fn
for b in blocks:
    got, exp = b["count"], want.get(int(b["start"], 16), 0)
    assert got == exp, "%s: block %s: %d, callgrind %d (%s)" % (
        what, b["start"], got, exp, b["via"])
print("%s: %d blocks agree, %d measured" % (
    what, len(blocks), sum(b["measured"] for b in blocks)))
PY
}

for k in triad triad-scalar dot branchy nopie shared; do
	callgrind "$TMPD/$k"
	compare "$TMPD/$k"
	compare "$TMPD/$k" --no-hwbp
	compare "$TMPD/$k" --no-hwbp --all-blocks
done

# By hand: the scalar triad's loop body runs N times, the vectorised one
# N/2 (two doubles per SSE2 iteration); branchy's outer body N times,
# each side of the if N/2, the inner body N*M.
counts() { "$LOOPKIT" count --json "$@" | sed -n 's/.*"count": \([0-9]*\).*/\1/p' |
	sort -n | tr '\n' ' '; }
case " $(counts "$TMPD/triad-scalar")" in
*" 1000 "*) ;; *) fail "scalar triad body runs 1000 times" ;; esac
case " $(counts "$TMPD/triad")" in
*" 500 "*) ;; *) fail "vectorised triad body runs 500 times" ;; esac
c=" $(counts "$TMPD/branchy")"
for n in 1 50 100 1000; do
	case $c in *" $n "*) ;; *) fail "branchy: no block ran $n times: $c" ;;
	esac
done
# Two calls in the region, then three regions: counts scale.
case " $(counts --steps 2 "$TMPD/branchy")" in
*" 2000 "*) ;; *) fail "--steps 2: inner body 2000 times" ;; esac
case " $(counts --repetitions 3 "$TMPD/branchy")" in
*" 3000 "*) ;; *) fail "--repetitions 3: inner body 3000 times" ;; esac

# Derivation saves traps: fewer int3 hits than blocks executed.
"$LOOPKIT" count --no-hwbp "$TMPD/branchy" | head -n 1 >"$TMPD/head"
grep -q ' 1101 traps' "$TMPD/head" || { cat "$TMPD/head"; fail "traps"; }

# Failures: a crash names its signal, a hang is killed at the timeout,
# a missing function is bad input.
$cc -O2 -Irt tests/data/kernels/segv.c "$rt" -lm -o "$TMPD/segv"
$cc -O2 -Irt tests/data/kernels/hang.c "$rt" -lm -o "$TMPD/hang"
set +e
"$LOOPKIT" count "$TMPD/segv" >/dev/null 2>"$TMPD/err"; rc=$?
[ $rc -eq 1 ] && grep -q 'signal 11' "$TMPD/err" ||
	{ cat "$TMPD/err"; fail "segv: exit 1 naming signal 11, got $rc"; }
"$LOOPKIT" count --timeout 1 "$TMPD/hang" >/dev/null 2>"$TMPD/err"; rc=$?
[ $rc -eq 1 ] && grep -q 'killed' "$TMPD/err" ||
	{ cat "$TMPD/err"; fail "hang: killed at the timeout, got $rc"; }
"$LOOPKIT" count --function no_such_fn "$TMPD/branchy" 2>"$TMPD/err"; rc=$?
[ $rc -eq 2 ] || { cat "$TMPD/err"; fail "missing function: exit 2"; }
set -e
# The benchmark's output stays out of ours.
"$LOOPKIT" count -o "$TMPD/bench.out" "$TMPD/branchy" >"$TMPD/ours"
grep -q 'branchy' "$TMPD/bench.out" || fail "benchmark output captured"
grep -qv '^0x\|^function' "$TMPD/ours" && fail "stray output in ours"
exit 0
