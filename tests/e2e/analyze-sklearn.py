#!/usr/bin/python3
"""scikit-learn's figures for loopkit analyze's comparison (t1100):

  analyze-sklearn.py FILE.csv TARGET MAX_DEPTH FOREST_DEPTH

Reads the table (the 'split' column chooses the test rows; categorical
columns label-encoded in sorted order, as loopkit does) and prints JSON:
tree accuracy min/max over random_state 0-9, the root feature of each,
forest (100 trees) accuracy and MDI means over random_state 0-4, and
KDEpy's silvermans_rule of the target when it is numeric.
"""
import csv
import json
import sys

import numpy as np
from sklearn.ensemble import RandomForestClassifier
from sklearn.tree import DecisionTreeClassifier


def silverman(x):
    n = len(x)
    if n == 1:
        return 1.0
    sigma = np.std(x, ddof=1)
    iqr = (np.percentile(x, 75) - np.percentile(x, 25)) / 1.3489795003921634
    sigma = min(sigma, iqr)
    if sigma > 0:
        return sigma * (n * 3 / 4.0) ** (-1 / 5)
    iqr = (np.percentile(x, 99) - np.percentile(x, 1)) / 4.6526957480816815
    return iqr * (n * 3 / 4.0) ** (-1 / 5) if iqr > 0 else 1.0


def encode(col):
    try:
        return [float(v) for v in col]
    except ValueError:
        labels = sorted(set(col))
        return [float(labels.index(v)) for v in col]


def main():
    path, target, depth, fdepth = sys.argv[1:5]
    rows = list(csv.DictReader(l for l in open(path) if not l.startswith("#")))
    feats = [k for k in rows[0] if k not in (target, "split")]
    X = np.array([encode([r[f] for r in rows]) for f in feats]).T
    y = np.array([r[target] for r in rows])
    test = np.array([r["split"] == "test" for r in rows])
    out = {"features": feats}
    try:
        out["silverman"] = silverman(np.array(y, dtype=float))
    except ValueError:
        pass
    d = int(depth) or None
    accs, roots = [], []
    for s in range(10):
        t = DecisionTreeClassifier(max_depth=d, random_state=s)
        t.fit(X[~test], y[~test])
        accs.append(t.score(X[test], y[test]))
        roots.append(feats[t.tree_.feature[0]])
    out["tree_min"], out["tree_max"], out["roots"] = min(accs), max(accs), roots
    fa, mdi = [], []
    for s in range(5):
        f = RandomForestClassifier(n_estimators=100, max_depth=int(fdepth) or None,
                                   random_state=s, n_jobs=1)
        f.fit(X[~test], y[~test])
        fa.append(f.score(X[test], y[test]))
        mdi.append(f.feature_importances_)
    out["forest"] = float(np.mean(fa))
    out["mdi"] = dict(zip(feats, np.mean(mdi, axis=0).tolist()))
    json.dump(out, sys.stdout)


main()
