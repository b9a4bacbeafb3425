# loopkit run measures kernels of the suite and a user example as they
# are, each region named after its kernel; the size macros reach the
# kernel (a bigger dataset takes longer: ordering, not timing).
. tests/e2e/lib.sh
cd "$TMPD"
run() {
	"$LOOPKIT" run -q --json -o "$TMPD/ld" --method processes=1 \
		--method repetitions=3 -m tsc "$@"
}
for k in gemm seidel-2d nussinov; do
	run -D MINI_DATASET "$SRC/kernels/$k.c" >$k.json ||
		fail "$k: loopkit run"
done
run -D MINI_DATASET "$SRC/examples/gen/conv-2d.c" >conv-2d.json ||
	fail "conv-2d: loopkit run"
run "$SRC/kernels/jacobi-2d.c" -D MINI_DATASET >mini.json
run "$SRC/kernels/jacobi-2d.c" -D SMALL_DATASET >small.json
python3 - gemm seidel-2d nussinov conv-2d <<'PY'
import json, sys
for name in sys.argv[1:]:
    v = json.load(open(name + ".json"))
    assert len(v) == 1 and v[0]["status"] == "ok", (name, v)
    r = v[0]["results"]
    assert [x["region"] for x in r] == [name], (name, r)
    assert r[0]["metric"] == "tsc" and r[0]["value"] > 0, r
mini = json.load(open("mini.json"))[0]["results"][0]["value"]
small = json.load(open("small.json"))[0]["results"][0]["value"]
# SMALL does about 20 times the work of MINI (40 x 88^2 against 20 x 28^2)
assert small > 4 * mini, (mini, small)
PY
