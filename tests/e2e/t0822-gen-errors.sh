# Malformed input to the generator: one clear line naming file and line,
# exit 2, nothing stored.
# e2e: shares the machine
. tests/e2e/lib.sh
cd "$TMPD"
cp "$SRC"/tests/data/gen/conv2d.c "$SRC"/tests/data/gen/checksum.h .
expect() { # PATTERN COMMAND...
	pat=$1; shift
	set +e
	"$@" >out 2>err; rc=$?
	set -e
	[ $rc -eq 2 ] || { cat err; fail "$*: exit 2, got $rc"; }
	[ "$(wc -l <err)" -eq 1 ] || { cat err; fail "$*: one line"; }
	grep -q "^loopkit: error: $pat" err || { cat err; fail "$*: $pat"; }
}
sed 's/A\[i - 1\]\[j - 1\]/A[i * j][j - 1]/' conv2d.c >nonaffine.c
expect "nonaffine.c:23: unsupported non-affine subscript A\[i \* j\]" \
	"$LOOPKIT" gen nonaffine.c
grep -v 'pragma endscop' conv2d.c >unbalanced.c
expect "unbalanced.c:20: unbalanced #pragma scop" "$LOOPKIT" gen unbalanced.c
expect "--transform: unknown transformation 'tilr' (did you mean 'tile'?)" \
	"$LOOPKIT" gen conv2d.c -t tilr
printf 'sources: [conv2d.c]\ngen:\n  transformations:\n    - original\n    - tile,sizes=4x4+unrol\n' >bad.yaml
expect "bad.yaml:5: unknown transformation 'unrol' (did you mean 'unroll'?)" \
	"$LOOPKIT" gen -c bad.yaml
[ ! -e loopkit.d ] || fail "something was stored"
printf 'sources: [nonaffine.c]\ngen:\n  transformations: [original]\n' >na.yaml
"$LOOPKIT" gen -q -c na.yaml >units || fail "an unsupported kernel is a unit outcome"
grep -q "unsupported.*non-affine subscript" units || { cat units; fail "reason"; }
n=$(sqlite3 loopkit.d/store.db "select count(*) from variants")
[ "$n" -eq 0 ] || fail "variants stored for an unsupported kernel"
exit 0
