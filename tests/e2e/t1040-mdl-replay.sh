# loopkit mdl replay: the hand-written loops of tests/data/mdl/asm re-run
# verbatim at an L1 and a RAM working set with positive figures (L1 the
# least sample, source tsc-least; RAM tsc-calibrated)
# figures (dot-global's store to a global, RIP-relative, goes to a
# writable scratch slot; counter-flags's exit reads the flags of its
# counter's add; stack-aligned's vmovdqa needs the frame 32-byte
# aligned, stack-misaligned's movaps at -0x18 8 bytes past 16;
# rip-constant's .rodata constant is copied from the linked
# binary; filled-base reads an array's address and its bound from stack
# slots, which replay sets), RAM >= L1 for the streaming triad; --dry-run
# shows the loop's own bytes; the indirect, branchy and eight-stream
# loops are refused with
# their reasons, and AVX-512 code where the CPU lacks it; a kernelified triad's replay at L1 is within 0.5x..2x
# of the native measurement of the same binary (the ratio is printed);
# mdl predict BINARY gives a positive figure from a tiny database; bad
# input exits 2 with one line.
. tests/e2e/lib.sh
command -v python3 >/dev/null || skip "python3 not installed"
command -v cc >/dev/null || skip "no C compiler to assemble with"
A=$(pwd)/tests/data/mdl/asm
RT=$SRC/rt
LIB=$(dirname "$LOOPKIT")/lib/liblkrt.a
cd "$TMPD"
# Sizes given in bytes: nothing depends on this host's caches.
L1="--level L1 --bytes 16384"
RAM="--level RAM --bytes 67108864"
field() { python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(d[sys.argv[2]])' "$@"; }

# --dry-run: a C file holding the loop's bytes, the measure's plan.
"$LOOPKIT" mdl replay "$A/triad.s" $L1 --dry-run >triad.c ||
	fail "dry run exited $?"
cc -c "$A/triad.s" -o triad.o
bytes=$(objdump -d triad.o | awk -F'\t' '/movsd.*\(%rsi,%rax,8\)/ {
	gsub(/ +$/, "", $2); gsub(/ /, ",0x", $2); print "0x" $2 }')
[ "$bytes" = 0xf2,0x0f,0x10,0x0c,0xc6 ] || fail "objdump: '$bytes'"
grep -q "\.byte $bytes" triad.c || fail "dry run without the loop's bytes"
grep -q '^/\* dry run: would record this file in campaign triad.s:mdl-replay' \
	triad.c || fail "dry run: $(head -1 triad.c)"
[ ! -e loopkit.d ] || fail "dry run created a store"

# L1 and RAM: positive, labelled, RAM >= L1 for the streaming triad.
loops="triad triad-x4 stencil dot-x4 decreasing stride4 copy-spill dot-global
	counter-flags stack-misaligned filled-base triad-rbp"
# stack-aligned is AVX code: only where the CPU runs it
"$LOOPKIT" env | grep '^cpu\.isa ' | grep -qw avx && loops="$loops stack-aligned"
for t in $loops; do
	for l in L1 RAM; do
		eval "lv=\$$l"
		"$LOOPKIT" mdl replay "$A/$t.s" $lv --json -o d >"$t.$l.json" ||
			fail "replay $t $l exited $?: $(cat "$t.$l.json")"
		python3 - "$t.$l.json" <<'PY' || fail "$t $l: $(cat "$t.$l.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "ok" and d["reason"] is None, d
# L1: the least sample, as the database's L1 and L2 (src/mdl/db.c)
assert d["source"] == ("tsc-least" if d["level"] == "L1"
                       else "tsc-calibrated"), d
# the clock a least sample is taken at: a core/TSC ratio
assert 0.2 < d["clock"] < 10, d
assert d["cycles_per_iteration"] > 0, d
assert abs(d["cycles_per_canonical_iteration"] * d["unroll"] -
           d["cycles_per_iteration"]) < 1e-9 * d["cycles_per_iteration"], d
PY
	done
done
l1=$(field triad.L1.json cycles_per_iteration)
ram=$(field triad.RAM.json cycles_per_iteration)
# Each process runs the L1 replay in a state of its own (1.27, 2.21 and
# 1.61 cycles in three in a row on the Zen 3 guest; 3.33 once in a CI
# run of 2026-11-28, above the RAM replay's 3.28): such states only add
# time, so the L1 figure is the least of up to three replays, each a
# store and a process of its own.
for again in 2 3; do
	num_ok "$ram >= $l1" && break
	"$LOOPKIT" mdl replay "$A/triad.s" $L1 --json -o "d.$again" \
		>"triad.L1.$again.json" || fail "replay triad L1 again exited $?"
	l=$(field "triad.L1.$again.json" cycles_per_iteration)
	num_ok "$l < $l1" && l1=$l
done
num_ok "$ram >= $l1" || fail "triad: RAM $ram < L1 $l1 cycles/iter"
echo "triad.s: L1 $l1, RAM $ram cycles/iter"
[ "$(field triad-x4.L1.json unroll)" = 4 ] || fail "triad-x4: unroll"

# An aligned legacy-SSE operand 8 bytes below a base (gcc -O2's
# kernelified jacobi-1d): the base is placed so that it does not fault.
cat >shifted.s <<'EOF'
	.text
	.globl shifted
	.type shifted, @function
shifted:
.L1:
	movupd	(%rax), %xmm0
	addpd	-8(%rax), %xmm0
	addq	$16, %rax
	addq	$16, %rdx
	movups	%xmm0, -16(%rdx)
	cmpq	%rcx, %rax
	jne	.L1
	ret
	.size shifted, .-shifted
EOF
"$LOOPKIT" mdl replay shifted.s $L1 --json -o d >shifted.json ||
	fail "replay of an aligned operand below its base: $(cat shifted.json)"
[ "$(field shifted.json run_status)" = ok ] || fail "shifted: $(cat shifted.json)"

# A constant of .rodata read in the loop: the replay's scratch slot is
# a copy of it, read from the linked binary (2.5: 00 .. 04 40), and the
# replay runs; the object file, whose data is not placed, gets ones.
cc -nostdlib -static -Wl,-e,rip_constant -o rip-constant "$A/rip-constant.s" ||
	fail "link rip-constant.s"
"$LOOPKIT" mdl replay rip-constant --function rip_constant $L1 --dry-run \
	>rip.c || fail "rip-constant dry run"
grep -q '^	"\.byte 0x00,0x00,0x00,0x00,0x00,0x00,0x04,0x40,0x00,' rip.c ||
	fail "rip-constant: the slot is not the constant: $(grep -A2 Lrp_rip0 rip.c)"
"$LOOPKIT" mdl replay "$A/rip-constant.s" $L1 --dry-run >rip-o.c
grep -A1 'Lrp_rip0:' rip-o.c | grep -q '\.rept 8' || fail "object file's slot"
"$LOOPKIT" mdl replay rip-constant --function rip_constant $L1 --json -o d \
	>rip.json || fail "rip-constant replay: $(cat rip.json)"
[ "$(field rip.json run_status)" = ok ] || fail "rip-constant: $(cat rip.json)"

# Refusals, with their reasons (exit 0).
refused() {
	"$LOOPKIT" mdl replay "$A/$1.s" $L1 --json -o d >"$1.r.json" ||
		fail "replay $1 exited $?"
	[ "$(field "$1.r.json" status)" = refused ] || fail "$1: not refused"
	case $(field "$1.r.json" reason) in
	$2*) ;;
	*) fail "$1: reason '$(field "$1.r.json" reason)'" ;;
	esac
}
refused indirect "indirect access"
# AVX-512 code: replayed where the CPU runs it, refused elsewhere.
if "$LOOPKIT" env | grep '^cpu\.isa ' | grep -w avx512f | grep -qw avx512vl
then
	"$LOOPKIT" mdl replay "$A/triad-avx512.s" $L1 --json -o d \
		>t512.json || fail "replay triad-avx512: $(cat t512.json)"
	[ "$(field t512.json run_status)" = ok ] || fail "$(cat t512.json)"
