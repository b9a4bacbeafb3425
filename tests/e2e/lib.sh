# Helpers for the end-to-end tests (sourced).
set -eu
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "$*"; exit 77; }
# check DESCRIPTION COMMAND...: run, fail with the description if false.
check() { d=$1; shift; "$@" || fail "$d"; }
# The value of column $2 in the first CSV row of file $1 whose metric is $3.
# Numbers are compared with awk: expr 'a < b' etc.
num_ok() { awk "BEGIN { exit !($1) }"; }
has_pmu() { "$LOOPKIT" check | grep -q '^pmu  *yes'; }
