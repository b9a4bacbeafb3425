"""Loops of a function from `loopkit blocks --json` on stdin: prints
"<back edges> <loops>". A back edge goes, in a depth-first walk from the
entry, to a block still on the walk's path (an edge to a lower address
is not one by itself: gcc places a call's slow path after the loop and
jumps back into the body); a loop is a block such edges enter, so a loop
with two latches is one loop and two back edges. Unreachable blocks
(padding) do not count. Also a module: count(successors, entry)."""
import json
import sys


def count(succ, entry):
    """succ: block -> its successor blocks (others are exits)."""
    state = {entry: 1}          # 1 on the path, 2 done
    back, headers = 0, set()
    stack = [(entry, iter(succ[entry]))]
    while stack:
        node, it = stack[-1]
        nxt = next(it, None)
        if nxt is None:
            state[node] = 2
            stack.pop()
        elif nxt not in succ:
            continue
        elif state.get(nxt) == 1:
            back += 1
            headers.add(nxt)
        elif nxt not in state:
            state[nxt] = 1
            stack.append((nxt, iter(succ[nxt])))
    return back, len(headers)


if __name__ == "__main__":
    blocks = json.load(sys.stdin)
    succ = {int(b["start"], 16): [int(s, 16) for s in b["successors"]]
            for b in blocks}
    print(*count(succ, min(succ)))
