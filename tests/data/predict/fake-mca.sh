#!/bin/sh
# A stand-in for llvm-mca in the unit tests: reads the batch file, prints
# one region per "# LLVM-MCA-BEGIN" with Total Cycles = instructions x
# iterations + 7 (so differencing gives the instruction count exactly).
# A line "bogus ..." is a parse error naming its line; "vcrash" anywhere
# kills the run with no line named (the predictor must bisect); "vslow"
# sleeps past any timeout.
iters=100
for a in "$@"; do
	case $a in
	-iterations=*) iters=${a#-iterations=} ;;
	-*) ;;
	*) file=$a ;;
	esac
done
grep -q vcrash "$file" && { echo "Stack dump:" >&2; kill -SEGV $$; }
grep -q vslow "$file" && sleep 30
out=$(awk -v it="$iters" -v f="$file" '
/^bogus/ { printf "%s:%d:1: error: invalid instruction mnemonic '\''bogus'\''\n%s\n^\n", f, NR, $0 > "/dev/stderr"; bad = 1 }
/^# LLVM-MCA-BEGIN/ { name = $3; n = 0; next }
/^# LLVM-MCA-END/ { printf "[%d] Code Region - %s\n\nIterations:        %d\nTotal Cycles:      %d\n\n", k++, name, it, n * it + 7; next }
/^[0-9]+:$/ || /^#/ { next }
{ n++ }
END { if (bad) exit 1 }' "$file")
rc=$?
printf '%s\n' "$out"
exit $rc
