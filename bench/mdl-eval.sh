#!/bin/sh
# MDL's prediction error against the replay, per memory level, on the
# suite's micro-kernels (the notes' S120: the 30 kernels of kernels/ x
# original+kernelify x {gcc, clang} x {-O2, -O3 -march=LEVEL}), with
# llvm-mca's error on the same loops beside it, in the same run:
#   1. the kernelified sources as one campaign, built (measured lightly:
#      the replays, not the native runs, are the ground truth);
#   2. the seed database of each ISA class (loopkit mdl db build, the
#      default exploration, L1 L2 L3 RAM);
#   3. loopkit mdl eval: extraction, k-NN prediction, replay, llvm-mca.
# Goals (issue 14): MAPE <= 15 % at L1 and L2, <= 20 % at L3, <= 25 % at
# RAM, mean <= 15 %, and at most half of llvm-mca's at L2, L3, RAM.
# LEVEL is the widest x86-64 level this machine runs (cpu.isa of loopkit
# env): x86-64-v4 with avx512f and avx512vl, else x86-64-v3 with avx2, fma
# and bmi2, else x86-64-v2; the databases are built for the ISA classes it
# runs. The script says which on its first lines.
#
#   bench/mdl-eval.sh [BUILD_DIR] [KERNEL...]   (default: build, all 30)
# KEEP=1 keeps the work directory (its path is printed). NOISE=1 also
# measures the noise floor: the replays again in a second invocation
# (a copy of the store, whose replay files name another path, so every
# replay is measured anew), and replay against replay per level.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$here/build}" && pwd)
[ $# -gt 0 ] && shift
lk=$build/loopkit
work=$(mktemp -d /tmp/mdl-eval.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
[ -n "${KEEP:-}" ] && echo "work: $work"
cd "$work"
isa=$("$lk" env | sed -n 's/^cpu\.isa  *//p')
has() { case " $isa " in *" $1 "*) return 0 ;; esac; return 1; }
classes="scalar sse"
if has avx512f && has avx512vl; then
	level=x86-64-v4 classes="$classes avx2 avx512"
elif has avx2 && has fma && has bmi2; then
	level=x86-64-v3 classes="$classes avx2"
else
	level=x86-64-v2
fi
echo "march: $level (cpu.isa: $isa); databases: $classes"
mkdir gen src
if [ $# -gt 0 ]; then
	for k in "$@"; do echo "$here/kernels/$k.c"; done
else
	ls "$here"/kernels/*.c
fi | xargs -P2 -I{} sh -c '"$0" gen -q --no-verify {} \
	--transform original+kernelify -o gen/$(basename {} .c) 2>/dev/null ||
	echo "{}" >>gen.failed' "$lk"
for f in gen/*/*.c; do mv "$f" "src/$(basename "$(dirname "$f")").c"; done
{
	echo "name: s120"
	printf 'sources: ['
	ls src | sed 's|^|src/|' | paste -sd, | sed 's/,/, /g' | tr -d '\n'
	echo ']'
	cat <<YAML
compilers: [gcc, clang]
flags:
  O2: -O2
  O3-${level#x86-64-}: -O3 -march=$level
method:
  warmup: 1
  repetitions: 3
  processes: 1
mdl:
  levels: [L1, L2, L3, RAM]
YAML
} >s120.yaml
t0=$(date +%s)
"$lk" run -c s120.yaml -o d -q >run.out 2>&1 || { cat run.out; exit 1; }
t1=$(date +%s)
for c in $classes; do
	"$lk" mdl db build --isa $c --levels L1,L2,L3,RAM -q -o d 2>&1 |
		tail -1
done
t2=$(date +%s)
"$lk" mdl eval -c s120.yaml -o d -q >eval.out
t3=$(date +%s)
"$lk" mdl eval -c s120.yaml -o d --csv >eval.csv
cat eval.out
echo "times: build+run $((t1 - t0)) s, databases $((t2 - t1)) s, eval $((t3 - t2)) s"
python3 - eval.csv <<'PY'
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
def mape(p, m):
    return 100 * sum(abs(a - b) / b for a, b in zip(p, m)) / len(m) if m else float("nan")
levels = ["L1", "L2", "L3", "RAM"]
goal = {"L1": 15, "L2": 15, "L3": 20, "RAM": 25}
print("%-4s %5s %9s %9s %9s %6s" % ("lvl", "loops", "MDL", "llvm-mca", "goal", "ok"))
means = []
for l in levels:
    ok = [r for r in rows if r["level"] == l and r["status"] == "ok"
          and r["mca"] != "nan" and float(r["replayed"]) > 0]
    m = [float(r["replayed"]) for r in ok]
    e = mape([float(r["predicted"]) for r in ok], m)
    c = mape([float(r["mca"]) for r in ok], m)
    means.append(e)
    half = l == "L1" or e <= c / 2
    print("%-4s %5d %8.1f%% %8.1f%% %8d%% %6s" % (l, len(ok), e, c, goal[l],
          "yes" if e <= goal[l] and half else "no"))
print("mean MDL MAPE over the levels: %.1f %% (goal <= 15 %%)" % (sum(means) / len(means)))
loops = {(r["variant"], r["loop"]) for r in rows}
refused = {(r["variant"], r["loop"]) for r in rows if r["status"] == "refused"}
print("coverage: %d loops, %d extracted, %d refused" % (len(loops), len(loops) - len(refused), len(refused)))
PY
[ -n "${NOISE:-}" ] || exit 0
cp -r d d2
"$lk" mdl eval -c s120.yaml -o d2 --csv >eval2.csv
python3 - eval.csv eval2.csv <<'PY'
import csv, statistics, sys
def replays(path):
    return {(r["variant"], r["loop"], r["level"]): float(r["replayed"])
            for r in csv.DictReader(open(path))
            if r["status"] == "ok" and float(r["replayed"]) > 0}
a, b = replays(sys.argv[1]), replays(sys.argv[2])
print("noise floor: replay against replay in two invocations")
for l in ["L1", "L2", "L3", "RAM"]:
    e = sorted(abs(b[k] - a[k]) / a[k] * 100 for k in a if k in b and k[2] == l)
    print("%-4s %3d loops: MAPE %5.1f %%, median %4.1f %%, p90 %5.1f %%" % (
        l, len(e), sum(e) / len(e), statistics.median(e), e[int(0.9 * len(e))]))
PY
