"""Statistics the end-to-end tests check loopkit's figures against,
computed the textbook way (PYTHONPATH="$E2E_DIR" python3 ...)."""
import math


def taub(x, y):
    """Kendall's tau-b of two equal-length sequences, ties in either
    counted as the textbook's tau-b does."""
    c = d = tx = ty = 0
    for i in range(len(x)):
        for j in range(i + 1, len(x)):
            dx, dy = x[i] - x[j], y[i] - y[j]
            tx += dx == 0
            ty += dy == 0
            if dx and dy:
                c, d = (c + 1, d) if dx * dy > 0 else (c, d + 1)
    n0 = len(x) * (len(x) - 1) / 2
    return (c - d) / math.sqrt((n0 - tx) * (n0 - ty))
