#!/bin/sh
# A stand-in for an external predictor (uiCA, OSACA, ...): prints the
# number of instruction lines of the file it is given as "Throughput",
# and whether the IACA markers are there. Second argument: the arch.
# An empty file or arch "FAIL" makes it fail.
file=$1
[ "${2:-}" = FAIL ] && { echo "error: unknown arch" >&2; exit 3; }
markers=no
grep -q '^\.byte 0x64, 0x67, 0x90$' "$file" && markers=yes
n=$(grep -v -e '^\.byte' -e '^movl \$111, %ebx$' \
	-e '^movl \$222, %ebx$' -e '^[0-9]*:$' \
	-e '^#' "$file" | grep -c .)
echo "arch: ${2:-none}"
echo "markers: $markers"
echo "Throughput: $n"
