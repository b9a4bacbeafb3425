#!/bin/sh
# A benchmark built by hand against rt/ and liblkrt.a: the readable summary
# when run alone, the protocol on LK_RESULT_FD otherwise.
set -u

lib=build/lib/liblkrt.a
[ -n "${O:-}" ] && lib=$O/lib/liblkrt.a
if [ ! -f "$lib" ]; then
	echo "skip: $lib not built (make build/lib/liblkrt.a)"
	exit 77
fi
command -v gcc >/dev/null || { echo "skip: no gcc"; exit 77; }

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

gcc -std=gnu11 -O2 -D N=20000 -Irt -o "$tmp/triad" examples/run/triad.c \
	"$lib" -lm || fail "compiling examples/run/triad.c"

# By hand: a summary naming the region, TSC ticks (never "cycles" alone).
LK_REPETITIONS=5 LK_EVENTS=task-clock,cycles "$tmp/triad" >"$tmp/summary" ||
	fail "by-hand run exited $?"
grep -q '^region triad: [0-9]* steps/sample, 5 samples$' "$tmp/summary" ||
	fail "no region line in summary: $(cat "$tmp/summary")"
grep -q 'tsc ticks/step *min [0-9.]* *median [0-9.]*$' "$tmp/summary" ||
	fail "no tsc ticks line"
grep -q 'cycles/step (tsc-calibrated) *median [0-9.]*' "$tmp/summary" ||
	fail "no calibrated cycles line"
grep -q 'task-clock/step *median [0-9.]*$' "$tmp/summary" ||
	fail "no task-clock line"
grep -q 'cycles/step *\(median [0-9.]*\|not supported (E[A-Z]*)\)$' \
	"$tmp/summary" || fail "cycles neither counted nor unsupported"

# The protocol: version first, end last, as many sample lines as it says.
LK_RESULT_FD=3 LK_REPETITIONS=7 "$tmp/triad" 3>"$tmp/proto" >"$tmp/stdout" ||
	fail "protocol run exited $?"
[ -s "$tmp/stdout" ] && fail "protocol run wrote to stdout"
[ "$(head -n 1 "$tmp/proto")" = "lkrt version=1" ] ||
	fail "first line: $(head -n 1 "$tmp/proto")"
last=$(tail -n 1 "$tmp/proto")
case $last in
"end samples="*) n=${last#end samples=} ;;
*) fail "last line: $last" ;;
esac
[ "$n" = 7 ] || fail "end says $n samples, want 7"
[ "$(grep -c '^sample region=triad ' "$tmp/proto")" = "$n" ] ||
	fail "sample lines do not match end samples=$n"
grep -q '^info tsc_hz=[0-9]* ' "$tmp/proto" || fail "no info tsc_hz"
grep -q '^info region=triad steps=[0-9]* roi_addr=0x[0-9a-f]*$' \
	"$tmp/proto" || fail "no region info line"
grep -q '^overhead region=triad tsc_min=[0-9]* ' "$tmp/proto" ||
	fail "no overhead line"

# A fatal runtime problem: an error line, status 3, and no end.
LK_RESULT_FD=3 LK_CPU=100000 "$tmp/triad" 3>"$tmp/err"
[ $? = 3 ] || fail "refused pinning did not exit 3"
grep -q '^error msg=' "$tmp/err" || fail "no error line"
grep -q '^end ' "$tmp/err" && fail "end line after a fatal error"
exit 0
