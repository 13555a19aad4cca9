# BUILD_LOG: the output of `atoll docs` with each line prefixed by the seconds since the start
# (e.g. piped through a timestamper); the pool's lines `atoll: [k/N] spec: configuration (s)`.
"""Makespan of the pool on 2 idle cores from the tasks' CPU seconds
(timings.json), for an order: list scheduling (each free process takes the
next task)."""
import heapq, json, sys
t = json.load(open(sys.argv[1]))
def makespan(durs, k=2):
    free = [0.0] * k
    for d in durs:
        s = heapq.heappop(free); heapq.heappush(free, s + d)
    return max(free)
cpu = sum(t.values())
longest = sorted(t.values(), reverse=True)
import random
print(f"tasks {len(t)}, CPU {cpu:.1f} s, CPU/2 {cpu/2:.1f} s, longest task {longest[0]:.1f} s")
print(f"longest first (the timings' order): {makespan(longest):.1f} s")
print(f"shortest first (the worst order): {makespan(sorted(t.values())):.1f} s")
r = random.Random(0)
ms = []
for _ in range(1000):
    d = list(t.values()); r.shuffle(d); ms.append(makespan(d))
ms.sort()
print(f"random orders: median {ms[500]:.1f}, worst {ms[-1]:.1f} s")
if len(sys.argv) > 2:   # the order of the run: the log's lines
    pass
import re
if len(sys.argv) > 2:
    starts = []
    for line in open(sys.argv[2]):
        m = re.match(r"\s*([\d.]+) atoll: \[\d+/\d+\] (\S+): (.*) \(([\d.]+) s\)$", line)
        if m:
            end, spec, label, wall = float(m[1]), m[2], m[3], float(m[4])
            starts.append((end - wall, spec, label))
    starts.sort()
    def find(spec, label):
        for k, v in t.items():
            path, _, rest = k.partition(" ")
            if not path.endswith("/" + spec):
                continue
            if label == "examples":
                if rest == "examples": return v
                continue
            n = int(label.split(" ")[0])
            opts = dict(p.split("=", 1) for p in label.split(", ")[1:]) if ", " in label else {}
            if not rest.startswith(f"{n} "): continue
            js = json.loads(rest.split(" ", 1)[1])
            if {a: str(b) for a, b in js.items()} == opts: return v
        raise KeyError((spec, label))
    durs = [find(s, l) for _, s, l in starts]
    print(f"the run's own order (tasks by their start): {makespan(durs):.1f} s on 2 idle cores")
    print("first ten:", [f"{s}:{l[:30]}" for _, s, l in starts[:10]])
