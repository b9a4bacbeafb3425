# Each kernel of the suite computes its mathematics: after one call at MINI
# its outputs match the same quantity computed another way
# (tests/data/kernels/verify.c: textbook formulas, other loop orders,
# residuals of the solvers, Bellman-Ford for floyd-warshall, the impulse
# response for deriche, Gaussian elimination for adi). fdtd-2d and
# seidel-2d have no formulation other than their own loops and are left
# to the checksum tests. A seeded error must fail.
# e2e: shares the machine
. tests/e2e/lib.sh
cd "$TMPD"
RTLIB=$(dirname "$LOOPKIT")/lib/liblkrt.a
V="$SRC/tests/data/kernels/verify.c"
cat >verify.sh <<'EOF'
f=$1 n=$(basename "$1" .c)
id=$(echo "$n" | tr - _)
gcc -O2 -Wall -Wextra -Werror -DMINI_DATASET -DV_$id -DKFILE="\"$f\"" \
	-I "$SRC/rt" -o "v-$n" "$V" "$RTLIB" -lm >"$n.out" 2>&1 &&
	./"v-$n" >>"$n.out" 2>&1
echo $? >"$n.rc"
EOF
export SRC RTLIB V
ls "$SRC"/kernels/*.c | grep -Ev '/(fdtd-2d|seidel-2d)\.c$' >list
[ "$(wc -l <list)" -eq 28 ] || fail "28 kernels to verify"
xargs -P 2 -L 1 sh verify.sh <list
while read -r f; do
	n=$(basename "$f" .c)
	cat "$n.out"
	[ "$(cat "$n.rc")" -eq 0 ] || fail "$n: $(tail -n 3 "$n.out")"
	grep -q "^ok $n " "$n.out" || fail "$n: no verdict"
done <list

# A symm that counts the diagonal twice, a trmm that reads the diagonal
# (written here beside a copy of kernels.h).
cp "$SRC/kernels/kernels.h" .
sed 's/for (k = 0; k < i; k++) {/for (k = 0; k <= i; k++) {/' \
	"$SRC/kernels/symm.c" >bad-symm.c
sed 's/for (k = i + 1; k < m; k++)/for (k = i; k < m; k++)/' \
	"$SRC/kernels/trmm.c" >bad-trmm.c
for k in symm trmm; do
	! cmp -s "$SRC/kernels/$k.c" bad-$k.c || fail "seeding the error in $k"
	gcc -O2 -DMINI_DATASET -DV_$k -DKFILE="\"$TMPD/bad-$k.c\"" \
		-I "$SRC/rt" -o bad-$k "$V" "$RTLIB" -lm
	./bad-$k >out && fail "a wrong $k passes: $(cat out)"
	grep -q "^FAIL $k " out || fail "$k: verdict $(cat out)"
done
