# loopkit mdl extract on the hand-written loops of tests/data/mdl/asm:
# each extracts as the rules of doc/loopkit-mdl.md say (streams,
# strides, offsets, coalesced sizes, Add/Mul, unroll, spill/fill,
# refusals, carried recurrences; the inner loop of a nest and its depth;
# a function that is only a global label; which loop of several replay
# takes), and the scalar, unrolled, vectorised, renamed and
# AVX-512-masked triads share one canonical body; so do a scalar stencil
# and its AVX2 forms with a register rotated through vperm2f128, or
# through a vpermt2pd whose index vector is in the binary's .rodata.
# e2e: shares the machine
. tests/e2e/lib.sh
command -v python3 >/dev/null || skip "python3 not installed"
command -v cc >/dev/null || skip "no C compiler to assemble with"
A=tests/data/mdl/asm

for f in "$A"/*.s; do
	b=$(basename "$f" .s)
	[ "$b" = local-label ] && set -- --function sum || set --
	"$LOOPKIT" mdl extract "$f" "$@" --json >"$TMPD/$b.json" ||
		fail "extract $b exited $?"
done
set +e
"$LOOPKIT" mdl extract "$A/local-label.s" 2>"$TMPD/err"; rc=$?
set -e
[ $rc = 2 ] && grep -q "local-label.s: no .globl symbol (name the function \
with --function)" "$TMPD/err" || fail "local label unnamed: $rc $(cat "$TMPD/err")"

# One canonical body for the eight triads (one under AVX-512 writemasks,
# one with an array through %rbp, one whose pointer and bound are
# spilled), and it is the expected one.
cat >"$TMPD/triad.body" <<'EOF2'
Trip: n
I/O: In: s0 n*8 s1 n*8 Out: s2 n*8
LoopBody:
  In:  s0 Stride: 8 Offset: 0 Size: 8
       s1 Stride: 8 Offset: 0 Size: 8
  Out: s2 Stride: 8 Offset: 0 Size: 8
  Add: 1 Mul: 1
EOF2
for t in triad triad-x4 triad-avx2 triad-avx2-renamed triad-avx512 \
	triad-avx512-masked triad-rbp filled-base; do
	"$LOOPKIT" mdl extract "$A/$t.s" --canonical >"$TMPD/$t.body" ||
		fail "extract --canonical $t"
	cmp -s "$TMPD/triad.body" "$TMPD/$t.body" ||
		fail "$t: canonical body differs: $(cat "$TMPD/$t.body")"
done
# The MDL text is canonical (fmt --check accepts it).
"$LOOPKIT" mdl extract "$A/triad-avx2.s" >"$TMPD/t.mdl" || fail "extract"
"$LOOPKIT" mdl fmt --check "$TMPD/t.mdl" || fail "extracted MDL not canonical"

python3 - "$TMPD" <<'EOF2' || fail "extracted properties"
import json, sys
d = sys.argv[1]
def get(name):
    return json.load(open(f"{d}/{name}.json"))
def uk(x):
    return [([(a["flow"], a["stride"], a["offset"], a["size"]) for a in u["in"]],
             [(a["flow"], a["stride"], a["offset"], a["size"]) for a in u["out"]],
             u["add"], u["mul"]) for u in x["ukernels"]]
bad = []
def expect(name, cond, what):
    if not cond:
        bad.append(f"{name}: {what}: {json.dumps(get(name))}")
for n, u, lanes in [("triad", 1, 1), ("triad-x4", 4, 1), ("triad-avx2", 8, 4),
                    ("triad-avx2-renamed", 8, 4)]:
    x = get(n)
    expect(n, x["status"] == "ok" and x["meta"]["unroll"] == u and
           x["meta"]["lanes"] == lanes, f"unroll {u}, lanes {lanes}")
    expect(n, x["meta"]["flop_per_byte"] == 0.0833, "flop/byte 2/24")
x = get("copy-spill")
expect("copy-spill", x["meta"]["spill_fill"] == 2 and len(x["streams"]) == 2
       and uk(x) == [([("s0", 8, 0, 8)], [("s1", 8, 0, 8)], 0, 0)],
       "a copy, 2 stack accesses removed")
x = get("two-independent")
expect("two-independent", len(x["ukernels"]) == 2 and
       sorted((u["add"], u["mul"]) for u in x["ukernels"]) == [(0, 1), (1, 0)],
       "two µkernels")
for n, u in [("stencil", 1), ("stencil-x2", 2)]:
    x = get(n)
    expect(n, x["meta"]["unroll"] == u and
           uk(x) == [([("s0", 8, 0, 24)], [("s1", 8, 0, 8)], 2, 1)],
           "3 points coalesced into 24 bytes")
expect("stencil", get("stencil")["canonical"] == get("stencil-x2")["canonical"],
       "same canonical body at unroll 1 and 2")
# clang's register rotation through vperm2f128 and vshufpd by immediates
x = get("stencil-avx2-rotated")
expect("stencil-avx2-rotated", x["meta"]["unroll"] == 4 and
       x["canonical"] == get("stencil")["canonical"],
       "the shuffled rotation is the scalar stencil's body")
for n, u, c in [("dot", 1, 1), ("dot-x4", 4, 4)]:
    x = get(n)
    expect(n, x["meta"]["unroll"] == u and x["meta"]["carried"] == c and
           uk(x) == [([("s0", 8, 0, 8), ("s1", 8, 0, 8)], [], 1, 1)],
           f"a reduction, {c} carried")
expect("dot", get("dot")["canonical"] == get("dot-x4")["canonical"],
       "1 and 4 accumulators: one canonical body")
# The carried recurrence per compiled iteration: a register chain, or
# one through memory (a store loaded back the next iteration).
def chain(n):
    return {k: v for k, v in get(n)["meta"].items() if k.startswith("chain")}
expect("dot", chain("dot") == {"chain_add": 1}, "a chain of one add")
expect("dot-x4", chain("dot-x4") == {"chain_add": 1}, "four chains of one add")
expect("triad", chain("triad") == {}, "no chain")
expect("recurrence", chain("recurrence") == {"chain_add": 1, "chain_div": 1,
       "chain_forward": 1}, "add, div and a store loaded back")
expect("spilled-sum", chain("spilled-sum") == {"chain_add": 1,
       "chain_forward": 1}, "an add through a stack slot")
x = get("running-max")
expect("running-max", chain("running-max") == {"chain_other": 2} and
       x["meta"]["carried"] == 1 and len(x["ukernels"]) == 1 and
       len(x["ukernels"][0]["in"]) == 2,
       "a max through a compare and a cmov, one µkernel")
expect("forward-fail", get("forward-fail")["meta"].get("forward_fail") == 1,
       "a 16-byte load of two 8-byte stores")
expect("copy-spill", "forward_fail" not in get("copy-spill")["meta"],
       "a fill of what one spill wrote forwards")
x = get("indirect")
expect("indirect", x["status"] == "refused" and
       x["reason"].startswith("indirect access"), "refused, indirect")
x = get("string-op")
expect("string-op", x["status"] == "refused" and
       x["reason"] == "a string instruction (movsb), which moves its own "
       "address register %rdi", "refused, a string instruction")
x = get("convert-halves")
expect("convert-halves", x["meta"]["unroll"] == 8 and
       uk(x) == [([("s0", 4, 0, 4)], [("s1", 8, 0, 8)], 0, 1)],
       "ints converted to doubles, one lane each (vextracti128 keeps them)")
x = get("runtime-stride")
expect("runtime-stride", x["status"] == "refused" and
       x["reason"] == "a stride not in the binary (%rcx steps by %r8, a "
       "register: a run-time size)", "refused, a register stride")
x = get("local-label")
expect("local-label", x["status"] == "ok" and
       uk(x) == [([("s0", 8, 0, 8)], [], 1, 0)] and x["meta"]["carried"] == 1,
       "a local label named by --function, its inner label inside it")
x = get("frame-spill")
expect("frame-spill", x["meta"]["spill_fill"] == 2 and len(x["streams"]) == 2
       and uk(x) == [([("s0", 8, 0, 8)], [("s1", 8, 0, 8)], 0, 0)],
       "a slot of the frame %rbp points at: a spill and its fill")
x = get("triad-rbp")
expect("triad-rbp", x["meta"]["spill_fill"] == 0 and len(x["streams"]) == 3,
       "without a frame pointer, %rbp is a stream's base")
x = get("push-pop")
expect("push-pop", x["status"] == "refused" and
       x["reason"] == "a stack push or pop (push), which moves %rsp in the "
       "loop", "refused, a push")
x = get("branch")
expect("branch", x["status"] == "refused" and
       x["reason"] == "control flow inside the loop body", "refused, branch")
x = get("nested")
expect("nested", x["status"] == "ok" and x["loop"] == "0x6" and
       x["depth"] == 2 and
       uk(x) == [([("s0", 8, 0, 8)], [("s1", 8, 0, 8)], 0, 1)],
       "the inner loop of two, at 0x6, nested 2 deep, its row scaled")
x = get("untyped")
expect("untyped", x["status"] == "ok" and x["loop"] == "0x2" and
       uk(x) == [([("s0", 8, 0, 8), ("s1", 8, 0, 8)], [("s2", 8, 0, 8)], 1, 0)],
       "a global label without .type or .size is a function")
x = get("eight-streams")
expect("eight-streams", len(x["streams"]) == 8 and
       len(x["ukernels"][0]["in"]) == 7 and x["ukernels"][0]["add"] == 6,
       "8 streams, 7 in, 6 adds")
x = get("one-array-two-bases")
expect("one-array-two-bases", len(x["streams"]) == 2 and
       uk(x) == [([("s0", 8, 0, 8), ("s1", 8, 0, 8)], [("s1", 8, 0, 8)], 1, 0)],
       "two bases are two streams")
x = get("decreasing")
expect("decreasing", all(s["stride"] == -8 for s in x["streams"]) and
       len(x["streams"]) == 3, "stride -8")
x = get("stride4")
expect("stride4", uk(x) == [([("s0", 32, 0, 8)], [("s1", 8, 0, 8)], 0, 0)],
       "stride 32 in, 8 out")
x = get("one-base-two-arrays")
expect("one-base-two-arrays", len(x["streams"]) == 3 and
       x["meta"].get("split") == 2 and
       all(s["base"] == "%rdi" for s in x["streams"]) and
       [s["disp"] for s in x["streams"]] == [0, 32768, 65536],
       "one base, displacements 32 KiB apart: three streams, their disp")
expect("triad", all("disp" not in s for s in get("triad")["streams"]),
       "no disp where no flow is split from another")
if bad:
    print("\n".join(bad), file=sys.stderr)
    sys.exit(1)
EOF2

# Three innermost loops in one function, each with its nesting depth;
# replay (and predict) take the deepest one extraction accepts, not the
# first nor the deeper refused one, and say which on stderr.
python3 - "$TMPD/nest-pick.json" <<'EOF2' ||
import json, sys
x = [json.loads(l) for l in open(sys.argv[1])]
assert [(l["loop"], l["depth"], l["status"]) for l in x] == \
    [("0x3", 1, "ok"), ("0x19", 2, "ok"), ("0x47", 3, "refused")], x
EOF2
	fail "nest-pick: $(cat "$TMPD/nest-pick.json")"
"$LOOPKIT" mdl replay "$A/nest-pick.s" --level L1 --dry-run >"$TMPD/np.c" \
	2>"$TMPD/np.err" || fail "replay nest-pick: $(cat "$TMPD/np.err")"
grep -q "^/\* loopkit-mdl-replay: .* loop=0x19 " "$TMPD/np.c" ||
	fail "replay nest-pick took: $(grep -m1 loopkit-mdl-replay "$TMPD/np.c")"
grep -q "^loopkit: note: nest_pick: 3 innermost loops; taking 0x19, nested 2 deep" \
	"$TMPD/np.err" || fail "replay nest-pick's note: $(cat "$TMPD/np.err")"

# A vpermt2pd's index vector loaded from .rodata before the loop: read
# from the linked binary, it is a lane move and the body is the scalar
# stencil's (in the object file the address is not placed yet).
cc -nostdlib -static -Wl,-e,permute_rodata -o "$TMPD/permute-rodata" \
	"$A/permute-rodata.s" || fail "link permute-rodata.s"
"$LOOPKIT" mdl extract "$TMPD/permute-rodata" --function permute_rodata \
	--canonical >"$TMPD/pr.body" || fail "extract permute-rodata"
"$LOOPKIT" mdl extract "$A/stencil.s" --canonical >"$TMPD/stencil.body"
cmp -s "$TMPD/pr.body" "$TMPD/stencil.body" ||
	fail "permute-rodata: canonical body differs: $(cat "$TMPD/pr.body")"

# Errors: a binary without the function, a bad --loop, a missing file.
set +e
"$LOOPKIT" mdl extract "$A/triad.s" --function nope >"$TMPD/o" 2>"$TMPD/e"; rc=$?
set -e
[ $rc = 2 ] || fail "missing function exited $rc"
[ "$(wc -l <"$TMPD/e")" = 1 ] && grep -q "triad.s: .*nope" "$TMPD/e" ||
	fail "missing function: $(cat "$TMPD/e")"
# An assembly file that does not assemble: the assembler's error line,
# with the file and line; a function without a loop: the file, not the
# temporary object it was assembled into.
printf '\t.globl f\nf:\n\tfoo %%rax\n' >"$TMPD/bad.s"
printf '\t.globl g\ng:\n\tret\n' >"$TMPD/noloop.s"
extract_error() {
	set +e
	"$LOOPKIT" mdl extract "$TMPD/$1" >"$TMPD/o" 2>"$TMPD/e"; rc=$?
	set -e
	[ $rc = 2 ] && [ "$(wc -l <"$TMPD/e")" = 1 ] &&
		grep -q "^loopkit: error: $2" "$TMPD/e" ||
		fail "$1: exit $rc: $(cat "$TMPD/e")"
}
extract_error bad.s "$TMPD/bad.s: does not assemble: .*bad.s:3.*foo"
extract_error noloop.s "g: no loop in $TMPD/noloop.s\$"
set +e
"$LOOPKIT" mdl extract "$A/triad.s" --loop zz 2>/dev/null; rc=$?
set -e
[ $rc = 2 ] || fail "bad --loop exited $rc"
"$LOOPKIT" mdl extract "$A/triad.s" --loop 0x2 --canonical >"$TMPD/l" ||
	fail "--loop 0x2"
cmp -s "$TMPD/l" "$TMPD/triad.body" || fail "--loop 0x2: $(cat "$TMPD/l")"
echo ok
