# A gen campaign of micro-kernels records each variant's facts, verifies
# by running (the checksum differs from the original's by design), and
# the step's parameters are checked (kernelify last, did-you-mean,
# ranges, l1). That every micro-kernel of the suite is memory-safe is
# t0880's (it generates them all once).
# e2e: shares the machine
. tests/e2e/lib.sh
cd "$TMPD"
# A campaign: variants carry the facts; verification only runs them.
cp "$SRC"/kernels/gemm.c "$SRC"/kernels/kernels.h .
cat >camp.yaml <<'YAML'
name: micro
sources: [gemm.c]
flags:
  O2: -O2
gen:
  transformations:
    - original+kernelify
    - isl+tile,sizes=32x32+kernelify,l1=8192,granule=32
YAML
"$LOOPKIT" gen -q -c camp.yaml >units || { cat units; fail "gen -c"; }
[ "$(grep -c generated units)" -eq 2 ] || { cat units; fail "2 units"; }
q() { sqlite3 loopkit.d/store.db "$1"; }
[ "$(q "select count(*) from variant_params where name =
	'working_set_bytes'")" -eq 2 ] || fail "working_set_bytes stored"
ws=$(q "select p.value from variant_params p join variant_params t on
	t.variant_id = p.variant_id where p.name = 'working_set_lines' and
	t.name = 'kernelify.l1'")
[ -n "$ws" ] && [ $((ws * 64)) -le 8192 ] ||
	fail "l1=8192: working set '$ws' lines"
trip=$(q "select p.value from variant_params p join variant_params t on
	t.variant_id = p.variant_id where p.name = 'kernel.trip' and
	t.name = 'kernelify.l1'")
# A column walk (tiled gemm's B[k][j], k inner): sized by its lines,
# shorter than 256 iterations.
[ $((trip % 32)) -eq 0 ] && [ "$trip" -ge 64 ] || fail "trip $trip"
for name in kernel.loop kernel.hotness kernel.size fixed.c0; do
	[ -n "$(q "select value from variant_params where name =
		'$name'")" ] || fail "$name stored"
done
[ "$(q "select value from variant_params where name = 'kernel.size'
	limit 1")" = small ] || fail "kernel.size"

# The step's parameters.
bad() {
	rc=0
	"$LOOPKIT" gen --no-verify "$SRC/kernels/gemm.c" --transform "$1" \
		>/dev/null 2>err || rc=$?
	[ $rc -eq 2 ] || fail "'$1': exit $rc, not 2"
	grep -q "$2" err || { cat err; fail "'$1': expected '$2'"; }
}
bad kernelify+tile 'kernelify can only be the last step'
bad original+kernelify,l2=4096 "unknown parameter 'l2'.*did you mean 'l1'"
bad original+kernelify,l1=512 "bad value '512' for l1"
bad original+kernelify,size=huge "bad value 'huge' for size"
bad original+kernelify,granule=0 "bad value '0' for granule"
bad original+kernelify,l1=1024 'even the smallest trip count'
"$LOOPKIT" gen -q "$SRC/kernels/gemm.c" \
	--transform original+kernelify,size=large >large.c ||
	fail "size=large"
grep -q '^ \* param kernel.size=large$' large.c || fail "size=large param"
exit 0
