# A user's kernel (2-D convolution, not a test kernel) through the whole
# pipeline: loopkit gen -c stores verified variants, loopkit run -c
# builds and measures them, a rerun of gen does no work, --list plans.
. tests/e2e/lib.sh
cd "$TMPD"
cp "$SRC"/tests/data/gen/conv2d.c "$SRC"/tests/data/gen/checksum.h .
cat >camp.yaml <<'YAML'
name: conv
sources: [conv2d.c]
flags:
  O2: -O2
defines:
  MINI_DATASET: [""]
gen:
  transformations:
    - original
    - isl+tile,sizes=4x4
    - unroll-jam,factor=2+vectorize
    - interchange
YAML
"$LOOPKIT" gen -c camp.yaml --list >list
[ "$(grep -c planned list)" -eq 4 ] || { cat list; fail "--list plans 4"; }
if [ -d loopkit.d/objects ] && [ -n "$(ls -A loopkit.d/objects)" ]; then
	fail "--list generated something"
fi
"$LOOPKIT" gen -q -c camp.yaml >units || fail "gen -c"
[ "$(grep -c generated units)" -eq 4 ] || { cat units; fail "4 units"; }
n=$(sqlite3 loopkit.d/store.db "select count(*) from variants")
[ "$n" -eq 4 ] || fail "4 variants stored, got $n"
sqlite3 loopkit.d/store.db "select value from variant_params where
	name = 'transformation'" | grep -qx 'isl+tile,sizes=4x4' ||
	fail "transformation parameter stored"
sqlite3 loopkit.d/store.db "select value from variant_params where
	name = 'tile.sizes'" | grep -qx '4x4' || fail "step parameter stored"
# Nothing changed: nothing redone, no new object.
before=$(find loopkit.d/objects -type f | wc -l)
"$LOOPKIT" gen -q -c camp.yaml >units2 || fail "gen -c again"
[ "$(grep -c stored-earlier units2)" -eq 4 ] || { cat units2; fail "rerun"; }
[ "$(find loopkit.d/objects -type f | wc -l)" -eq "$before" ] ||
	fail "rerun wrote files"
# run -c measures the stored variants.
"$LOOPKIT" run -q -c camp.yaml -m tsc -r 3 -p 1 --warmup 1 >table ||
	{ cat table; fail "run -c"; }
runs=$(sqlite3 loopkit.d/store.db "select count(*) from runs where
	status = 'ok' or status = 'unstable'")
[ "$runs" -eq 4 ] || { cat table; fail "4 measured runs, got $runs"; }
n=$(sqlite3 loopkit.d/store.db "select count(*) from variants")
[ "$n" -eq 4 ] || fail "run added variants ($n)"
exit 0
