#!/bin/sh
# Build the libFuzzer targets tests/fuzz/fuzz-*.c with clang and run them.
#   run.sh OUTDIR regress   replay each seed corpus (part of make check)
#   run.sh OUTDIR explore   fuzz each target for FUZZ_SECONDS (default 60)
set -eu
out=$1 mode=${2:-regress}
cd "$(dirname "$0")/../.."
if ! command -v clang >/dev/null 2>&1; then
	echo "fuzz: skipped: clang not installed (make deps)"
	exit 0
fi
mkdir -p "$out"
flags="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -std=gnu11 -Iinclude -Irt -D_GNU_SOURCE"
libs="$(pkg-config --libs yaml-0.1 sqlite3) -lxxhash -lpthread -lm"
core=$(ls src/core/*.c src/config/*.c)
measure="src/measure/protocol.c src/measure/reduce.c"
n=0
for f in tests/fuzz/fuzz-*.c; do
	name=$(basename "$f" .c)
	corpus=tests/fuzz/corpus/${name#fuzz-}
	# shellcheck disable=SC2086
	clang $flags -o "$out/$name" "$f" $core $measure $libs
	mkdir -p "$corpus"
	if [ "$mode" = explore ]; then
		mkdir -p "$out/$name.corpus"
		"$out/$name" -max_total_time="${FUZZ_SECONDS:-60}" \
			"$out/$name.corpus" "$corpus"
	else
		"$out/$name" -runs=0 "$corpus" >"$out/$name.log" 2>&1 ||
			{ cat "$out/$name.log"; exit 1; }
		# New inputs go to a scratch folder (the first one), never
		# into the committed seeds.
		rm -rf "$out/$name.scratch" && mkdir -p "$out/$name.scratch"
		"$out/$name" -runs=20000 -seed=1 "$out/$name.scratch" \
			"$corpus" >>"$out/$name.log" 2>&1 ||
			{ tail -n 40 "$out/$name.log"; exit 1; }
	fi
	n=$((n + 1))
done
echo "fuzz: $n passed, 0 failed"
