# gen -c remembers each unit's outcome under the hash of its inputs: the
# flags that reach the front end and the verification are inputs, so a
# failure for a missing header is not remembered past the -I that fixes
# it; --retry-failed (gen -c and campaign) generates failed units again.
# e2e: shares the machine
. tests/e2e/lib.sh
cd "$TMPD"
mkdir src inc
cp "$SRC"/tests/data/gen/conv2d.c src/
cp "$SRC"/tests/data/gen/checksum.h inc/
campaign() {
	cat >camp.yaml <<YAML
name: keys
sources: [src/conv2d.c]
flags:
  O2: -O2 $1
defines:
  MINI_DATASET: [""]
gen:
  transformations: [original]
YAML
}
campaign ""
"$LOOPKIT" gen -q -c camp.yaml --no-build >units || true
grep -q "unsupported.*checksum.h. file not found" units ||
	{ cat units; fail "a missing header fails the unit"; }
# The header is found with -I: the unit is generated, not stored-earlier.
campaign "-I$TMPD/inc"
"$LOOPKIT" gen -q -c camp.yaml --no-build >units ||
	{ cat units; fail "gen -c with -I"; }
grep -q '^conv2d  *generated  *original$' units ||
	{ cat units; fail "-I in flags: generated again"; }
# Back to the flags that fail: that outcome is stored under its own key.
campaign ""
"$LOOPKIT" gen -q -c camp.yaml --no-build >units || true
grep -q "file not found" units || { cat units; fail "stored fail"; }
# The header appears beside the source: same inputs, but --retry-failed
# generates again (gen -c, and campaign's gen stage).
cp inc/checksum.h src/
"$LOOPKIT" gen -q -c camp.yaml --no-build >units || true
grep -q "file not found" units || { cat units; fail "without --retry-failed"; }
"$LOOPKIT" gen -q -c camp.yaml --no-build --retry-failed >units ||
	{ cat units; fail "gen -c --retry-failed"; }
grep -q '^conv2d  *generated' units || { cat units; fail "retried"; }
# campaign --retry-failed: a fresh failure in another store, then fixed.
rm src/checksum.h
"$LOOPKIT" campaign -q -c camp.yaml -o c2 --only gen >log 2>&1 && true
grep -q "file not found" log || { cat log; fail "campaign gen fails"; }
cp inc/checksum.h src/
"$LOOPKIT" campaign -q -c camp.yaml -o c2 --only gen >log 2>&1 && true
grep -q "file not found" log || { cat log; fail "campaign: remembered"; }
"$LOOPKIT" campaign -q -c camp.yaml -o c2 --only gen --retry-failed \
	>log 2>&1 || { cat log; fail "campaign --retry-failed"; }
grep -q "1 generated" log || { cat log; fail "campaign retried gen"; }
exit 0
