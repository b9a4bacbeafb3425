#!/bin/sh
# loopkit analyze beside scikit-learn on the same table, one thread each:
# a decision tree (depth 6) fit and scored, a forest of 100 trees (depth
# 10) fit and scored, the forest's permutation importance (10 repeats) on
# top of that, and end to end (CSV to outputs: tree, forest, permutation
# importance, k-NN, files; 'all' without plots, as the Python script
# draws none; 'plots' with loopkit's gnuplot plots and dot's tree). Each
# figure is the median of 3 runs of the whole command (Python's imports
# included) in CPU seconds (user + sys, children included: steadier than
# wall time on a shared machine; both sides run one thread).
#   analyze.sh LOOPKIT [ROWS]
set -eu
loopkit=$1 rows=${2:-10000}
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
if ! $py -c 'import sklearn' 2>/dev/null; then
	echo "analyze: skipped: python3-sklearn not installed"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# noise.csv: 10 features, a 4-class rule on 3 of them, 5 % flipped.
$py - "$tmp/noise.csv" "$rows" <<'PY'
import random, sys
rng = random.Random(1)
with open(sys.argv[1], "w") as f:
    f.write(",".join(f"x{i}" for i in range(10)) + ",cls,split\n")
    for _ in range(int(sys.argv[2])):
        x = [round(rng.random(), 5) for _ in range(10)]
        c = int(x[0] > 0.5) + 2 * int(x[1] + x[2] > 1)
        if rng.random() < 0.05:
            c = rng.randrange(4)
        f.write(",".join(map(str, x)) + f",k{c}," + ("test" if rng.random() < 0.2 else "train") + "\n")
PY
cat >"$tmp/sk.py" <<'PY'
import sys, time, csv, json, os
t0 = time.time()
import numpy as np
from sklearn.tree import DecisionTreeClassifier, export_text
from sklearn.ensemble import RandomForestClassifier
from sklearn.neighbors import KNeighborsClassifier
from sklearn.inspection import permutation_importance
path, mode, out = sys.argv[1:4]
rows = list(csv.DictReader(open(path)))
feats = [k for k in rows[0] if k not in ("cls", "split")]
X = np.array([[float(r[f]) for f in feats] for r in rows])
y = np.array([r["cls"] for r in rows]); te = np.array([r["split"] == "test" for r in rows])
if mode in ("tree", "all"):
    t = DecisionTreeClassifier(max_depth=6 if mode == "tree" else None, random_state=0).fit(X[~te], y[~te])
    acc = t.score(X[te], y[te])
if mode in ("forest", "perm", "all"):
    f = RandomForestClassifier(100, max_depth=None if mode == "all" else 10, random_state=0, n_jobs=1).fit(X[~te], y[~te])
    acc = f.score(X[te], y[te])
if mode in ("perm", "all"):
    p = permutation_importance(f, X[te], y[te], n_repeats=10, random_state=42, n_jobs=1)
if mode == "all":
    k = KNeighborsClassifier(10).fit(X[~te], y[~te]).score(X[te], y[te])
    os.makedirs(out, exist_ok=True)
    open(f"{out}/tree.txt", "w").write(export_text(t, feature_names=feats))
    json.dump({"tree": t.score(X[te], y[te]), "forest": acc, "knn": k,
               "mdi": f.feature_importances_.tolist(),
               "permutation": p.importances_mean.tolist()},
              open(f"{out}/summary.json", "w"))
PY
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
median3() { # COMMAND...: median CPU seconds (user + sys) of 3 runs
	for i in 1 2 3; do
		/usr/bin/time -f '%U %S' -o "$tmp/time" "$@" >/dev/null 2>&1
		awk '{ print $1 + $2 }' "$tmp/time"
	done | sort -n | sed -n 2p
}
lk="$loopkit analyze --csv $tmp/noise.csv --target cls --split-column split -j 1"
printf '%-28s %10s %10s %8s\n' "analyze ($rows rows)" loopkit sklearn ratio
for mode in tree forest perm all plots; do
	case $mode in
	tree) l="$lk --max-depth 6 --forest 0 --knn 0";;
	forest) l="$lk --forest 100 --forest-max-depth 10 --knn 0 --permutation 0";;
	perm) l="$lk --forest 100 --forest-max-depth 10 --knn 0";;
	all) l="$lk -o $tmp/lk-out --no-plots";;
	plots) l="$lk -o $tmp/lk-out";;
	esac
	rm -rf "$tmp/lk-out"
	# shellcheck disable=SC2086
	a=$(median3 sh -c "rm -rf $tmp/lk-out; $l")
	b=$(median3 $py "$tmp/sk.py" "$tmp/noise.csv" \
		"$(echo $mode | sed s/plots/all/)" "$tmp/sk-out")
	printf '%-28s %9.3fs %9.3fs %7.1fx\n' "$mode" "$a" "$b" \
		"$(echo "$b / $a" | bc -l)"
done
