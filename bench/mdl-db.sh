#!/bin/sh
# MDL database builds: each ISA class built twice, in two stores, at L1,
# L2, L3 and RAM (the default exploration); prints each build's wall time
# (goal: <= 10 minutes a class on 2 cores) and, per level, how many seeds
# the two builds agree on within 3 % (goal: every seed at L1 and L2), the
# median and p90 of |b/a - 1|, and the seeds that differ most. Beside it,
# the baselines, from the same two builds' runs: at L1 and L2 the median
# of a unit's rounds' p25 figures (the value until 2026-12-02, where it
# is now the least sample of the rounds), round 0 alone (what one
# round, the method until 2026-12-01, gives), and at L2 the least of
# only the 3 variants best at L1 (the selection until 2026-12-02, where
# L2 now measures every L1 variant), at L1 and L2 the least sample of a
# variant's rounds at the build's clock (the value until 2026-12-02
# 14:20, where a clock that moves is now counted per run), and each
# run's least
# sample at that run's own clock (its fastest reference), the median of
# the rounds: for a machine whose clock moves from run to run (turbo
# states; each build's are printed: clusters of the runs' clocks with
# no gap over 0.2 %, those holding at least 2 % of the runs).
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
	python3 - "a.$c.csv" "b.$c.csv" "$c" a.$c/store.db b.$c/store.db <<'PY'
import csv, sqlite3, sys
def load(f):
    return {(r["seed"], r["level"]): float(r["value"])
            for r in csv.DictReader(open(f))
            if r["value"] not in ("", "nan")}