else
	refused triad-avx512 "the loop needs avx512f and avx512vl, which this CPU lacks"
fi
refused branch "multi-block loop"
refused eight-streams "more than 7 streams (8 base registers)"
"$LOOPKIT" mdl replay "$A/indirect.s" $L1 -o d >ind.txt
[ "$(cat ind.txt)" = "refused: indirect access (%rax is loaded in the loop)" ] ||
	fail "text refusal: $(cat ind.txt)"
"$LOOPKIT" mdl replay "$A/eight-streams.s" $L1 --max-streams 8 --dry-run \
	>eight.c || fail "--max-streams 8"
grep -q '^#define RP_GROUPS 8$' eight.c || fail "eight streams: $(head -2 eight.c)"

# A kernelified triad: replay at L1 vs the same binary measured natively,
# per call (the replay keeps the compiled trip count).
cat >triad-k.c <<'EOF'
/* loopkit: kernel=triad family=streams */
#include "kernels.h"

#ifndef N
#define N LKK_SIZE(100, 600, 2000, 20000)
#endif

static void init(int n, double A[N], double B[N], double C[N])
{
	int i;

	for (i = 0; i < n; i++) {
		A[i] = 0;
		B[i] = 1.0 + (double)(i % 7) / 7;
		C[i] = 1.0 + (double)(i % 5) / 5;
	}
}

