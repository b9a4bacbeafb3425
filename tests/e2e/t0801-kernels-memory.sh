# The kernel suite is memory-safe at MINI: every kernel and user example
# built with AddressSanitizer and UndefinedBehaviorSanitizer (arrays are
# allocated at their exact size in --checksum mode, and -fsanitize=bounds
# checks every inner subscript against its declared extent) runs one call
# clean and gives the same checksum as a plain build; a few run under
# valgrind memcheck too. A seeded overrun proves the check can fail.
# e2e: shares the machine
. tests/e2e/lib.sh
cd "$TMPD"
RTLIB=$(dirname "$LOOPKIT")/lib/liblkrt.a
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all"
echo 'int main(void) { return 0; }' >probe.c
gcc $SAN -o probe probe.c 2>/dev/null && ./probe ||
	skip "gcc cannot build with AddressSanitizer here"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1

cat >build.sh <<'EOF'
f=$1 extra=$2
b=$(basename "$f" .c)
gcc -O1 -g -fno-omit-frame-pointer $SAN $extra -ffp-contract=off \
	-DMINI_DATASET -I "$SRC/rt" -o "$b.san" "$f" "$RTLIB" -lm \
	2>"$b.err" || exit 0
gcc -O2 $extra -ffp-contract=off -DMINI_DATASET -I "$SRC/rt" -o "$b.plain" \
	"$f" "$RTLIB" -lm 2>>"$b.err" || exit 0
./"$b.san" --checksum >"$b.san.sum" 2>>"$b.err" || exit 0
./"$b.plain" --checksum >"$b.plain.sum" 2>>"$b.err" || exit 0
touch "$b.ok"
EOF
export SRC RTLIB SAN
{
	for f in "$SRC"/kernels/*.c; do echo "$f ''"; done
	for f in "$SRC"/examples/gen/*.c; do echo "$f -Wno-unknown-pragmas"; done
} | xargs -P 2 -L 1 sh build.sh
for f in "$SRC"/kernels/*.c "$SRC"/examples/gen/*.c; do
	b=$(basename "$f" .c)
	[ -f $b.ok ] || { cat $b.err >&2; fail "$b: sanitised run"; }
	cmp -s $b.san.sum $b.plain.sum || fail "$b: sanitised checksum differs"
done

# The sanitisers do catch an overrun in this setting: one past the end of
# the last row, through the kernel's own parameter types.
sed 's/C\[i\]\[j\] \*= beta;/C[i][j] *= beta; C[ni][0] = 0.0;/' \
	"$SRC/kernels/gemm.c" >overrun.c
grep -q 'C\[ni\]\[0\]' overrun.c || fail "seeding the overrun"
gcc -O1 -g $SAN -DMINI_DATASET -I "$SRC/kernels" -I "$SRC/rt" -o overrun \
	overrun.c "$RTLIB" -lm
./overrun --checksum >out 2>err && fail "an overrun passes the sanitisers"
grep -q 'heap-buffer-overflow' err || fail "ASan names the overrun: $(head -3 err)"

# valgrind memcheck on kernels with triangular, decreasing and guarded
# loops (the plain -O2 builds: no AVX-512 without -march).
if command -v valgrind >/dev/null; then
	for k in nussinov ludcmp adi symm; do
		valgrind -q --error-exitcode=99 --leak-check=full \
			--errors-for-leak-kinds=definite ./$k.plain --checksum \
			>$k.vg 2>$k.vg.err || { cat $k.vg.err >&2; fail "$k: memcheck"; }
		cmp -s $k.vg $k.plain.sum || fail "$k: checksum under valgrind"
	done
	gcc -O1 -g -DMINI_DATASET -I "$SRC/kernels" -I "$SRC/rt" -o overrun.vg \
		overrun.c "$RTLIB" -lm
	valgrind -q --error-exitcode=99 ./overrun.vg --checksum >out 2>err &&
		fail "an overrun passes memcheck"
	grep -q 'Invalid write' err || fail "memcheck names the overrun"
fi
true
