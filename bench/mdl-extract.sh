#!/bin/sh
# MDL extraction over the suite's micro-kernels: the 30 kernels of
# kernels/ x original+kernelify x {gcc, clang} x {-O2, -O3
# -march=x86-64-v4}. Prints each loop's status (refusals with their
# reasons), the extraction success rate (goal >= 85 %) and the share of
# kernels whose four builds have one canonical body (goal >= 50 %).
#
#   bench/mdl-extract.sh [BUILD_DIR]   (default: build)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$here/build}" && pwd)
lk=$build/loopkit
work=$(mktemp -d /tmp/mdl-extract.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
cd "$work"
mkdir gen bin out
ls "$here"/kernels/*.c | xargs -P2 -I{} sh -c '"$0" gen -q --no-verify {} \
	--transform original+kernelify -o gen/$(basename {} .c) 2>/dev/null ||
	echo "{}" >>gen.failed' "$lk"
for f in gen/*/*.c; do mv "$f" "$(dirname "$f").c"; done
cat >one.sh <<'SH'
f=$1 rt=$2 lib=$3 lk=$4
k=$(basename "$f" .c)
fn=$(sed -n 's/^LK_KERNEL void \([a-z_0-9]*\)(void)$/\1/p' "$f")
for cc in gcc clang; do
	for fl in -O2 "-O3 -march=x86-64-v4"; do
		tag=$cc$(echo "$fl" | tr -d ' =-')
		b=bin/$k.$tag
		if ! $cc $fl -I"$rt" "$f" "$lib" -lm -o "$b" 2>/dev/null; then
			echo "$k $tag compile-error" >out/$k.$tag
			continue
		fi
		"$lk" mdl extract "$b" --function "$fn" --json >out/$k.$tag.json \
			2>out/$k.$tag.err || echo "$k $tag exit $?" >out/$k.$tag
	done
done
SH
ls gen/*.c | xargs -P2 -I{} sh one.sh {} "$here/rt" "$build/lib/liblkrt.a" "$lk"
python3 - out <<'PY'
import glob, json, os, sys
d = sys.argv[1]
loops = ok = 0
bodies = {}
refused = []
for f in sorted(glob.glob(f"{d}/*.json")):
    k, tag = os.path.basename(f)[:-5].split(".", 1)
    for line in open(f):
        x = json.loads(line)
        loops += 1
        if x["status"] == "ok":
            ok += 1
            bodies.setdefault(k, {})[tag] = x["canonical"]
        else:
            refused.append(f"{k} {tag} {x['loop']}: {x['reason']}")
            bodies.setdefault(k, {})[tag] = None
for f in sorted(glob.glob(f"{d}/*.*")):
    if not f.endswith((".json", ".err")):
        print("failed:", open(f).read().strip())
for r in refused:
    print("refused:", r)
one = 0
for k, b in sorted(bodies.items()):
    v = set(b.values())
    if len(b) == 4 and len(v) == 1 and None not in v:
        one += 1
    else:
        print(f"differs: {k}: {len(v)} bodies over {len(b)} builds")
n = len(bodies)
print(f"loops {loops}, extracted {ok} ({100.0 * ok / max(loops, 1):.1f} %), "
      f"refused {loops - ok}")
print(f"kernels {n}, one canonical body over the four builds: {one} "
      f"({100.0 * one / max(n, 1):.1f} %)")
PY
