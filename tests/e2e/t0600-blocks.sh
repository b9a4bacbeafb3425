# loopkit blocks: the data-driven cases of tests/data/blocks, the kernels
# of the examples (found between the region markers, instruction addresses
# checked against objdump -d), an inlined kernel, and the errors.
# e2e: shares the machine
. tests/e2e/lib.sh
command -v objdump >/dev/null || skip "objdump (binutils) not installed"
command -v gcc >/dev/null || skip "gcc not installed"
rtlib=$(dirname "$LOOPKIT")/lib/liblkrt.a

for s in tests/data/blocks/*.s; do
	name=$(basename "$s" .s)
	gcc -c -o "$TMPD/$name.o" "$s"
	"$LOOPKIT" blocks "$TMPD/$name.o" --function f >"$TMPD/$name.out" ||
		fail "$name: loopkit blocks failed"
	grep '^block' "$TMPD/$name.out" >"$TMPD/$name.got"
	diff -u "tests/data/blocks/$name.expect" "$TMPD/$name.got" ||
		fail "$name: blocks differ from $name.expect"
done

# objdump's instruction addresses of function $2 in binary $1, from the
# symbol's start to its end by nm -S (objdump would go on into padding).
objdump_addrs() {
	set -- "$1" $(nm -S "$1" | awk -v f="$2" '$4 == f { print $1, $2; exit }')
	[ $# -eq 3 ] || return 0
	objdump -d --no-show-raw-insn --start-address=$((0x$2)) \
		--stop-address=$((0x$2 + 0x$3)) "$1" |
		sed -n 's/^ *\([0-9a-f]*\):\t.*/\1/p'
}

# check_kernel BINARY KERNEL: the default function is KERNEL (or a gcc
# clone of it: triad.constprop.0), decoded exactly where objdump decodes.
check_kernel() {
	"$LOOPKIT" blocks "$1" >"$1.txt" || fail "$1: loopkit blocks failed"
	fn=$(awk 'NR == 1 { print $2 }' "$1.txt")
	case $fn in
	"$2" | "$2".*) ;;
	*) fail "$1: picked '$fn', not $2" ;;
	esac
	awk '/^  [0-9a-f]+:/ { sub(":", "", $1); print $1 }' "$1.txt" \
		>"$1.ours"
	objdump_addrs "$1" "$fn" >"$1.objdump"
	[ -s "$1.objdump" ] || fail "$1: objdump shows no $fn"
	diff -u "$1.objdump" "$1.ours" ||
		fail "$1: instruction addresses differ from objdump"
	# Every block starts at an instruction; every successor is a block.
	sed -n 's/^block [0-9]* \[0x\([0-9a-f]*\),.*/\1/p' "$1.txt" \
		>"$1.starts"
	[ -z "$(grep -vxFf "$1.objdump" "$1.starts")" ] ||
		fail "$1: a block starts inside an instruction"
	grep -q -- '-> .*exit' "$1.txt" || fail "$1: no block leaves"
	"$LOOPKIT" blocks "$1" --json >"$1.json"
	python3 - "$1.json" <<'PY' || fail "$1: bad JSON"
import json, sys
blocks = json.load(open(sys.argv[1]))
starts = {b["start"] for b in blocks}
for b in blocks:
    assert len(b["instructions"]) == len(b["intel"]) == len(b["addresses"])
    assert all(s in starts for s in b["successors"]), b
    assert int(b["start"], 16) < int(b["end"], 16)
PY
	echo "$1: $fn, $(wc -l <"$1.ours") instructions, $(wc -l <"$1.starts") blocks"
}

for k in triad dot; do
	gcc -O2 -I rt -o "$TMPD/$k" "examples/run/$k.c" "$rtlib" -lm
	check_kernel "$TMPD/$k" "$k"
	# AVX-512 where the machine has it (Capstone 4 failed on this code).
	if gcc -O3 -march=native -I rt -o "$TMPD/$k-native" \
		"examples/run/$k.c" "$rtlib" -lm 2>/dev/null; then
		check_kernel "$TMPD/$k-native" "$k"
	fi
done

# A runtime linked as a shared object: the markers are PLT entries.
gcc -shared -fPIC -O2 -I rt -D_GNU_SOURCE -o "$TMPD/liblkrt.so" rt/*.c -lm
gcc -O2 -I rt -o "$TMPD/triad-so" examples/run/triad.c -L"$TMPD" -llkrt -lm
check_kernel "$TMPD/triad-so" triad

# An inlined kernel: the function holding the markers, with a note.
cat >"$TMPD/inl.c" <<'C'
#include <lkrt.h>
static volatile double s = 1.0;
int main(int argc, char **argv)
{
	lk_init(argc, argv);
	LK_MEASURE_NAMED("inl", s = s * 1.5);
	return lk_finish();
}
C
gcc -O2 -I rt -o "$TMPD/inl" "$TMPD/inl.c" "$rtlib" -lm
"$LOOPKIT" blocks "$TMPD/inl" >"$TMPD/inl.txt" 2>"$TMPD/inl.err" ||
	fail "inlined kernel: loopkit blocks failed"
grep -q '^function main ' "$TMPD/inl.txt" || fail "inlined: not main"
grep -q 'inlined' "$TMPD/inl.err" || fail "inlined: no note"

# Errors: one line, exit 2.
expect_error() {
	want=$1; shift
	rc=0
	"$LOOPKIT" blocks "$@" >/dev/null 2>"$TMPD/err" || rc=$?
	cat "$TMPD/err"
	[ $rc -eq 2 ] || fail "blocks $*: exit $rc, not 2"
	grep -q "^loopkit: error: .*$want" "$TMPD/err" ||
		fail "blocks $*: no '$want' in the message"
}
expect_error "not an x86-64 ELF" "$TMPD/missing"
expect_error "not an x86-64 ELF" tests/data/blocks/loop.s
expect_error "no function 'nope'.*inlined.*its functions: .*main" "$TMPD/triad" --function nope
printf 'int main(void) { return 0; }\n' >"$TMPD/plain.c"
gcc -O2 -o "$TMPD/plain" "$TMPD/plain.c"
expect_error "no lk_roi_begin.*--function" "$TMPD/plain"
"$LOOPKIT" blocks "$TMPD/plain" --function main >/dev/null ||
	fail "--function main of a plain binary"
# Stripped, it has no symbols to find main by, and the message says why.
strip -o "$TMPD/stripped" "$TMPD/plain"
expect_error "no function 'main': the binary is stripped" \
	"$TMPD/stripped" --function main
