# pngcheck.py SHOT.png [N]: the report's plots rendered on a screenshot.
# Decodes the PNG with the standard library only and counts the pixels of
# the two series colours (#0072b2 and #d55e00, used nowhere else on the
# page): each must cover more than N pixels (default 300), and the page
# must have more than 50 distinct colours.
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n"
pos, idat = 8, b""
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
assert depth == 8 and ctype in (2, 6), (depth, ctype)
bpp = 3 if ctype == 2 else 4
raw = zlib.decompress(idat)
stride = w * bpp
prev = bytearray(stride)
counts = {"blue": 0, "orange": 0}
colours = set()
for y in range(h):
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
            line[i] = (line[i] + pr) & 255
    for x in range(0, stride, bpp):
        r, g, bl = line[x], line[x + 1], line[x + 2]
        colours.add((r, g, bl))
        if abs(r - 0x00) < 40 and abs(g - 0x72) < 40 and abs(bl - 0xb2) < 40:
            counts["blue"] += 1
        if abs(r - 0xd5) < 40 and abs(g - 0x5e) < 40 and abs(bl - 0x00) < 40:
            counts["orange"] += 1
    prev = line
print("pixels:", counts, "colours:", len(colours))
need = int(sys.argv[2]) if len(sys.argv) > 2 else 300
assert counts["blue"] > need and counts["orange"] > need, counts
assert len(colours) > 50, len(colours)
