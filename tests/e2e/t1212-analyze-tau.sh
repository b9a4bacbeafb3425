# loopkit analyze --tau-by: Kendall's tau-b of each numeric feature with
# a numeric target, over all rows and within each value of a column,
# equal to a brute-force tau-b over the pairs (ties included); in the
# human summary, summary.json and the page; null for a categorical
# target; an unknown column or too many groups one file:line error,
# exit 2, nothing written.
# e2e: shares the machine
. tests/e2e/lib.sh
command -v python3 >/dev/null || skip "python3 not installed"
cd "$TMPD"
# y rises with n at width 128, falls at 256 (with ties in n and in y),
# and does not depend on noise; width is also a feature.
python3 - <<'PY'
import random
r = random.Random(7)
with open("t.csv", "w") as f:
    f.write("n,width,noise,kind,y\n")
    for i in range(80):
        n = 1 + i % 8
        w = (128, 256)[i // 40]
        y = (10 * n if w == 128 else 100 - 5 * n) + r.choice((0, 0, 1))
        f.write("%d,%d,%d,%s,%d\n" % (n, w, r.randrange(1000),
                                    "ab"[i % 2], y))
PY
"$LOOPKIT" analyze --csv t.csv --target y --categories none --tau-by width \
	--forest 0 --knn 0 >text.txt 2>err || fail "text: $(cat err)"
grep -q "^Kendall's tau-b with y:" text.txt || fail "no tau: $(cat text.txt)"
grep -Eq '^  feature +all +width=128 +width=256$' text.txt ||
	fail "tau header: $(cat text.txt)"
grep -Eq '^  width +[0-9.-]+ +- +-$' text.txt ||
	fail "width within its own groups: $(cat text.txt)"
"$LOOPKIT" analyze --csv t.csv --target y --categories none --tau-by width \
	--forest 0 --knn 0 --json -o out >s.json 2>err || fail "json: $(cat err)"
python3 - s.json t.csv <<'PY' || fail "tau: see above"
import csv, json, sys
from lkstats import taub
k = json.load(open(sys.argv[1]))["kendall"]
rows = list(csv.DictReader(open(sys.argv[2])))
col = lambda name, rs: [float(r[name]) for r in rs]
assert k["by"] == "width", k
assert k["groups"] == [{"value": "128", "rows": 40},
                       {"value": "256", "rows": 40}], k["groups"]
assert set(k["features"]) == {"n", "width", "noise"}, k["features"]
for f in ("n", "noise"):
    want = [taub(col(f, rows), col("y", rows))]
    for w in ("128", "256"):
        g = [r for r in rows if r["width"] == w]
        want.append(taub(col(f, g), col("y", g)))
    got = [k["features"][f]["all"]] + k["features"][f]["within"]
    print(f, got)
    assert all(abs(a - b) < 1e-9 for a, b in zip(got, want)), (got, want)
n = k["features"]["n"]["within"]
assert n[0] > 0.9 and n[1] < -0.9, n
assert k["features"]["width"]["within"] == [None, None]
PY
grep -q 'Rank correlation with the target' out/analysis.html ||
	fail "no tau table on the page"
grep -q 'width = 256 (40 rows)' out/analysis.html || fail "no group column"

# A categorical target has no order: no tau.
"$LOOPKIT" analyze --csv t.csv --target kind --features n,noise --json \
	--forest 0 --knn 0 >cat.json || fail "categorical target"
python3 -c "import json; assert json.load(open('cat.json'))['kendall'] is None" ||
	fail "tau of a categorical target"

# Bad columns: one file:line error, exit 2, nothing written.
bad() { # WHAT EXPECTED-MESSAGE ARGS...
	what=$1 want=$2
	shift 2
	"$LOOPKIT" analyze --csv t.csv --target y -o bad "$@" >out.txt 2>err &&
		fail "$what accepted"
	[ $? -eq 2 ] || fail "$what: exit not 2"
	[ "$(wc -l <err)" -eq 1 ] && grep -q "$want" err || fail "$what: $(cat err)"
	[ ! -e bad ] || fail "$what: something written"
}
bad "unknown column" \
	"^loopkit: error: t.csv:1: --tau-by: unknown column 'widht'" \
	--tau-by widht --categories none
bad "too many groups" \
	"^loopkit: error: t.csv:1: --tau-by: 'noise' has [0-9]* values, at most 64" \
	--tau-by noise --categories none
