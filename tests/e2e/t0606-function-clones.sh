# --function NAME finds gcc's one clone of a static function it
# specialised (NAME.constprop.0, NAME.isra.0, NAME.part.0), never its
# .cold split; with several clones the error names them all (exit 2).
# e2e: shares the machine
. tests/e2e/lib.sh
cd "$TMPD"
cat >k.c <<'EOF2'
__attribute__((noinline)) static void scale(double *a, double s, long n)
{
	for (long i = 0; i < n; i++)
		a[i] *= s;
}
void run(double *a) { scale(a, 3.0, 1000); }
EOF2
gcc -O2 -c k.c -o k.o || fail "gcc"
clone=$(nm k.o | awk '$3 ~ /^scale\./ { print $3 }')
case $clone in scale.*) ;; *) skip "gcc made no clone of scale here ($clone)";; esac
"$LOOPKIT" blocks k.o --function scale >out 2>err || fail "blocks: $(cat err)"
grep -q "^function $clone " out || fail "not the clone: $(head -1 out)"
"$LOOPKIT" mdl extract k.o --function scale --json >x.json 2>err ||
	fail "mdl extract: $(cat err)"
grep -q '"status": "ok"' x.json || fail "extract: $(cat x.json)"
# Two clones of one name, and a .cold part alone: names, not a guess.
cat >two.s <<'EOF2'
	.text
	.type f.isra.0, @function
f.isra.0:
	ret
	.size f.isra.0, .-f.isra.0
	.type f.constprop.0, @function
f.constprop.0:
	ret
	.size f.constprop.0, .-f.constprop.0
	.type g.cold, @function
g.cold:
	ret
	.size g.cold, .-g.cold
EOF2
gcc -c two.s -o two.o || fail "as"
set +e
"$LOOPKIT" blocks two.o --function f >/dev/null 2>err; rc=$?
set -e
[ $rc = 2 ] || fail "two clones exited $rc"
grep -q "no function 'f' in the symbol table, but 2 clones of it: f.isra.0, f.constprop.0 (name one)" err ||
	fail "two clones: $(cat err)"
set +e
"$LOOPKIT" blocks two.o --function g >/dev/null 2>err; rc=$?
set -e
[ $rc = 2 ] && grep -q "no function 'g' in the symbol table" err ||
	fail "a .cold part taken for the function: rc $rc $(cat err)"
echo ok