LKK_KERNEL void kernel_triad(int n, double s, double A[N], double B[N],
			     double C[N])
{
	int i;

#pragma scop
	for (i = 0; i < n; i++)
		A[i] = B[i] + s * C[i];
#pragma endscop
}

int main(int argc, char **argv)
{
	struct lkk_run run;
	double *A, *B, *C;

	lkk_start(&run, argc, argv, "triad");
	A = lkk_alloc(&run, sizeof(double[N]));
	B = lkk_alloc(&run, sizeof(double[N]));
	C = lkk_alloc(&run, sizeof(double[N]));
	init(N, A, B, C);
	LKK_RUN(&run, kernel_triad(N, 3.0, A, B, C));
	LKK_SUM_F64(&run, A, N);
	lkk_free(A);
	lkk_free(B);
	lkk_free(C);
	return lkk_finish(&run);
}
EOF
cp "$SRC/kernels/kernels.h" .
# The budget given: the default, half this host's L1D, may not fit the
# replay's 16 KiB with the compiled trip count kept (48 KiB L1D: 960
# iterations, cut to 340 for the replay).
"$LOOPKIT" gen -q --no-verify triad-k.c \
	--transform original+kernelify,l1=16384 -o gen 2>gen.err ||
	fail "kernelify: $(cat gen.err)"
gcc -O2 -I"$RT" gen/triad.0.c "$LIB" -lm -o triad-k ||
	fail "build the kernelified triad"
# Native: the median cycles per call of three launches, the lowest.
# A launch's median moves up to twice between launches on a shared
# guest (415 to 909 cycles for this binary on a 2-core Emerald Rapids
# guest, its minimum 313 TSC ticks in every one), and the replay's as
# well: such states only add time, so up to three rounds each measure
# both again (a replay in a store of its own) and keep the lowest.
native="" replay=""
for round in 1 2 3; do
	n=$(for i in 1 2 3; do ./triad-k; done 2>&1 | awk \
		'/cycles\/step/ { if (m == "" || $4 < m) m = $4 } END { print m }')
	num_ok "$n > 0" || fail "native: '$n'"
	"$LOOPKIT" mdl replay triad-k $L1 --json -o "k.$round" >k.json ||
		fail "replay triad-k"
	r=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "ok" and d["kept_trips"] is True, d
print(repr(d["cycles_per_iteration"] * d["trips"]))' k.json) ||
		fail "kernelified triad: $(cat k.json)"
	{ [ -z "$native" ] || num_ok "$n < $native"; } && native=$n
	{ [ -z "$replay" ] || num_ok "$r < $replay"; } && replay=$r
	num_ok "$replay >= 0.5 * $native && $replay <= 2 * $native" && break
