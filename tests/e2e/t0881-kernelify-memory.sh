# Micro-kernels are memory-safe by construction (arrays sized from the
# accesses' images): every one of the suite's, as written and tiled,
# runs clean under AddressSanitizer+UBSan, a few under valgrind memcheck.
# A gen campaign records each variant's facts, verifies by running (the
# checksum differs from the original's by design), and the step's
# parameters are checked (kernelify last, did-you-mean, ranges, l1).
. tests/e2e/lib.sh
cd "$TMPD"
mkdir gen asan
# No sysfs: the default budget is half the 32 KiB fallback.
export LOOPKIT_SYSROOT="$TMPD/no-sysfs"
ls "$SRC"/kernels/*.c | grep -v heat-3d | xargs -P2 -I{} sh -c '"$0" gen \
	-q {} --transform original+kernelify \
	--transform isl+tile,sizes=64x64+kernelify -o gen 2>>gen.err ||
	echo "{}" >>gen.failed' "$LOOPKIT"
# heat-3d tiled by 64 has no window within 16 KiB of lines (t0880).
"$LOOPKIT" gen -q "$SRC"/kernels/heat-3d.c --transform \
	original+kernelify -o gen 2>>gen.err || echo heat-3d >>gen.failed
[ ! -s gen.failed ] || { cat gen.err; fail "gen: $(cat gen.failed)"; }
cat >asan.sh <<'SH'
f=$1 rt=$2 lib=$3
b=asan/$(basename "$f" .c)
gcc -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer -I"$rt" "$f" "$lib" -lm -o "$b" ||
	{ echo "$f: compile"; exit 0; }
ASAN_OPTIONS=detect_leaks=0 "$b" --checksum >"$b.out" 2>"$b.err" ||
	echo "$f: $(head -n 3 "$b.err")"
SH
lib="$(dirname "$LOOPKIT")/lib/liblkrt.a"
ls gen/*.c | xargs -P2 -I{} sh asan.sh {} "$SRC/rt" "$lib" >asan.bad
[ ! -s asan.bad ] || { cat asan.bad; fail "sanitizers"; }
[ "$(ls asan/*.out | wc -l)" -eq 59 ] || fail "59 sanitised runs"
if command -v valgrind >/dev/null; then
	for k in durbin.0 nussinov.1 heat_3d.0 deriche.0; do
		gcc -O2 -I"$SRC/rt" gen/$k.c "$lib" -lm -o vg.$k
		valgrind -q --error-exitcode=9 ./vg.$k --checksum >/dev/null ||
			fail "$k: valgrind memcheck"
	done
fi

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
