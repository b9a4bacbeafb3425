#!/bin/sh
# loopkit gen -c over a campaign (default: the full suite) beside the
# same work done by hand, timed in the same run: every verification
# compile (gcc -O2 -ffp-contract=off -fno-fast-math -DMINI_DATASET, the
# runtime) and --checksum run loopkit did, the originals' included, and
# every variant's build (the argv loopkit stored), two at a time as
# loopkit's -j2. loopkit's overhead is its time over that baseline: the
# transformations themselves (isl) and the bookkeeping; then a rerun with
# nothing changed.
#   bench/gen.sh [LOOPKIT] [CAMPAIGN.yaml] [JOBS]
set -eu
loopkit=$(cd "$(dirname "${1:-build/loopkit}")" && pwd)/$(basename "${1:-build/loopkit}")
here=$(cd "$(dirname "$0")" && pwd)
config=$(cd "$(dirname "${2:-$here/../examples/campaign/full-suite.yaml}")" &&
	pwd)/$(basename "${2:-full-suite.yaml}")
jobs=${3:-2}
rt=$(cd "$here/../rt" && pwd)
lib=$(dirname "$loopkit")/lib/liblkrt.a
tmp=$(mktemp -d "${TMPDIR:-/tmp}/loopkit-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

now() { date +%s.%N; }

t0=$(now)
"$loopkit" gen -q -j "$jobs" -c "$config" -o "$tmp/store" >units
t1=$(now)
"$loopkit" gen -q -j "$jobs" -c "$config" -o "$tmp/store" >units2
t2=$(now)

# The same compiles and runs by hand: the originals, then every
# generated unit's file (from the outcomes loopkit remembered), and for a
# micro-kernel also the transformed file it was cut from, which loopkit
# verifies against the original (made here, untimed, by 'gen
# --no-verify' of the chain without its kernelify step).
dirs=$(sed -n 's/^  - \(.*\.c\)$/\1/p' "$config" | while read -r s; do
	(cd "$(dirname "$config")" && cd "$(dirname "$s")" && pwd)
done | sort -u | sed 's/^/-I/' | tr '\n' ' ')
sed -n 's/^  - \(.*\.c\)$/\1/p' "$config" | while read -r s; do
	(cd "$(dirname "$config")" && echo "$(pwd)/$s")
done >sources
cp sources files
find store/objects -name '*.gen' -exec awk -F '\t' \
	'$1 == "generated" { print $2 }' {} + | while read -r h; do
	echo "$tmp/store/objects/$(echo "$h" | cut -c1-2)/$(echo "$h" |
		cut -c3-).c"
done >>files
mkdir pre
awk '$2 == "generated" && $3 ~ /\+kernelify/ { print $1, $3 }' units |
	sort -u >kernelified
k=0
while read -r src; do
	for chain in $(awk '{ print $2 }' kernelified | sort -u); do
		pre=${chain%%+kernelify*}
		k=$((k + 1))
		"$loopkit" gen -q --no-verify $dirs -DMINI_DATASET "$src" \
			-t "$pre" -o "pre/$k" 2>/dev/null || continue
		grep -qx "$(basename "$src" .c) $chain" kernelified &&
			echo "$tmp/$(ls pre/$k/*.c)" || true
	done
done <sources >>files
n=$(wc -l <files)
cat >one.sh <<SH
b=\$(mktemp "$tmp/bin.XXXXXX")
gcc -O2 -ffp-contract=off -fno-fast-math -w -DMINI_DATASET $dirs \
	-I$rt -o "\$b" "\$1" $lib -lm && "\$b" --checksum >/dev/null
rc=\$?; rm -f "\$b"; exit \$rc
SH
# Every variant's build, as loopkit ran it (its argv is in the store),
# into a scratch binary.
sqlite3 store/store.db "select command from builds" >builds
cat >build.sh <<SH
b=\$(mktemp "$tmp/bin.XXXXXX")
cmd=\$(echo "\$1" | sed "s| -o [^ ]* | -o \$b |")
eval "\$cmd" 2>/dev/null
rc=\$?; rm -f "\$b"; exit \$rc
SH
t3=$(now)
xargs -P "$jobs" -n 1 sh one.sh <files
tr '\n' '\0' <builds | xargs -0 -P "$jobs" -n 1 sh build.sh
t4=$(now)

generated=$(grep -c ' generated ' units || true)
refused=$(grep -c ' illegal ' units || true)
unsupported=$(grep -c ' unsupported ' units || true)
failed=$(grep -c ' failed ' units || true)
variants=$(sqlite3 store/store.db "select count(*) from variants")
echo "campaign: $(basename "$config"), -j$jobs: $(wc -l <units) units:" \
	"$generated generated, $refused refused (illegal)," \
	"$unsupported unsupported, $failed failed; $variants variants"
awk -v lk="$(echo "$t1 - $t0" | bc)" -v cc="$(echo "$t4 - $t3" | bc)" \
    -v re="$(echo "$t2 - $t1" | bc)" -v n="$n" -v g="$generated" \
    -v nb="$(wc -l <builds)" -v nv="$variants" 'BEGIN {
	printf "%-28s %10s %10s %10s\n", "", "loopkit", "by hand", "overhead"
	printf "%-28s %9.1fs %9.1fs %9.1f%%  (target <= 10%%)\n",
	       "gen -c, whole campaign", lk, cc, (lk / cc - 1) * 100
	printf "%-28s %9.3fs %9.3fs\n", "per variant (built)",
	       lk / nv, cc / nv
	printf "%-28s %9.3fs %10s %10s  (target <= 2 s)\n",
	       "rerun, nothing changed", re, "-", "-"
	printf "\nby hand: %d compiles + --checksum runs (the originals, every\n", n
	printf "generated file and the nest each micro-kernel is cut from)\n"
	printf "and %d variant builds, %s at a time, no generation.\n", nb, "'"$jobs"'"
}'