def runs(db, c, only_round0):
    # per seed and level, the least over variants of round 0's run, or
    # of the median of the variant's rounds (of two, the lower)
    q = """SELECT s.value, l.value, v.id, x.value / i.value
           FROM variants v JOIN campaigns k ON k.id = v.campaign_id
           JOIN variant_params s ON s.variant_id = v.id AND s.name = 'seed'
           JOIN variant_params l ON l.variant_id = v.id AND l.name = 'level'
           JOIN variant_params i ON i.variant_id = v.id
                AND i.name = 'iterations-per-step'
           JOIN runs r ON r.variant_id = v.id AND r.status IN ('ok', 'unstable')
                AND (? = 0 OR r.method NOT LIKE '%;round=%')
           JOIN results x ON x.run_id = r.id AND x.metric = 'cycles'
           WHERE k.name = ? AND x.value > 0
                 AND s.value NOT LIKE 'latency:%'"""
    per = {}
    for seed, level, var, v in sqlite3.connect(db).execute(
            q, (only_round0, "mdl-db:" + c)):
        per.setdefault((seed, level, var), []).append(v)
    out = {}
    for (seed, level, var), v in per.items():
        v = sorted(v)[(len(v) - 1) // 2]
        k = (seed, level)
        out[k] = min(out.get(k, v), v)
    return out
def from_l1(db, c, everything=False):
    # per seed, L2's value from only the 3 distinct variants fastest at
    # L1 (by their least samples): the least sample at the build's clock
    con = sqlite3.connect(db)
    q = sorted(r for r, in con.execute(
        """SELECT c.raw / t.raw FROM samples c JOIN samples t
           ON t.run_id = c.run_id AND t.process = c.process AND
              t.attempt = c.attempt AND t.idx = c.idx AND
              t.metric = 'ref_tsc'
           WHERE c.metric = 'ref_cycles' AND t.raw > 0"""))
    clock = q[int(0.99 * (len(q) - 1))]
    least = {}
    for seed, level, u, bu, v in con.execute(
            """SELECT s.value, l.value, u.value, b.value,
                      min(m.value) / i.value
               FROM variants v JOIN campaigns k ON k.id = v.campaign_id
               JOIN variant_params s ON s.variant_id = v.id AND s.name = 'seed'
               JOIN variant_params l ON l.variant_id = v.id AND l.name = 'level'
               JOIN variant_params u ON u.variant_id = v.id AND u.name = 'unroll'
               JOIN variant_params b ON b.variant_id = v.id AND b.name = 'bundles'
               JOIN variant_params i ON i.variant_id = v.id
                    AND i.name = 'iterations-per-step'
               JOIN runs r ON r.variant_id = v.id
               JOIN samples m ON m.run_id = r.id AND m.metric = 'tsc'
               WHERE k.name = ? AND m.value > 0 AND l.value IN ('L1', 'L2')
                     AND s.value NOT LIKE 'latency:%'
               GROUP BY v.id""", ("mdl-db:" + c,)):
        least.setdefault((seed, level), {})[(u, bu)] = v
    if everything:
        return {k: min(v.values()) * clock for k, v in least.items()}
    out = {}
    for (seed, level), l1 in least.items():
        if level != "L1" or (seed, "L2") not in least:
            continue
        l2, seen, best = least[seed, "L2"], set(), []
        for key, v in sorted(l1.items(), key=lambda x: x[1]):
            if v not in seen and len(best) < 3:
                seen.add(v)
                best.append(key)
        v = [l2[k] for k in best if k in l2]
        if v:
            out[seed, "L2"] = min(v) * clock
    return out
def own_clock(db, c):
    # per seed at L1 and L2: each run's least sample at that run's own
    # clock (its fastest reference), the median of the rounds (of two,
    # the lower), the least over variants; and the runs' clocks
    con = sqlite3.connect(db)
    per, clocks = {}, []
    for seed, level, var, ticks, clk in con.execute(
            """SELECT s.value, l.value, v.id,
                      (SELECT min(m.value) FROM samples m WHERE
                       m.run_id = r.id AND m.metric = 'tsc' AND m.value > 0)
                      / i.value,
                      (SELECT max(c.raw / t.raw) FROM samples c JOIN samples t
                       ON t.run_id = c.run_id AND t.process = c.process AND
                          t.attempt = c.attempt AND t.idx = c.idx AND
                          t.metric = 'ref_tsc'
                       WHERE c.run_id = r.id AND c.metric = 'ref_cycles'
                             AND t.raw > 0)
               FROM variants v JOIN campaigns k ON k.id = v.campaign_id
               JOIN variant_params s ON s.variant_id = v.id AND s.name = 'seed'
               JOIN variant_params l ON l.variant_id = v.id AND l.name = 'level'
               JOIN variant_params i ON i.variant_id = v.id
                    AND i.name = 'iterations-per-step'
               JOIN runs r ON r.variant_id = v.id
                    AND r.status IN ('ok', 'unstable')
               WHERE k.name = ? AND s.value NOT LIKE 'latency:%'""",
            ("mdl-db:" + c,)):
        if clk:
            clocks.append(clk)
        if ticks and clk and level in ("L1", "L2"):
            per.setdefault((seed, level, var), []).append(ticks * clk)
    out = {}
    for (seed, level, var), v in per.items():
        v = sorted(v)[(len(v) - 1) // 2]
        out[seed, level] = min(out.get((seed, level), v), v)
    return out, sorted(clocks)
def build_clock(db, c):
    # per seed at L1 and L2: the least sample of all of a variant's
    # rounds at the build's clock (p99 of every reference), the least
    # over variants
    return from_l1(db, c, everything=True)
def states(clocks):
    # the clock states the runs saw: runs of sorted clocks with no gap
    # over 0.2 %, each holding >= 2 % of the runs (median, share)
    out, i = [], 0
    while i < len(clocks):
        j = i + 1
        while j < len(clocks) and clocks[j] <= clocks[j - 1] * 1.002:
            j += 1
        if j - i >= 0.02 * len(clocks):
            out.append("%.3f %.0f %%" % (clocks[(i + j) // 2],
                                         100.0 * (j - i) / len(clocks)))
        i = j
    return ", ".join(out)
def agree(a, b, level):
    d = sorted((abs(b[k] / a[k] - 1), k[0]) for k in a
               if k[1] == level and k in b and a[k] > 0)
    if not d:
        return None
    within = sum(1 for x, _ in d if x <= 0.03)
    med, p90 = d[len(d) // 2][0], d[min(len(d) - 1, int(0.9 * len(d)))][0]
    return within, len(d), med, p90, d
a, b, c = load(sys.argv[1]), load(sys.argv[2]), sys.argv[3]
a0, b0 = runs(sys.argv[4], c, 1), runs(sys.argv[5], c, 1)
am, bm = runs(sys.argv[4], c, 0), runs(sys.argv[5], c, 0)
(ao, aclk), (bo, bclk) = own_clock(sys.argv[4], c), own_clock(sys.argv[5], c)
for name, clk in (("a", aclk), ("b", bclk)):
    print("%-6s build %s: the runs' clocks (fastest reference): %s" % (
        c, name, states(clk)))
for level in ("L1", "L2", "L3", "RAM"):
    now, base = agree(a, b, level), agree(a0, b0, level)
    med = agree(am, bm, level)
    if not now:
        continue
    worst = ", ".join("%s %.0f %%" % (s, 100 * x) for x, s in now[4][-3:][::-1])
    print("%-6s %-3s within 3 %%: %2d of %2d seeds; median %.1f %%, p90 "
          "%.1f %%; most: %s" % (c, level, now[0], now[1], 100 * now[2],
                                 100 * now[3], worst))
    if med and level in ("L1", "L2"):
        print("%-6s %-3s   median of the rounds' p25 figures: %2d of %2d; "
              "median %.1f %%, p90 %.1f %%" % (c, level, med[0], med[1],
                                             100 * med[2], 100 * med[3]))
    if level in ("L1", "L2"):
        bc = agree(build_clock(sys.argv[4], c), build_clock(sys.argv[5], c),
                   level)
        print("%-6s %-3s   the least sample at the build's clock (the value "
              "until 2026-12-02 14:20): %2d of %2d; median %.1f %%, p90 "
              "%.1f %%" % (c, level, bc[0], bc[1], 100 * bc[2], 100 * bc[3]))
    own = agree(ao, bo, level)
    if own:
        print("%-6s %-3s   each run at its own clock, median of the rounds: "
              "%2d of %2d; median %.1f %%, p90 %.1f %%" % (
                  c, level, own[0], own[1], 100 * own[2], 100 * own[3]))
    if level == "L2":
        old = agree(from_l1(sys.argv[4], c), from_l1(sys.argv[5], c), level)
        if old:
            print("%-6s %-3s   only the 3 best at L1: %2d of %2d; median "
                  "%.1f %%, p90 %.1f %%" % (c, level, old[0], old[1],
                                          100 * old[2], 100 * old[3]))
    if base and level != "RAM":
        print("%-6s %-3s   round 0 alone: %2d of %2d; median %.1f %%, "
              "p90 %.1f %%" % (c, level, base[0], base[1], 100 * base[2],
                               100 * base[3]))
PY
done
