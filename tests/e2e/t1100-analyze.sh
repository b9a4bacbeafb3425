# loopkit analyze --csv on tables with a known structure: the root split,
# accuracy bounds, KDE categories cut between the modes, bad inputs as
# one file:line error (exit 2) with nothing written, reruns that do
# nothing, and, when Debian's scikit-learn is installed, the tree's and
# the forest's accuracy and MDI against it.
# e2e: shares the machine
. tests/e2e/lib.sh
cd "$TMPD"
python3 "$E2E_DIR/analyze-tables.py" . 1000
an() { "$LOOPKIT" analyze --split-column split --json "$@"; }
# field FILE EXPR: a Python expression over the JSON d.
field() { python3 -c "import json,sys; d=json.load(open('$1')); print($2)"; }

# XOR with noise features: no single split gains (any root will do, as
# in scikit-learn), but the tree recovers it and the forest ranks a, b.
an --csv xor.csv --target cls --categories step:-0.5:1 >xor.json
num_ok "$(field xor.json 'd["tree"]["accuracy"]') > 0.75" ||
	fail "xor accuracy $(field xor.json 'd["tree"]["accuracy"]')"
num_ok "$(field xor.json 'd["forest"]["importance"]["a"] + d["forest"]["importance"]["b"]') > 0.5" ||
	fail "xor MDI of a and b"

# A three-class rule on x1 then x2, 10 % flipped labels.
an --csv multi.csv --target cls --max-depth 3 >multi.json
[ "$(field multi.json 'd["tree"]["root"]["feature"]')" = x1 ] ||
	fail "multi root: $(field multi.json 'd["tree"]["root"]')"
num_ok "$(field multi.json 'd["tree"]["accuracy"]') > 0.8" || fail "multi accuracy"
[ "$(field multi.json 'd["tree"]["leaves"] <= 8 and d["tree"]["depth"] <= 3')" = True ] ||
	fail "max-depth 3 not respected"

# Throughput: KDE categories of ipc, explained by N_FMA, vec and arch.
an --csv throughput.csv --target ipc --categories kde >tp.json
[ "$(field tp.json 'len(d["categories"]["list"]) >= 3')" = True ] ||
	fail "throughput categories: $(field tp.json 'd["categories"]["cuts"]')"
case $(field tp.json 'd["tree"]["root"]["feature"]') in
N_FMA|vec|arch) ;; *) fail "throughput root";; esac
num_ok "$(field tp.json 'd["tree"]["accuracy"]') > 0.9" || fail "throughput accuracy"
[ "$(field tp.json 'max(d["forest"]["importance"], key=d["forest"]["importance"].get) in ("N_FMA", "vec", "arch")')" = True ] ||
	fail "throughput MDI"

# One-column sets with 1, 2 and 3 modes: that many categories, cut
# between the modes (100, 200, 400), centroids inside their categories.
for k in 1 2 3; do
	an --csv modes$k.csv --target v --features k --categories kde >m$k.json
	[ "$(field m$k.json 'len(d["categories"]["list"])')" = $k ] ||
		fail "modes$k: $(field m$k.json 'd["categories"]["cuts"]')"
	[ "$(field m$k.json 'all(c["lo"] <= c["centroid"] <= c["hi"] for c in d["categories"]["list"])')" = True ] ||
		fail "modes$k: a centroid outside its category"
done
[ "$(field m3.json '[120 < d["categories"]["cuts"][0] < 180, 220 < d["categories"]["cuts"][1] < 380]')" = "[True, True]" ] ||
	fail "modes3 cuts: $(field m3.json 'd["categories"]["cuts"]')"
# ISJ is about the per-mode optimum (smaller than Silverman's on
# multimodal data); KDEpy's variant about half of Botev's.
an --csv modes3.csv --target v --features k --categories kde --bandwidth isj >isj.json
an --csv modes3.csv --target v --features k --categories kde --bandwidth isj-kdepy >isjk.json
b=$(field isj.json 'd["categories"]["bandwidth"]')
bk=$(field isjk.json 'd["categories"]["bandwidth"]')
bs=$(field m3.json 'd["categories"]["bandwidth"]')
num_ok "$b > 1.5 && $b < 4 && $b < $bs" || fail "isj bandwidth $b (silverman $bs)"
num_ok "$bk / $b > 0.35 && $bk / $b < 0.65" || fail "isj-kdepy $bk vs isj $b"

# Regression when the target stays numeric; a derived column; a filter.
an --csv throughput.csv --target ipc --derive 'w=vec/128' --features N_FMA,w,arch >reg.json
[ "$(field reg.json 'd["task"]')" = regression ] || fail "not a regression"
num_ok "$(field reg.json 'd["tree"]["r2"]') > 0.9" || fail "regression R^2"
an --csv multi.csv --target cls --where x1:ge:3 >f.json
[ "$(field f.json 'd["filtered"] > 0 and d["tree"]["root"]["feature"] == "x2"')" = True ] ||
	fail "--where x1:ge:3"
# A single-class training set gives a one-leaf tree; stdin works.
grep -v ',C,\|,B,' multi.csv | "$LOOPKIT" analyze --csv - --target cls \
	--split-column split --json >one.json
