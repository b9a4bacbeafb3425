# examples/case-studies/gather-cache-lines.yaml end to end, CI-sized: the
# example's kernel, method and analysis with one index set per number of
# lines (N_CL 1..4 at 128 bits, 1..8 at 256 and 512), 'run -c' then
# 'analyze -c'. Without AVX-512 the 512-bit gathers are recorded as
# crashed by SIGILL and the rest goes on. The cold cache is real: a
# one-line gather takes at least 1.5 x as long cold as hot. The shapes,
# by micro-architecture (loopkit env), the most lines the slowest (within
# 5 %): on Zen 4 (the research notes' figures) Kendall's tau(N_CL, time)
# >= 0.7 within each width, 8 lines >= 1.5 x one line at 256 bits, 4
# lines >= 1.3 x one line at 128; on Zen 3, whose 256-bit gathers take
# about as long for 1 to 4 lines and 128-bit ones for 1 to 3, tau >= 0.5
# and 8 lines >= 1.3 x one at 256 bits, 4 lines no faster than one at
# 128 (1.05 to 1.37 x measured here, as the machine's load went; its
# tau over four points is chance). 512-bit figures are printed, not
# checked. Another machine skips the figures with a reason.
# The analysis: KDE categories, the tree, tau per width, the plots.
#
# Two rounds to six (until the figures hold). A variant's figure for
# the shapes is its least sample over the rounds, every process and
# attempt (read from the store): other work only ever adds time to a
# cold gather. Each round's reduced figure (the runner's min over the
# last attempt of each process) is checked to be no lower than it.
# Until 2026-12-07 the shapes took the least of the rounds' reduced
# figures; on the Zen 3 guest of that day a co-tenant's memory traffic
# put whole launches at twice the time (one-line gathers at 86 to 500
# ticks, sample to sample), and the 5-line variant's three figures were
# 203, 218 and 216 thousand ticks where its samples went down to 107.
. tests/e2e/lib.sh
command -v python3 >/dev/null || skip "python3 not installed"
src=$(pwd)
cd "$TMPD"
arch=$(env_key cpu.microarch)
has_isa avx2 || skip "this CPU has no AVX2 gathers (loopkit env: cpu.isa)"
avx512=0
! has_isa avx512f || avx512=1
cp "$src/examples/case-studies/gather.c" .
# The example with its only: list replaced by lines 0..k, k = 0..7.
python3 - "$src/examples/case-studies/gather-cache-lines.yaml" <<'PY'
import sys
lines = open(sys.argv[1]).read().split("\n")
start = lines.index("only:")
end = start + 1
while lines[end].startswith(" "):
    end += 1
ci = ["only:"]
for k in range(8):
    idx = [16 * i if i <= k else i for i in range(1, 8)]
    ci.append("  - {%s}" % ", ".join("IDX%d: %d" % (i + 1, x)
                                      for i, x in enumerate(idx)))
# 12 to 20 rows are too few distinct values for ISJ's fixed point.
text = "\n".join(lines[:start] + ci + lines[end:])
assert "bandwidth: isj " in text
open("ci.yaml", "w").write(text.replace("bandwidth: isj ",
                                        "bandwidth: silverman "))
PY
expect=
# WIDTH:TAU:RATIO: Kendall's tau (N_CL, time) at least TAU ('-': not
# checked), the most lines at least RATIO x one line and the slowest
# (within 5 %).
case $arch in
"Zen 4") expect="128:0.7:1.3 256:0.7:1.5" ;;
"Zen 3") expect="128:-:1.0 256:0.5:1.3" ;;
esac
# shapes.py ROUND.json...: the figures, each variant's least sample.
cat >shapes.py <<'PY'
import json, sqlite3, sys
from lkstats import taub
avx512 = sys.argv[1] == "1"
expect = {int(w): (t, float(r)) for w, t, r in
          (e.split(":") for e in sys.argv[2].split())}
