# Micro-kernelification of the whole suite: every kernel, as written and
# tiled by isl, becomes a standalone benchmark whose kernel function has
# exactly one loop (one back edge in its CFG) with gcc and clang at -O2
# and -O3 -march=native, runs (--checksum and measured by loopkit run),
# and keeps its working set within the L1 budget it records. Micro-kernels
# are memory-safe by construction (arrays sized from the accesses'
# images): every one runs clean under AddressSanitizer+UBSan, a few under
# valgrind memcheck.
# e2e: shares the machine
. tests/e2e/lib.sh
cd "$TMPD"
command -v clang >/dev/null || skip "clang not installed"
# No sysfs: the default budget is half the 32 KiB fallback, whatever
# this host's L1D.
export LOOPKIT_SYSROOT="$TMPD/no-sysfs"
mkdir gen bin
# Not verified by gen: every binary below runs --checksum.
ls "$SRC"/kernels/*.c | xargs -P2 -I{} sh -c 'i=0; for t in original \
	isl+tile,sizes=64x64; do i=$((i + 1)); "$0" gen -q --no-verify {} \
	--transform $t+kernelify -o gen/$(basename {} .c).$i 2>>gen.err ||
	echo "{} $t" >>gen.failed; done' "$LOOPKIT"
for f in gen/*/*.c; do mv "$f" "$(dirname "$f").c"; done
# heat-3d tiled by 64: 256 iterations of its stencil touch 26 KiB of
# lines, over the 16 KiB budget (not L1-resident), and a shorter window
# is only for column walks.
grep -q "smallest trip count" gen.err && [ "$(cat gen.failed)" = \
	"$SRC/kernels/heat-3d.c isl+tile,sizes=64x64" ] ||
	{ cat gen.err; fail "gen: $(cat gen.failed)"; }
[ "$(ls gen/*.c | wc -l)" -eq 59 ] || fail "59 micro-kernels"

# One compiler x flags for one file: "file tag back-edges".
cat >edges.sh <<'SH'
f=$1 rt=$2 lib=$3 loopkit=$4 py=$5
fn=$(sed -n 's/^LK_KERNEL void \([a-z_0-9]*\)(void)$/\1/p' "$f")
b=bin/$(basename "$f" .c)
for cc in gcc clang; do
	for fl in -O2 "-O3 -march=native"; do
		tag=$cc$(echo "$fl" | tr -d ' =-')
		if ! $cc $fl -I"$rt" "$f" "$lib" -lm -o "$b.$tag" 2>"$b.$tag.err"
		then
			echo "$f $tag compile-error"
			continue
		fi
		n=$("$loopkit" blocks "$b.$tag" --function "$fn" --json |
		    python3 "$py")
		echo "$(basename "$f" .c) $tag $n"
	done
done
SH
ls gen/*.c | xargs -P2 -I{} sh edges.sh {} "$SRC/rt" \
	"$(dirname "$LOOPKIT")/lib/liblkrt.a" "$LOOPKIT" \
	"$E2E_DIR/backedges.py" >edges
[ "$(wc -l <edges)" -eq 236 ] || { cat edges; fail "236 binaries"; }
awk '$3 != 1 || $4 != 1' edges >bad
[ ! -s bad ] || { cat bad; fail "kernel functions without exactly one \
back edge: $(wc -l <bad) of 236"; }

# Every recorded working set (lines) within the default budget, every kernel
# function with one loop of literal bounds and nothing else looping.
for f in gen/*.c; do
	ws=$(sed -n 's/^ \* param working_set_lines=//p' "$f")
	[ -n "$ws" ] && [ "$((ws * 64))" -le 16384 ] && [ "$ws" -gt 0 ] ||
		fail "$f: working set '$ws' lines"
	grep -q '^ \* param kernel.l1=16384$' "$f" || fail "$f: kernel.l1"
	body=$(sed -n '/^LK_KERNEL void/,/^}/p' "$f")
	[ "$(echo "$body" | grep -c 'for (')" -eq 1 ] || fail "$f: loops"
	echo "$body" | grep -Eq 'for \(c[0-9]+ = -?[0-9]+; c[0-9]+ <= -?[0-9]+;' ||
		fail "$f: bounds not literal"
done

# The fixed loops are those around the kernel loop on its own path, each
# named once and never the kernel loop (3mm skewed and tiled has sibling
# nests whose loops reuse the names and depths).
"$LOOPKIT" gen -q --no-verify "$SRC/kernels/3mm.c" \
	-t skew+tile,sizes=16+kernelify >3mm-skew.c || fail "3mm skew+tile"
for f in gen/*.c 3mm-skew.c; do
	names=$(sed -n 's/^ \* param fixed\.\([a-z0-9_]*\)=.*/\1/p' "$f")
	loop=$(sed -n 's/^ \* param kernel\.loop=//p' "$f")
	[ -z "$(echo "$names" | sort | uniq -d)" ] || fail "$f: a loop fixed twice"
	! echo "$names" | grep -qx "$loop" || fail "$f: the kernel loop fixed"
done

# The binaries run: the checksum mode, and one measured by loopkit run.
for b in bin/*.gccO2; do
	"$b" --checksum | grep -Eq '^checksum [0-9a-f]{16}$' ||
		fail "$b --checksum"
done
cat >asan.sh <<'SH'
f=$1 rt=$2 lib=$3
b=asan/$(basename "$f" .c)
gcc -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer -I"$rt" "$f" "$lib" -lm -o "$b" ||
	{ echo "$f: compile"; exit 0; }
ASAN_OPTIONS=detect_leaks=0 "$b" --checksum >"$b.out" 2>"$b.err" ||
	echo "$f: $(head -n 3 "$b.err")"
SH
mkdir asan
lib="$(dirname "$LOOPKIT")/lib/liblkrt.a"
ls gen/*.c | xargs -P2 -I{} sh asan.sh {} "$SRC/rt" "$lib" >asan.bad
[ ! -s asan.bad ] || { cat asan.bad; fail "sanitizers"; }
[ "$(ls asan/*.out | wc -l)" -eq 59 ] || fail "59 sanitised runs"
if command -v valgrind >/dev/null; then
	for k in durbin.1 nussinov.2 heat-3d.1 deriche.1; do
		valgrind -q --error-exitcode=9 bin/$k.gccO2 --checksum \
			>/dev/null || fail "$k: valgrind memcheck"
	done
fi
"$LOOPKIT" run -q --json -o ld --method processes=1 --method \
	repetitions=3 -m tsc gen/gemm.1.c >run.json || fail "loopkit run"
python3 - <<'PY'
import json
v = json.load(open("run.json"))
assert v[0]["status"] == "ok", v
r = v[0]["results"]
assert [x["region"] for x in r] == ["gemm"] and r[0]["value"] > 0, r
PY
exit 0
