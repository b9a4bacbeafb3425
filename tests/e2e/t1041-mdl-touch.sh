# A level is the bytes of the lines a loop touches, on both sides
# (doc/loopkit-mdl.md, "Levels"): the replay of a column walk (one
# 8-byte load every 3,200 bytes beside a unit-stride store) and the
# benchmark concretised from the same MDL are simulated from the tables
# their C files hold (pointer of call c = origin + (c % blocks) x step
# + lane(c / blocks) x lane_step): over a sweep, the distinct lines they
# touch make the working set asked for (within 15 %). A large working
# set uses every lane, and what it allocates stays within 2x of it; a
# small one, whose calls would be too short to reach every lane, spans
# at most one call's stride x trips more. Before, the far stream's span
# made the level and it touched 1/50 of it.
. tests/e2e/lib.sh
command -v python3 >/dev/null || skip "python3 not installed"
command -v cc >/dev/null || skip "no C compiler to assemble with"
A=$(pwd)/tests/data/mdl/asm
cd "$TMPD"

cat >sim.py <<'PY'
import re, sys

def tables(text):
    t = {}
    for name, body in re.findall(r"static const (?:long|int) (\w+)\[\w+ \+ 1\] = \{([^}]*)\}", text):
        t[name] = [int(v.strip().rstrip("L")) for v in body.split(",") if v.strip()][:-1]
    for name, v in re.findall(r"#define (\w+) (-?\d+)L?\n", text):
        t[name] = int(v)
    return t

def lane(i, n):
    h = (n + 1) // 2
    return 2 * i if i < h else 2 * (i - h) + 1

# sim.py FILE.c KIND BYTES STRIDES ACCESSES: KIND rp or mdl; STRIDES
# per stream (bytes per call iteration), comma-separated; per stream the
# accesses as off:size, comma-separated, streams separated by '/'.
path, kind, want = sys.argv[1], sys.argv[2], int(sys.argv[3])
strides = [int(s) for s in sys.argv[4].split(",")]
accs = [[tuple(int(x) for x in a.split(":")) for a in s.split(",")]
        for s in sys.argv[5].split("/")]
t = tables(open(path).read())
p = kind + "_"
chunks = t["RP_CHUNKS"] if kind == "rp" else t["MDL_CHUNKS"]
trips = int(re.search(r"trips=(\d+)", open(path).read()).group(1))
n = len(strides)
# a file without lanes walks its chunks straight on
for k, v in (("blocks", chunks), ("lanes", 1), ("lane_step", 0)):
    t.setdefault(p + k, [v] * n)
lines = set()
for c in range(chunks):
    for g in range(n):
        blocks = t[p + "blocks"][g]
        base = (t[p + "origin"][g] + (c % blocks) * t[p + "chunk_step"][g] +
                lane(c // blocks, t[p + "lanes"][g]) * t[p + "lane_step"][g])
        if base < 0 or base > t[p + "alloc"][g]:
            sys.exit("stream %d: base %d outside its %d bytes" % (g, base, t[p + "alloc"][g]))
        for i in range(trips):
            for off, size in accs[g]:
                a = base + i * strides[g] + off
                if a < 0 or a + size > t[p + "alloc"][g]:
                    sys.exit("stream %d: access at %d outside its %d bytes" % (g, a, t[p + "alloc"][g]))
                for l in range(a // 64, (a + size - 1) // 64 + 1):
                    lines.add((g, l))
touched = 64 * len(lines)
alloc = sum(t[p + "alloc"])
call = trips * sum(abs(s) for s in strides)
print("%s: %d bytes asked, %d touched (%d lines), %d allocated, %d chunks" %
      (path, want, touched, len(lines), alloc, chunks))
assert 0.85 * want <= touched <= 1.15 * want, (touched, want)
if want >= 1 << 24:
    # every lane of the column (1 + (3200 - 8 - 63) / 64 = 49) in use
    assert max(t[p + "lanes"]) == 49, t[p + "lanes"]
    assert alloc <= 2 * want, (alloc, want)
else:
    assert alloc <= 2 * want + call, (alloc, want, call)
PY

# The replay: streams in the order of their first access (%rsi, %rdi).
for bytes in 65536 16777216; do
	"$LOOPKIT" mdl replay "$A/column.s" --level RAM --bytes $bytes \
		--dry-run >col.$bytes.c || fail "replay --dry-run exited $?"
	grep -q 'static const int rp_reg\[RP_GROUPS + 1\] = {6, 7, 0};' \
		col.$bytes.c || fail "streams: $(grep rp_reg col.$bytes.c)"
	python3 sim.py col.$bytes.c rp $bytes 3200,8 0:8/0:8 ||
		fail "replay at $bytes bytes"
done

# The concretised benchmark of the same loop (unroll 4: each asm
# iteration four loads 3,200 bytes apart, 32 bytes of stores).
cat >column.mdl <<'MDL'
MDL 1
Meta:
  what = "a column walk beside a unit-stride store"
Data:
  flow a
  flow b
  scalar n = 4096
Body:
Trip: n
I/O: In: a n*3200 Out: b n*8
LoopBody:
  In:  a Stride: 3200 Offset: 0 Size: 8
  Out: b Stride: 8 Offset: 0 Size: 8
  Add: 1 Mul: 0
MDL
for bytes in 65536 16777216; do
	"$LOOPKIT" mdl concretize column.mdl --isa scalar --unroll 4 \
		--bytes $bytes -o cz.$bytes.c || fail "concretize exited $?"
	python3 sim.py cz.$bytes.c mdl $bytes 12800,32 \
		0:8,3200:8,6400:8,9600:8/0:32 || fail "concretize at $bytes bytes"
done
