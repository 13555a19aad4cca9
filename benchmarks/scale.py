"""Memory and scale (issue 15, item 5): peak memory of a long simulation and
of a verification matrix, how `simulate` time grows with -n, and how the
matrix time grows with the number of option axes.

Each measurement runs the `atoll` command in a child process; its peak
memory is sampled every 0.1 s over the child and all its descendants (the
matrix's worker processes), summed (psutil; without it, only the largest
single process, from getrusage). Times are wall-clock seconds, so they
depend on the machine's load: the load average is printed with them.

    python benchmarks/scale.py                    # everything (long: a 20,000-game run)
    python benchmarks/scale.py --sim-games 2000   # a shorter simulation
    python benchmarks/scale.py --only simulate    # or: memory, growth, matrix, axes
    python benchmarks/scale.py --json
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _tree_rss(proc) -> int:
    try:
        import psutil
    except ImportError:
        return 0
    try:
        p = psutil.Process(proc.pid)
        procs = [p] + p.children(recursive=True)
    except psutil.Error:
        return 0
    total = 0
    for q in procs:
        try:
            total += q.memory_info().rss
        except psutil.Error:
            pass
    return total


def measure(args: list, cwd=ROOT) -> dict:
    """Run ``python -m atoll.cli ARGS``: wall seconds, peak memory (MB) of
    the process tree, the exit status and the output."""
    import resource
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "atoll.cli", *args], cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    peak = 0
    out_chunks = []
    import threading
    reader = threading.Thread(target=lambda: out_chunks.append(proc.stdout.read()))
    reader.start()
    while proc.poll() is None:
        peak = max(peak, _tree_rss(proc))
        time.sleep(0.1)
    reader.join()
    seconds = time.perf_counter() - t0
    largest = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return {"seconds": round(seconds, 2), "peak_mb": round(peak / 2**20, 1) if peak else None,
            "largest_process_mb": round(max(largest, before) / 1024, 1), "exit": proc.returncode,
            "output": "".join(out_chunks), "load": os.getloadavg()}


def simulate(spec: str, n: int, players: int) -> dict:
    m = measure(["simulate", spec, "-n", str(n), "--players", str(players), "--json"])
    m.pop("output")
    m["games"] = n
    return m


def growth(spec: str, ns: list, players: int) -> dict:
    """Time and memory of simulate for each n, and a least-squares line t = a + b n."""
    rows = [simulate(spec, n, players) for n in ns]
    xs, ys = [r["games"] for r in rows], [r["seconds"] for r in rows]
    k = len(xs)
    mx, my = sum(xs) / k, sum(ys) / k
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    a = my - b * mx
    ss_res = sum((y - (a + b * x)) ** 2 for x, y in zip(xs, ys))
    ss_tot = sum((y - my) ** 2 for y in ys) or 1.0
    return {"spec": spec, "players": players, "runs": rows,
            "fit": {"start_s": round(a, 3), "ms_per_game": round(1000 * b, 3),
                    "r2": round(1 - ss_res / ss_tot, 4)},
            "per_game_ms": [round(1000 * r["seconds"] / r["games"], 3) for r in rows]}


def matrix(spec: str, games: int, extra=()) -> dict:
    m = measure(["verify", spec, "--matrix", "--json", "--games", str(games), *extra])
    try:
        results = json.loads(m.pop("output"))["results"]
    except (ValueError, KeyError):
        results = []
    configs = {(r["players"], json.dumps(r["options"], sort_keys=True)) for r in results
               if r["kind"] != "example"}
    m.update({"spec": spec, "games": games, "configurations": len(configs),
              "results": len(results),
              "shared": sum("(shared)" in r["method"] for r in results),
              "as_expected": sum(bool(r.get("ok")) for r in results)})
    return m


def axes(spec: str, games: int) -> list:
    """The matrix of ``spec`` with 0, 1, 2... of its `modes` axes, each in a
    copy of the spec's folder."""
    text = (ROOT / spec).read_text(encoding="utf-8")
    found = re.search(r'modes:\s*"([^"]*)"', text)
    names = [a.strip() for a in found.group(1).split(",") if a.strip()]
    out = []
    with tempfile.TemporaryDirectory(prefix="atoll-axes-") as d:
        folder = Path(d) / "spec"
        shutil.copytree(ROOT / Path(spec).parent, folder)
        for k in range(len(names) + 1):
            copy = folder / Path(spec).name
            copy.write_text(text[:found.start(1)] + ", ".join(names[:k]) + text[found.end(1):],
                            encoding="utf-8")
            row = matrix(str(copy), games)
            row["spec"], row["axes"] = spec, names[:k]
            out.append(row)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--only", choices=["simulate", "growth", "matrix", "axes"], action="append")
    ap.add_argument("--sim-spec", default="spec/masterislands.atoll")
    ap.add_argument("--sim-players", type=int, default=4)
    ap.add_argument("--sim-games", type=int, default=20_000)
    ap.add_argument("--growth", default="500,1000,2000,4000",
                    help="the -n values of the growth runs (comma-separated)")
    ap.add_argument("--matrix-spec", default="spec/kanaloa.atoll")
    ap.add_argument("--matrix-games", type=int, default=100)
    ap.add_argument("--axes-games", type=int, default=20,
                    help="games per property in the runs over the number of axes (default 20)")
    a = ap.parse_args(argv)
    only = set(a.only or ["simulate", "growth", "matrix", "axes"])
    report: dict = {"cpus": os.cpu_count()}

    def log(msg):
        print(f"[scale] {msg} (load {os.getloadavg()[0]:.1f})", file=sys.stderr, flush=True)
    if "simulate" in only:
        log(f"simulate {a.sim_spec} -n {a.sim_games}")
        report["simulate"] = simulate(a.sim_spec, a.sim_games, a.sim_players)
    if "growth" in only:
        ns = [int(x) for x in a.growth.split(",")]
        log(f"simulate growth over -n {ns}")
        report["growth"] = growth(a.sim_spec, ns, a.sim_players)
    if "matrix" in only:
        log(f"verify {a.matrix_spec} --matrix")
        report["matrix"] = matrix(a.matrix_spec, a.matrix_games)
    if "axes" in only:
        log(f"verify {a.matrix_spec} --matrix over 0.. of its axes")
        report["axes"] = axes(a.matrix_spec, a.axes_games)
    if a.json:
        print(json.dumps(report, indent=2))
        return 0
    if "simulate" in report:
        s = report["simulate"]
        print(f"simulate {a.sim_spec} -n {s['games']} ({a.sim_players} players): {s['seconds']} s, "
              f"peak {s['peak_mb']} MB (load {s['load'][0]:.1f})")
    if "growth" in report:
        g = report["growth"]
        for r, per in zip(g["runs"], g["per_game_ms"]):
            print(f"  -n {r['games']:>6}: {r['seconds']:>7} s  {per} ms/game  peak {r['peak_mb']} MB")
        print(f"  fit: {g['fit']}")
    if "matrix" in report:
        m = report["matrix"]
        print(f"verify {m['spec']} --matrix: {m['seconds']} s, peak {m['peak_mb']} MB (all processes), "
              f"largest process {m['largest_process_mb']} MB, {m['results']} results, "
              f"{m['shared']} shared (load {m['load'][0]:.1f})")
    for r in report.get("axes", []):
        print(f"  axes {r['axes']}: {r['configurations']} configurations, {r['seconds']} s, "
              f"{r['results']} results, {r['shared']} shared")
    return 0


if __name__ == "__main__":
    sys.exit(main())
