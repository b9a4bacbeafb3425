# A user's kernel (2-D convolution, not a test kernel) through the whole
# pipeline: loopkit gen -c stores verified variants and their binaries,
# loopkit run -c measures them on those binaries, a rerun of gen does no
# work, --list plans, --no-build stores sources only.
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
b=$(sqlite3 loopkit.d/store.db "select count(*) from builds where ok = 1")
[ "$b" -eq 4 ] || fail "4 binaries built by gen -c, got $b"
for f in $(sqlite3 loopkit.d/store.db "select binary from builds"); do
	[ -x "loopkit.d/$f" ] || fail "binary $f"
done
# The builds' logs are there before any run.
"$LOOPKIT" export --opt-report >report || fail "export --opt-report"
[ "$(grep -c '^== ' report)" -eq 4 ] && ! grep -q 'not built' report ||
	{ cat report; fail "opt-report after gen -c"; }
# The analysis stages take gen's binaries before any run.
"$LOOPKIT" blocks -c camp.yaml >blocks 2>&1 || { cat blocks; fail "blocks -c"; }
grep -q "no binary" blocks && { cat blocks; fail "blocks -c found no binary"; }
[ "$(sqlite3 loopkit.d/store.db "select count(distinct binary_hash)
	from bb_functions")" -eq 4 ] || fail "blocks of 4 binaries after gen -c"
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
b=$(sqlite3 loopkit.d/store.db "select count(*) from builds")
[ "$b" -eq 4 ] || fail "run -c built again ($b builds)"
[ "$(sqlite3 loopkit.d/store.db "select count(distinct build_id) from
	runs")" -eq 4 ] || fail "runs on gen's binaries"
# --no-build: the variants, no binary.
"$LOOPKIT" gen -q -c camp.yaml -o nobuild --no-build >units3 ||
	fail "gen -c --no-build"
[ "$(sqlite3 nobuild/store.db "select count(*) from variants")" -eq 4 ] &&
[ "$(sqlite3 nobuild/store.db "select count(*) from builds")" -eq 0 ] ||
	fail "--no-build"
exit 0
