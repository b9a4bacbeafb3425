# Every kernel of the suite through loopkit gen -c: the original and one
# tiling each (skewed first, so that stencils tile too), generated,
# verified and recorded for gcc and clang; a rerun with nothing changed
# does nothing, quickly.
# e2e: shares the machine
. tests/e2e/lib.sh
command -v clang >/dev/null || skip "no clang"
cd "$TMPD"
{
	echo "name: suite"
	echo "sources:"
	for k in "$SRC"/kernels/*.c; do echo "  - $k"; done
	echo "compilers: [gcc, clang]"
	echo "flags: {O2: -O2}"
	echo "defines: {MINI_DATASET: ['']}"
	echo "gen:"
	echo "  transformations: [original, 'skew+tile,sizes=16']"
} >suite.yaml
kernels=$(ls "$SRC"/kernels/*.c | wc -l)
"$LOOPKIT" gen -q -c suite.yaml >units || { cat units; fail "gen -c"; }
[ "$(wc -l <units)" -eq $((2 * kernels)) ] || { cat units; fail "units"; }
if grep -v ' generated ' units; then fail "every unit generated"; fi
for k in "$SRC"/kernels/*.c; do
	name=$(basename "$k" .c)
	for t in original skew+tile,sizes=16; do
		n=$(sqlite3 loopkit.d/store.db "select count(*) from variants v
			join variant_params k on k.variant_id = v.id and
			k.name = 'kernel' and k.value = '$name'
			join variant_params t on t.variant_id = v.id and
			t.name = 'transformation' and t.value = '$t'")
		[ "$n" -eq 2 ] || fail "$name $t: 2 variants (gcc, clang), got $n"
	done
done
before=$(find loopkit.d -type f | wc -l)
start=$(date +%s.%N)
"$LOOPKIT" gen -q -c suite.yaml >units2 || fail "gen -c again"
secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
# A rerun opens the store and hashes the sources: no parse, no compile.
num_ok "$secs <= 10" || fail "rerun took ${secs}s"
[ "$(grep -c stored-earlier units2)" -eq $((2 * kernels)) ] ||
	{ cat units2; fail "rerun redid units"; }
[ "$(find loopkit.d -type f | wc -l)" -eq "$before" ] ||
	fail "rerun wrote files"
exit 0
