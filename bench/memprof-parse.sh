#!/bin/sh
# Parse speed of memprof traces against the targets: >= 2 M lines/s for
# the text parser, >= 20 M records/s for the binary reader. The traces
# (10 million calls by default, known nesting) are generated in memory by
# the driver, bench/memprof-parse.c, built here against build/liblk.a.
#   bench/memprof-parse.sh [CALLS]
set -eu
cd "$(dirname "$0")/.."
O=${O:-build}
make --no-print-directory O="$O" "$O/liblk.a" >/dev/null
mkdir -p "$O/bench"
# shellcheck disable=SC2046
gcc -std=gnu11 -O2 -g -Wall -Wextra -Iinclude -D_GNU_SOURCE \
	-o "$O/bench/memprof-parse" bench/memprof-parse.c "$O/liblk.a" \
	$(pkg-config --libs yaml-0.1 sqlite3 libelf) -lZydis -lZycore \
	-lxxhash -lpthread -lm
"$O/bench/memprof-parse" "${1:-10000000}"