done
echo "kernelified triad (gcc -O2): native $native, replay $replay cycles" \
	"per call ($(field k.json trips) iterations, round $round)"
num_ok "$replay >= 0.5 * $native && $replay <= 2 * $native" ||
	fail "kernelified triad: replay $replay, native $native cycles per call"

# mdl predict BINARY against a tiny database: a positive figure, per
# loop iteration = per canonical iteration x unroll.
"$LOOPKIT" mdl db build --isa sse --levels L1 --explore minimal -q -o d \
	--seeds L2S1A1M1,L2S1 >db.out || fail "db build: $(cat db.out)"
"$LOOPKIT" mdl predict triad-k --isa sse --level L1 --json -o d >p.json ||
	fail "predict BINARY exited $?"
python3 - p.json <<'PY' || fail "predict: $(cat p.json)"
import json, sys
d = json.load(open(sys.argv[1]))
p = d["predictions"][0]
assert d["status"] == "ok" and p["level"] == "L1", d
assert p["cycles_per_canonical_iteration"] > 0, d
assert abs(p["cycles_per_iteration"] - d["unroll"] *
           p["cycles_per_canonical_iteration"]) < 1e-9, d
PY
# --isa auto: a binary's loop against its own class's database (the
# scalar triad: scalar). The store holds sse's alone: on a CPU whose
# widest class is sse (a fake /proc/cpuinfo), sse's with a note; where
# the widest is avx2, none: the error names the class to build.
mkdir -p sse/proc avx2/proc
printf 'processor\t: 0\nflags\t\t: fpu sse sse2 sse4_2\n' >sse/proc/cpuinfo
printf 'processor\t: 0\nflags\t\t: fpu sse sse2 sse4_2 avx avx2 fma\n' \
	>avx2/proc/cpuinfo
LOOPKIT_SYSROOT=$TMPD/sse "$LOOPKIT" mdl predict "$A/triad.s" --level L1 \
	-o d >pa.txt 2>pa.err || fail "predict auto on sse: $(cat pa.err)"
grep -q "^L1 .* sse database" pa.txt &&
	grep -q "note: the loop is scalar code, and d has no scalar database: \
predicting against the sse one" pa.err || fail "auto: $(cat pa.txt pa.err)"
set +e
LOOPKIT_SYSROOT=$TMPD/avx2 "$LOOPKIT" mdl predict "$A/triad.s" --level L1 \
	-o d >pa.txt 2>pa.err
rc=$?
set -e
[ $rc = 2 ] && [ "$(cat pa.err)" = "loopkit: error: d: no MDL database \
for scalar: build it with 'loopkit mdl db build --isa scalar -o d'" ] ||
	fail "auto without the loop's class: $rc $(cat pa.err)"
"$LOOPKIT" mdl predict "$A/branch.s" --isa sse -o d >pb.txt ||
	fail "predict of a refused loop exited $?"
grep -q '^refused: control flow inside the loop body$' pb.txt ||
	fail "predict refusal: $(cat pb.txt)"

# Bad input: exit 2, one line naming what is wrong; nothing stored.
n0=$(sqlite3 d/store.db 'SELECT count(*) FROM variants')
bad() {
	set +e
	"$LOOPKIT" mdl replay "$@" >bad.out 2>bad.err
	rc=$?
	set -e
	[ $rc -eq 2 ] || fail "'$*' exited $rc: $(cat bad.err)"
	[ "$(grep -c '^loopkit: error: ' bad.err)" -eq 1 ] ||
		fail "'$*': $(cat bad.err)"
	grep -q "$1\|--\|replay" bad.err || fail "'$*': $(cat bad.err)"
}
bad nothere --level L1 -o d
bad "$A/triad.s" -o d
bad "$A/triad.s" --level L4 -o d
bad "$A/triad.s" --level L1 --loop 0x999 -o d
bad "$A/triad.s" --level L1 --function nosuch -o d
bad "$A/triad.s" --level L1 --bytes 10 -o d
[ "$(sqlite3 d/store.db 'SELECT count(*) FROM variants')" = "$n0" ] ||
	fail "bad input recorded variants"
exit 0