[ "$(field one.json 'd["tree"]["leaves"]')" = 1 ] || fail "one class: not one leaf"

# Outputs, and a rerun that does nothing.
"$LOOPKIT" analyze --csv xor.csv --target cls --categories step:-0.5:1 \
	--split-column split -o out >/dev/null
for f in processed.csv tree.txt tree.dot model.json importance.csv \
	confusion.csv categories.csv summary.json; do
	[ -s out/$f ] || fail "out/$f missing"
done
grep -q '^|--- [a-f] <= 0\.' out/tree.txt || fail "tree.txt: $(head -3 out/tree.txt)"

# A split on a categorical column names the labels of each side (codes
# are the sorted labels' indices: clang 0, gcc 1, icx 2).
{
	echo compiler,cycles
	for i in 1 2 3 4 5 6; do
		echo gcc,100; echo clang,200; echo icx,300
	done
} >cat.csv
"$LOOPKIT" analyze --csv cat.csv --target cycles --categories none \
	--forest 0 --knn 0 --test 0.5 -o cat >/dev/null ||
	fail "categorical analysis"
grep -qx '|--- compiler <= 1.50 (clang, gcc)' cat/tree.txt &&
	grep -qx '|--- compiler >  1.50 (icx)' cat/tree.txt ||
	fail "categorical split: $(cat cat/tree.txt)"
touch -d '2001-01-01' out/*
"$LOOPKIT" analyze --csv xor.csv --target cls --categories step:-0.5:1 \
	--split-column split -o out 2>err >/dev/null
grep -q 'up to date' err || fail "rerun: $(cat err)"
[ -z "$(find out -type f -newermt 2002-01-01)" ] || fail "the rerun wrote files"

# Bad inputs: one line naming file:line, exit 2, nothing written.
bad() {
	want=$1; shift
	set +e
	"$LOOPKIT" analyze -o badout "$@" >/dev/null 2>err; rc=$?
	set -e
	[ $rc = 2 ] || fail "$*: exit $rc: $(cat err)"
	[ "$(wc -l <err)" = 1 ] || fail "$*: $(cat err)"
	grep -q "^loopkit: error: $want" err || fail "$*: $(cat err)"
	[ ! -e badout ] || fail "$*: wrote badout"
}
printf 'a,b,c\n1,2,3\n4,5\n' >ragged.csv
bad 'ragged.csv:3: 2 fields' --csv ragged.csv --target c
bad 'xor.csv:2: --target: unknown column' --csv xor.csv --target nope
bad 'xor.csv:2: --features: unknown column' --csv xor.csv --target cls --features a,zz
bad 'multi.csv:[0-9]*: target .cls. is not numeric' --csv multi.csv --target cls --categories kde
bad 'multi.csv:2: no rows left' --csv multi.csv --target cls --where x1:gt:100
bad '--derive w: column 3: unknown column' --csv xor.csv --target cls --derive 'w=a+zz'
printf 'a,b\n"1,2\n' >quote.csv
bad 'quote.csv:2:' --csv quote.csv --target b

# Against scikit-learn (Debian's python3-sklearn), when installed.
/usr/bin/python3 -c 'import sklearn' 2>/dev/null ||
	skip "python3-sklearn not installed: scikit-learn comparison skipped"
cmp_sk() { # TABLE TARGET DEPTH FDEPTH OPTIONS...
	t=$1 target=$2 depth=$3 fdepth=$4; shift 4
	/usr/bin/python3 "$E2E_DIR/analyze-sklearn.py" $t.csv $target $depth $fdepth >$t.sk
	for seed in 0 1 2; do
		an --csv $t.csv --target $target --max-depth $depth \
			--forest-max-depth $fdepth --seed $seed "$@" >$t.$seed.json
		python3 - $t.sk $t.$seed.json <<'PY' || fail "$t seed $seed vs scikit-learn"
import json, sys
sk, lk = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
acc = lk["tree"]["accuracy"]
assert sk["tree_min"] - 0.01 <= acc <= sk["tree_max"] + 0.01, (acc, sk)
if len(set(sk["roots"])) == 1:
    assert lk["tree"]["root"]["feature"] == sk["roots"][0], (lk["tree"]["root"], sk["roots"])
assert abs(lk["forest"]["accuracy"] - sk["forest"]) <= 0.01, (lk["forest"]["accuracy"], sk["forest"])
for f, v in sk["mdi"].items():
    assert abs(lk["forest"]["importance"][f] - v) <= 0.03, (f, lk["forest"]["importance"][f], v)
PY
	done
}
# Class labels as scikit-learn sees them: strings.
sed 's/,\([01]\),\(train\|test\)$/,c\1,\2/' xor.csv >xors.csv
cmp_sk xors cls 0 0
cmp_sk multi cls 3 10
# Silverman's bandwidth equals the formula (KDEpy's rule) to 1e-12.
/usr/bin/python3 "$E2E_DIR/analyze-sklearn.py" modes3.csv v 2 2 >m3.sk
python3 - m3.sk m3.json <<'PY' || fail "silverman"
import json, sys
sk, lk = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
b = lk["categories"]["bandwidth"]
assert abs(b - sk["silverman"]) <= 1e-12 * sk["silverman"], (b, sk["silverman"])
PY
