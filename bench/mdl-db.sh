#!/bin/sh
# MDL database builds: each ISA class built twice, in two stores, at L1,
# L2, L3 and RAM (the default exploration); prints each build's wall time
# (goal: <= 10 minutes a class on 2 cores) and, per level, how many seeds
# the two builds agree on within 3 % (goal: every seed at L1 and L2), the
# median and p90 of |b/a - 1|, and the seeds that differ most.
#
#   bench/mdl-db.sh [BUILD_DIR] [CLASS...]   (default: build, sse avx2)
# KEEP=1 keeps the work directory (its path is printed).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$here/build}" && pwd)
[ $# -gt 0 ] && shift
classes=${*:-sse avx2}
lk=$build/loopkit
work=$(mktemp -d /tmp/mdl-db.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
[ -n "${KEEP:-}" ] && echo "work: $work"
cd "$work"
echo "machine: $("$lk" env | sed -n "s/^cpu\.microarch  *//p")"
for c in $classes; do
	for b in a b; do
		t0=$(date +%s)
		"$lk" mdl db build --isa "$c" -q -o "$b.$c" >"$b.$c.out" 2>&1 ||
			echo "$c build $b: exit $? ($(tail -n 1 "$b.$c.out"))"
		echo "$c build $b: $(( $(date +%s) - t0 )) s"
		"$lk" mdl db export --isa "$c" -o "$b.$c" >"$b.$c.csv"
	done
	python3 - "a.$c.csv" "b.$c.csv" "$c" <<'PY'
import csv, sys
def load(f):
    return {(r["seed"], r["level"]): float(r["value"])
            for r in csv.DictReader(open(f))
            if r["value"] not in ("", "nan")}
a, b, c = load(sys.argv[1]), load(sys.argv[2]), sys.argv[3]
for level in ("L1", "L2", "L3", "RAM"):
    d = sorted((abs(b[k] / a[k] - 1), k[0]) for k in a
               if k[1] == level and k in b and a[k] > 0)
    if not d:
        continue
    within = sum(1 for x, _ in d if x <= 0.03)
    med, p90 = d[len(d) // 2][0], d[min(len(d) - 1, int(0.9 * len(d)))][0]
    worst = ", ".join("%s %.0f %%" % (s, 100 * x) for x, s in d[-3:][::-1])
    print("%-6s %-3s within 3 %%: %2d of %2d seeds; median %.1f %%, p90 "
          "%.1f %%; most: %s" % (c, level, within, len(d), 100 * med,
                                 100 * p90, worst))
PY
done
