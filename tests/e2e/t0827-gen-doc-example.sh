# The campaign file of doc/loopkit-campaign.md, as printed there, loads
# and its gen section generates: [original, isl+tile,sizes=8x8] is two
# chains (YAML splits the flow list at the comma; the item 'sizes=8x8'
# continues the chain before it).
# e2e: shares the machine
. tests/e2e/lib.sh
cd "$TMPD"
mkdir -p examples/campaign
ln -s "$SRC/kernels" kernels
awk '/^## The campaign file/ { on = 1 } on && /^```yaml/ { y = 1; next }
	y && /^```/ { exit } y { print }' "$SRC/doc/loopkit-campaign.md" \
	>examples/campaign/doc.yaml
grep -q '^gen:' examples/campaign/doc.yaml ||
	{ cat examples/campaign/doc.yaml; fail "the doc's example found"; }
"$LOOPKIT" gen -q -c examples/campaign/doc.yaml --no-build >units 2>err ||
	{ cat units err; fail "gen -c on the doc's example"; }
[ "$(wc -l <units)" -eq 4 ] || { cat units; fail "2 kernels x 2 chains"; }
for k in gemm trisolv; do
	for t in original 'isl+tile,sizes=8x8'; do
		grep -q "^$k  *generated  *$t\$" units ||
			{ cat units; fail "$k $t generated"; }
	done
done
# One variant per unit x compiler x flag set.
n=$(sqlite3 loopkit.d/store.db "select count(*) from variants")
[ "$n" -eq 16 ] || fail "16 variants, got $n"
exit 0
