# The MDL seed set in share/mdl/seeds: every seed is canonical text
# (mdl fmt --check), no two share a canonical body, and the set has the
# composition of the database, counted from the seeds' content (each
# says its kind in Meta:, and its body is checked against it): 6
# one-stream, 30 load/store combinations (L >= 1, S <= 4, L + S <= 8, one
# 8-byte element per stream, stride 8), 10 synthetic arithmetic (the
# notes' grid, flat), 10 kernel-like (with arithmetic), and loopkit's
# 6 far-stream seeds (a load stream of stride 704 with unit-stride
# ones). seed:NAME finds a seed through the
# compiled-in share path, and LOOPKIT_SHARE_DIR overrides it.
# e2e: shares the machine
. tests/e2e/lib.sh
seeds="$SRC/share/mdl/seeds"
cd "$TMPD"
"$LOOPKIT" mdl fmt --check "$seeds"/*.mdl >list ||
	fail "not canonical: $(cat list)"
for f in "$seeds"/*.mdl; do
	"$LOOPKIT" mdl fmt --json "$f" >"$(basename "$f" .mdl).json"
done
python3 - *.json <<'PY' || fail "seed composition"
import json, sys
kinds = {}
bodies = {}
arith = set()
combos = set()
for path in sys.argv[1:]:
    d = json.load(open(path))
    loop = d["body"]
    while not loop["ukernels"]:
        assert len(loop["loops"]) == 1, path
        loop = loop["loops"][0]
    uks = loop["ukernels"]
    assert len(uks) == 1, path
    u = uks[0]
    acc = u["in"] + u["out"]
    flows = {a["flow"] for a in acc}
    key = json.dumps(d["body"], sort_keys=True)
    body = json.dumps([[(a["stride"], a["offset"], a["size"]) for a in u["in"]],
                       [(a["stride"], a["offset"], a["size"]) for a in u["out"]],
                       u["add"], u["mul"], len(flows)])
    assert body not in bodies, (path, bodies.get(body))
    bodies[body] = path
    one_each = (len(flows) == len(acc) and
                all(a["stride"] == 8 and a["offset"] == 0 and a["size"] == 8
                    for a in acc))
    L, S = len(u["in"]), len(u["out"])
    ops = u["add"] + u["mul"]
    # Each seed says its kind (Meta: kind); its body must bear it out.
    k = d["meta"]["kind"]
    if k == "one-stream":
        assert ops == 0 and len(flows) == 1, path
        assert all(a["size"] == 16 for a in acc), path
    elif k == "multi-stream":
        assert ops == 0 and one_each, path
        assert L >= 1 and S <= 4 and L + S <= 8, path
        combos.add((L, S))
    elif k == "arithmetic":
        assert ops > 0 and one_each and loop is d["body"], path
        arith.add("L%dS%dA%dM%d" % (L, S, u["add"], u["mul"]))
    elif k == "far-stream":
        far = [a for a in acc if a["stride"] >= 64]
        assert ops == 0 and 1 <= len(far) == len({a["flow"] for a in far}), path
        assert all(a["stride"] == 8 for a in acc if a not in far), path
    else:
        assert k == "kernel" and ops > 0, path
    kinds[k] = kinds.get(k, 0) + 1
assert len(sys.argv) - 1 == 62, len(sys.argv) - 1
assert kinds == {"one-stream": 6, "multi-stream": 30, "arithmetic": 10,
                 "kernel": 10, "far-stream": 6}, kinds
assert len(combos) == 30
assert arith == {"L2S1A1M1", "L1S0A1M1", "L1S1A4M4", "L1S1A8M8", "L3S1A2M1",
                 "L2S0A4M4", "L1S1A16M0", "L4S1A4M2", "L2S2A2M4",
                 "L1S1A2M2"}, arith
PY
# seed:NAME through the compiled-in path, and through the override.
"$LOOPKIT" mdl concretize seed:L2S1 --isa scalar --bytes 4096 >a.c
grep -q '^/\* loopkit-mdl: .*seeds/L2S1.mdl isa=scalar .*streams=3 ' a.c ||
	fail "seed:L2S1: $(head -1 a.c)"
mkdir -p alt/mdl/seeds
cp "$seeds/L.mdl" alt/mdl/seeds/mine.mdl
LOOPKIT_SHARE_DIR=$TMPD/alt "$LOOPKIT" mdl concretize seed:mine --isa sse \
	--bytes 4096 >b.c || fail "LOOPKIT_SHARE_DIR"
grep -q "alt/mdl/seeds/mine.mdl" b.c || fail "override: $(head -1 b.c)"
set +e
"$LOOPKIT" mdl concretize seed:nosuch 2>err; rc=$?
"$LOOPKIT" mdl predict seed:nosuch 2>err2; rc2=$?
set -e
# One line that names the seeds there are.
n=$(ls "$seeds"/*.mdl | wc -l)
for e in err err2; do
	[ "$(wc -l <$e)" = 1 ] && grep -q "^loopkit: error: seed:nosuch: no \
such seed; the $n in .*/mdl/seeds: F1 .* L1S0 .* stencil-3d-7pt$" $e ||
		fail "unknown seed: $(cat $e)"
done
[ $rc = 2 ] && [ $rc2 = 2 ] || fail "unknown seed: exit $rc, $rc2"
echo ok