tsc = lambda v: [x for x in v["results"] if x["metric"] == "tsc"][0]["value"]
def lines(p):
    w = int(p["WIDTH"])
    idx = [0] + [int(p["IDX%d" % k]) for k in range(1, 8)]
    return w, len({i // 16 for i in idx[:4 if w == 128 else 8]})
con = sqlite3.connect("loopkit.d/store.db")
params = {}
for vid, name, value in con.execute(
        "SELECT variant_id, name, value FROM variant_params"):
    params.setdefault(vid, {})[name] = value
least = {}
for vid, t in con.execute(
        """SELECT r.variant_id, min(s.value) FROM runs r
           JOIN samples s ON s.run_id = r.id AND s.metric = 'tsc'
           WHERE r.status = 'ok' GROUP BY r.variant_id"""):
    least[lines(params[vid])] = t / 1000
best = {}
for r in sys.argv[3:]:
    for v in json.load(open(r)):
        w, ncl = lines(v["params"])
        if w == 512 and not avx512:
            assert v["status"] == "crashed" and "SIGILL" in v["reason"], v
            continue
        assert v["status"] == "ok", v
        assert tsc(v) / 1000 >= least[(w, ncl)] * (1 - 1e-9), \
            (v["variant"], tsc(v), least[(w, ncl)])
        best[(w, ncl)] = least[(w, ncl)]
widths = sorted({w for w, n in best})
assert widths == ([128, 256, 512] if avx512 else [128, 256]), widths
for w in widths:
    n = sorted(k for x, k in best if x == w)
    assert n == list(range(1, 5 if w == 128 else 9)), (w, n)
    print(w, " ".join("%.1f" % best[(w, k)] for k in n))
hot = min(tsc(json.load(open(r.replace("run", "hot")))[0])
          for r in sys.argv[3:]) / 1000
print("hot 256-bit, 1 line: %.1f" % hot)
assert best[(256, 1)] >= 1.5 * hot, "cold %.1f, hot %.1f" % (best[(256, 1)], hot)
for w, (tau_min, want) in sorted(expect.items()):
    n = sorted(k for x, k in best if x == w)
    t = [best[(w, k)] for k in n]
    tau = taub(n, t)
    print("width %d: tau %.3f, %d lines / 1 line %.2f" % (w, tau, n[-1],
                                                      t[-1] / t[0]))
    assert tau_min == "-" or tau >= float(tau_min), \
        "width %d: tau %.3f < %s" % (w, tau, tau_min)
    assert t[-1] >= want * t[0], "width %d: %.2f < %g" % (w, t[-1] / t[0], want)
    assert t[-1] >= 0.95 * max(t), "width %d: %d lines not the slowest" \
        % (w, n[-1])
# The analysis reads each variant's latest run: the last round's. Twelve
# to twenty rows make one or two KDE categories; its tau is that round's.
d = json.load(open("loopkit.d/analyze/gather/summary.json"))
assert d["rows"] == len(best), (d["rows"], len(best))
assert sum(c["count"] for c in d["categories"]["list"]) == d["rows"], d
k = d["kendall"]
assert k["by"] == "WIDTH", k
assert [g["value"] for g in k["groups"]] == [str(w) for w in widths], k
last = {}
for v in json.load(open(sys.argv[-1])):
    if v["status"] == "ok":
        w, ncl = lines(v["params"])
        last.setdefault(w, []).append((ncl, tsc(v)))
for g, w in enumerate(widths):
    x, y = zip(*last[w])
    got = k["features"]["N_CL"]["within"][g]
    assert abs(got - taub(x, y)) < 1e-9, (w, got, taub(x, y))
# One series per width (a numeric group column), named in the legend.
svg = open("loopkit.d/analyze/gather/plot1.svg").read()
assert all(svg.count("WIDTH=%d" % w) == 1 for w in widths), widths
PY
# Rounds until the figures hold, at most six (about 19 s each; three
# until 2026-12-07, when the guest's 128-bit one-line set kept its
# least sample at 73k ticks through three rounds where it had reached
# 62.5k an hour before): other work on the machine
# (memory traffic above all) only ever adds time to a cold gather, and a
# burst of it can outlast a round.
r=0 rounds=
while :; do
	r=$((r + 1))
	set +e
	"$LOOPKIT" run -q -c ci.yaml --json --method processes=2 \
		--method repetitions=10 --method warmup=$r >run$r.json 2>err
	rc=$?
	set -e
	[ $rc -eq $((1 - avx512)) ] ||
		fail "round $r: exit $rc: $(tail -3 err)"
	rounds="$rounds run$r.json"
	"$LOOPKIT" run -q -o hot.d --cache hot --steps 1 --warmup $r -r 10 \
		-p 2 --reducer min -D WIDTH=256 --json gather.c >hot$r.json \
		2>err || fail "hot run: $(cat err)"
	"$LOOPKIT" analyze -c ci.yaml >an.txt 2>err ||
		fail "analyze: $(cat err)"
	grep -q '^analyze: 1 analysis (1 done' an.txt ||
		fail "analyze: $(cat an.txt)"
	[ $r -ge 2 ] || continue
	python3 shapes.py "$avx512" "$expect" $rounds >shapes.txt 2>&1 && break
	[ $r -lt 6 ] || { cat shapes.txt; fail "after $r rounds: see above"; }
done
cat shapes.txt
for f in analysis.html tree.txt density.svg plot1.svg plot2.svg; do
	[ -s loopkit.d/analyze/gather/$f ] || fail "no $f"
done
[ -n "$expect" ] || skip "no gather figures for '$arch' (Zen 3 and Zen 4 are known): the shapes were not checked"
