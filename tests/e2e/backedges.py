"""Back edges of a function from `loopkit blocks --json` on stdin: edges
to a block at a lower or equal address. Prints their count."""
import json
import sys

blocks = json.load(sys.stdin)
print(sum(1 for b in blocks for s in b["successors"]
          if int(s, 16) <= int(b["start"], 16)))
