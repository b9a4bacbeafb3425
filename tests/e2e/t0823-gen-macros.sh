# Macros in statements (tests/data/gen/macros.c): a function-like macro
# ending a statement, a macro naming another, a statement that is a
# macro call, a macro naming the iterator, a pasted literal. Every
# output compiles and computes what the input does (gen verifies the
# checksums), with --no-verify too, and the micro-kernel builds alone.
# e2e: shares the machine
. tests/e2e/lib.sh
cd "$TMPD"
d=$SRC/tests/data/gen
"$LOOPKIT" gen -q "$d/macros.c" -t original -t isl+tile,sizes=4x4 \
	-t original+kernelify -o out >/dev/null 2>err || { cat err; fail "gen"; }
[ "$(ls out/macros.*.c | wc -l)" -eq 3 ] || fail "one file per chain"
# No statement is cut or lost: five assignments in the region, every
# parenthesis closed.
region() { sed -n '/^#pragma scop/,/^#pragma endscop/p' "$1" | grep -v '^#'; }
[ "$(region out/macros.0.c | grep -c ';$')" -eq 5 ] ||
	{ region out/macros.0.c; fail "five statements"; }
region out/macros.0.c | grep ';$' | while read -r line; do
	o=$(printf '%s' "$line" | tr -cd '(' | wc -c)
	c=$(printf '%s' "$line" | tr -cd ')' | wc -c)
	[ "$o" -eq "$c" ] || fail "unbalanced: $line"
done
# Without verification, the same: compile each file and compare.
cc_sum() { # FILE DEFINE
	gcc -O1 -ffp-contract=off -w -D"$2" -I"$d" -I"$SRC/rt" -o bin "$1" \
		"$LOOPKIT_RT_LIB" -lm || fail "$1 does not compile"
	./bin --checksum
}
LOOPKIT_RT_LIB=$(dirname "$LOOPKIT")/lib/liblkrt.a
"$LOOPKIT" gen -q --no-verify "$d/macros.c" -t original \
	-t isl+tile,sizes=4x4 -t original+kernelify -o nv >/dev/null 2>err ||
	{ cat err; fail "gen --no-verify"; }
ref=$(cc_sum "$d/macros.c" MINI_DATASET)
[ "$(cc_sum nv/macros.0.c MINI_DATASET)" = "$ref" ] || fail "original differs"
[ "$(cc_sum nv/macros.1.c MINI_DATASET)" = "$ref" ] || fail "tiled differs"
[ -n "$(cc_sum nv/macros.2.c SMALL_DATASET)" ] || fail "micro-kernel"
# The micro-kernel has no macro of the input left.
! grep -E 'SCALAR_VAL|HALF|NJM|ZERO|AT\(' nv/macros.2.c ||
	fail "macros copied into the micro-kernel"
exit 0
