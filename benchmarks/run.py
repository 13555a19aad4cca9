"""Atoll benchmarks: speed of the compiled games, MasterIslands against a
hand-written implementation, compile time per spec, time per verified property.

    python benchmarks/run.py            # the full run (about two minutes; under 5)
    python benchmarks/run.py --quick    # fewer games, compiles and repetitions (about a minute)
    python benchmarks/run.py --json     # one JSON object on stdout
    python benchmarks/run.py --check    # first play both MasterIslands side by side

Every game under spec/ (``spec/*.atoll``; variants live in spec/variants/)
is played for each player count of its declared range and verified with
the default options; every spec, variants included, is compiled.

Numbers are measured in this one process, as rates and ratios; nothing here
is a pass/fail test of speed. Random play: every legal action equally likely,
``random.Random(seed)`` per game, seeds 0, 1, 2, ... (fixed); chance is the
model's own seeded stream (``chance="auto"``). Progress goes to stderr.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import atoll  # noqa: E402
from atoll.compiler import pipeline  # noqa: E402
import handwritten_masterislands as hand  # noqa: E402
from atoll.compiler.playout import play_random  # noqa: E402

SPEC_DIR = ROOT / "spec"
MASTERISLANDS = SPEC_DIR / "masterislands.atoll"


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- random play

def play_model(game, seed: int) -> int:
    """One random game of a compiled model on the lean playout path that
    ``atoll simulate`` uses (the same game as choosing uniformly among
    ``legal_actions()``); returns its number of actions."""
    return play_random(game, seed)[1]


def play_model_actions(game, seed: int) -> int:
    """The same game through ``legal_actions()``/``apply_action`` (Action objects)."""
    st = game.new_initial_state(seed=seed)
    rng = random.Random(seed)
    steps = 0
    while not st.is_terminal():
        legal = st.legal_actions()
        st.apply_action(legal[rng.randrange(len(legal))])
        steps += 1
    return steps


def play_openspiel(game, seed: int) -> int:
    """One random game through the OpenSpiel adapter (a ``pyspiel`` game):
    decisions uniformly among ``legal_actions()``, chance nodes by their
    ``chance_outcomes()``; returns its number of decisions."""
    rng = random.Random(seed)
    st = game.new_initial_state()
    steps = 0
    while not st.is_terminal():
        if st.is_chance_node():
            r, acc = rng.random(), 0.0
            outcomes = st.chance_outcomes()
            for a, p in outcomes:
                acc += p
                if r < acc:
                    break
            st.apply_action(a)
        else:
            legal = st.legal_actions()
            st.apply_action(legal[rng.randrange(len(legal))])
            steps += 1
    return steps


def play_pettingzoo(env, seed: int) -> int:
    """One random game through the PettingZoo adapter, as PettingZoo's own
    loop plays it: ``agent_iter()``, ``last()`` (the agent's observation:
    its vector and its action mask) and ``step``, a slot picked uniformly
    among those the mask allows; returns its number of decisions."""
    rng = random.Random(seed)
    env.reset(seed=seed)
    steps = 0
    for _agent in env.agent_iter():
        obs, _reward, termination, truncation, _info = env.last()
        if termination or truncation:
            action = None
        else:
            slots = obs["action_mask"].nonzero()[0]
            action = int(slots[rng.randrange(len(slots))])
            steps += 1
        env.step(action)
    return steps


def play_hand(players: int, seed: int) -> int:
    """One random game of the hand-written MasterIslands, the same policy."""
    return hand.play_random(players, seed)[1]


def measure(play, seeds, budget_s: float) -> dict:
    """Play the games of ``seeds`` in order (stopping early past ``budget_s``)."""
    t0 = time.perf_counter()
    games = actions = 0
    for s in seeds:
        actions += play(s)
        games += 1
        if time.perf_counter() - t0 > budget_s:
            break
    dt = time.perf_counter() - t0
    return {"games": games, "actions": actions, "seconds": dt}


def rates(m: dict) -> dict:
    return {"playouts_per_s": m["games"] / m["seconds"], "actions_per_s": m["actions"] / m["seconds"],
            "avg_length": m["actions"] / m["games"], "games": m["games"], "seconds": m["seconds"]}


def game_specs() -> list[Path]:
    """The shipped games (variants are in spec/variants/)."""
    return sorted(SPEC_DIR.glob("*.atoll"))


def bench_games(n_games: int, total_budget_s: float, budget_cap_s: float) -> dict:
    """Random playouts of every game and player count. The time allowed is
    shared between all (game, player count) sets, at most ``budget_cap_s``
    each, so that more games do not make the run longer than the total."""
    comps = {spec: atoll.compile_spec(spec) for spec in game_specs()}
    sets = sum(c.program.player_range[1] - c.program.player_range[0] + 1 for c in comps.values())
    budget_s = min(budget_cap_s, total_budget_s / max(1, sets))
    out = {}
    for spec, comp in comps.items():
        lo, hi = comp.program.player_range
        per = {}
        for n in range(lo, hi + 1):
            game = pipeline.instantiate(comp, n)
            play_model(game, 0)                      # warm up
            m = measure(lambda s: play_model(game, s), range(n_games), budget_s)
            per[n] = rates(m)
            log(f"  {spec.stem} {n} players: {per[n]['playouts_per_s']:.1f} playouts/s")
        out[spec.stem] = {"players": per}
    return out


def bench_vs_handwritten(n_games: int, repetitions: int, block: int = 20) -> dict:
    """Compiled and hand-written MasterIslands on the same seeds, in
    alternating blocks of games so that a noisy neighbour hits both alike.
    Every block is played ``repetitions`` times by each; each block counts
    with its quickest time (the one least disturbed by other processes).
    The ratio of each repetition alone is reported beside it."""
    per = {}
    best: dict = {}   # (implementation, players, first seed) -> (games, actions, seconds)
    runs = {"compiled": [[0, 0.0] for _ in range(repetitions)],
            "handwritten": [[0, 0.0] for _ in range(repetitions)]}
    games = {n: atoll.load(str(MASTERISLANDS), players=n) for n in (2, 3, 4)}
    for n, game in games.items():
        play_model(game, 0)
        play_hand(n, 0)
    for r in range(repetitions):
        for n, game in games.items():
            for start in range(0, n_games, block):
                seeds = range(start, min(start + block, n_games))
                for name, fn in (("compiled", lambda s: play_model(game, s)),
                                 ("handwritten", lambda s: play_hand(n, s))):
                    m = measure(fn, seeds, float("inf"))
                    key = (name, n, start)
                    if key not in best or m["seconds"] < best[key][2]:
                        best[key] = (m["games"], m["actions"], m["seconds"])
                    runs[name][r][0] += m["games"]
                    runs[name][r][1] += m["seconds"]
    tot = {"compiled": [0, 0, 0.0], "handwritten": [0, 0, 0.0]}
    for n in games:
        row = {}
        for name in ("compiled", "handwritten"):
            g = sum(v[0] for k, v in best.items() if k[0] == name and k[1] == n)
            k_ = sum(v[1] for k, v in best.items() if k[0] == name and k[1] == n)
            dt = sum(v[2] for k, v in best.items() if k[0] == name and k[1] == n)
            row[name] = {"playouts_per_s": g / dt, "actions_per_s": k_ / dt, "avg_length": k_ / g,
                         "games": g, "seconds": dt}
            for i, x in enumerate((g, k_, dt)):
                tot[name][i] += x
        row["ratio"] = row["compiled"]["playouts_per_s"] / row["handwritten"]["playouts_per_s"]
        row["ratio_actions"] = row["compiled"]["actions_per_s"] / row["handwritten"]["actions_per_s"]
        per[n] = row
        log(f"  masterislands {n} players: compiled {row['compiled']['playouts_per_s']:.1f}, "
            f"hand-written {row['handwritten']['playouts_per_s']:.1f} playouts/s, "
            f"ratio {row['ratio']:.3f}")
    overall = (tot["compiled"][0] / tot["compiled"][2]) / (tot["handwritten"][0] / tot["handwritten"][2])
    each = [(c[0] / c[1]) / (h[0] / h[1]) for c, h in zip(runs["compiled"], runs["handwritten"])]
    log(f"  ratio {overall:.3f} (each repetition: {', '.join(f'{x:.3f}' for x in each)})")
    return {"ratio": overall, "players": per, "repetitions": each}


def bench_adapters(n_games: int, repetitions: int, players: int = 2) -> dict:
    """MasterIslands (``players``) played directly (the lean path), through
    ``legal_actions()``/``apply_action``, through the OpenSpiel adapter and
    through the PettingZoo adapter, each way on the seeds 0 .. n_games-1,
    in alternating blocks (each block with its quickest time, as above);
    the ratio of each to the direct speed, in playouts per second and in
    decisions per second. The ways play games of the same seeds, but not
    the same games (the adapters number the moves otherwise, and OpenSpiel
    draws chance from the player's stream): the decisions' ratio does not
    depend on how long the games of a sample happen to be."""
    game = atoll.load(str(MASTERISLANDS), players=players)
    ways = {"direct": lambda s: play_model(game, s), "actions": lambda s: play_model_actions(game, s)}
    try:
        import pyspiel
        import atoll.openspiel as aos
        osg = pyspiel.load_game(aos.register(str(MASTERISLANDS), players=players))
        ways["openspiel"] = lambda s: play_openspiel(osg, s)
    except ImportError:
        log("  OpenSpiel is not installed: not measured")
    try:
        import atoll.pettingzoo as apz
        env = apz.env(game)
        ways["pettingzoo"] = lambda s: play_pettingzoo(env, s)
    except ImportError:
        log("  PettingZoo is not installed: not measured")
    for fn in ways.values():
        fn(0)
    best: dict = {}
    block = 10
    for _ in range(repetitions):
        for start in range(0, n_games, block):
            for name, fn in ways.items():
                m = measure(fn, range(start, min(start + block, n_games)), float("inf"))
                key = (name, start)
                if key not in best or m["seconds"] < best[key][2]:
                    best[key] = (m["games"], m["actions"], m["seconds"])
    out = {}
    for name in ways:
        g = sum(v[0] for k, v in best.items() if k[0] == name)
        d = sum(v[1] for k, v in best.items() if k[0] == name)
        dt = sum(v[2] for k, v in best.items() if k[0] == name)
        out[name] = {"playouts_per_s": g / dt, "decisions_per_s": d / dt, "games": g, "decisions": d,
                     "seconds": dt}
    for name, row in out.items():
        row["ratio_to_direct"] = row["playouts_per_s"] / out["direct"]["playouts_per_s"]
        row["ratio_per_decision"] = row["decisions_per_s"] / out["direct"]["decisions_per_s"]
        log(f"  {name}: {row['playouts_per_s']:.1f} playouts/s, {row['ratio_to_direct']:.2f} of direct "
            f"({row['ratio_per_decision']:.2f} per decision)")
    return {"players": players, "ways": out}


# ---------------------------------------------------------------- compile and verify

_COLD = r"""
import json, sys, time
t0 = time.process_time()
import atoll
from atoll.grammar import lalr
t1 = time.process_time()
w1 = time.perf_counter()
lalr.grammar()   # the parser's tables: read from the per-user cache, or built by lark
t2 = time.process_time()
specs_s = {}
for spec in json.loads(sys.argv[1]):
    t = time.process_time()
    atoll.compile_spec(spec, allow=[sys.argv[2]])   # a variant reads its base game beside it
    specs_s[spec] = time.process_time() - t
t3 = time.process_time()
print(json.dumps({"import_s": t1 - t0, "grammar_s": t2 - t1, "specs_s": specs_s,
                  "total_s": t3 - t1, "wall_s": time.perf_counter() - w1,
                  "tree": atoll.__file__}))
"""


def _cold(specs: list, env: dict | None = None) -> dict:
    """All ``specs`` compiled one after the other in a new interpreter (CPU
    seconds): the parse cache empty, the grammar's tables loaded first."""
    out = subprocess.run([sys.executable, "-c", _COLD, json.dumps([str(s) for s in specs]), str(SPEC_DIR)],
                         check=True, capture_output=True, text=True, cwd=str(ROOT),
                         env={**os.environ, **(env or {})}).stdout
    r = json.loads(out)
    r["specs_s"] = {str(Path(k).relative_to(ROOT)): v for k, v in r["specs_s"].items()}
    return r


def bench_compile(runs: int, cold_runs: int = 3) -> dict:
    """Parse + check + lower (``atoll.compile_spec``) of every spec, games and
    variants, in CPU seconds:

    * cold: all of them in a new interpreter (nothing kept: the parse cache
      empty, the parser's tables read from the per-user cache first, a
      variant's base game parsed once for it and its variants), the best of
      ``cold_runs`` interpreters; and once with no cache on disk, where lark
      builds the tables from the grammar (a first run after a grammar change);
    * warm: the median of ``runs`` compiles per spec in this process, where
      every compile after the first finds the spec's parse kept (what
      `verify --matrix`, the docs and `mutate` pay per compile).
    """
    specs = sorted(SPEC_DIR.rglob("*.atoll"))
    colds = [_cold(specs) for _ in range(cold_runs)]
    cold = min(colds, key=lambda r: r["total_s"])
    runs_ms = ", ".join(f"{r['total_s'] * 1000:.0f}" for r in colds)
    log(f"  compile, cold: {cold['total_s'] * 1000:.0f} ms CPU for all (tables {cold['grammar_s'] * 1000:.0f} ms; "
        f"runs {runs_ms} ms)")
    no_cache = _cold(specs, {"ATOLL_CACHE_DIR": ""})
    log(f"  compile, cold without the tables on disk: {no_cache['total_s'] * 1000:.0f} ms CPU "
        f"(tables built {no_cache['grammar_s'] * 1000:.0f} ms)")
    first = _cold([MASTERISLANDS])
    atoll.compile_spec(specs[0])
    warm = {}
    for spec in specs:
        times = []
        for _ in range(runs):
            t0 = time.process_time()
            atoll.compile_spec(spec, allow=[SPEC_DIR])   # a variant reads its base game beside it
            times.append(time.process_time() - t0)
        warm[str(spec.relative_to(ROOT))] = statistics.median(times)
        log(f"  compile {spec.relative_to(ROOT)}: cold {cold['specs_s'][str(spec.relative_to(ROOT))] * 1000:.0f} ms, "
            f"warm {warm[str(spec.relative_to(ROOT))] * 1000:.0f} ms")
    return {"warm": warm, "cold": cold, "cold_runs": [r["total_s"] for r in colds], "no_cache": no_cache,
            "first_masterislands": first["total_s"]}


def bench_verify(deadline: float) -> tuple[dict, dict, dict, list]:
    """Every game verified with the default options: {spec: {property:
    seconds}}, the verdicts alike, the total per spec; a spec whose turn
    comes after ``deadline`` (perf_counter) is left out and listed."""
    from atoll.verify.runner import run
    seconds, verdicts, totals, skipped = {}, {}, {}, []
    for spec in game_specs():
        name = str(spec.relative_to(ROOT))
        if time.perf_counter() > deadline:
            skipped.append(name)
            log(f"  verify {name}: left out, the run's time is up")
            continue
        t0 = time.perf_counter()
        results = run(str(spec))
        totals[name] = time.perf_counter() - t0
        sec, ver = seconds.setdefault(name, {}), verdicts.setdefault(name, {})
        for r in results:
            key = r.property if r.property not in sec else f"{r.property} ({r.players} players)"
            sec[key] = r.seconds
            ver[key] = r.verdict
        log(f"  verify {name}: {totals[name]:.1f} s")
    return seconds, verdicts, totals, skipped


# ---------------------------------------------------------------- report

def print_table(r: dict) -> None:
    print(f"Atoll benchmarks ({r['mode']} run; python {r['python']}, {r['machine']}; "
          f"a shared machine: expect noise of 10-20%)")
    print()
    print("Random playouts of the compiled games (uniform random players, fixed seeds)")
    print(f"{'game':<16} {'players':>7} {'games':>6} {'playouts/s':>11} {'actions/s':>10} {'avg length':>11}")
    for name, g in r["games"].items():
        for n, row in g["players"].items():
            print(f"{name:<16} {n:>7} {row['games']:>6} {row['playouts_per_s']:>11.1f} "
                  f"{row['actions_per_s']:>10.0f} {row['avg_length']:>11.1f}")
    print()
    v = r["vs"]
    print(f"MasterIslands: compiled model against the hand-written implementation (same seeds, "
          f"same policy, alternating blocks, each the best of {len(v['repetitions'])} repetitions)")
    print(f"{'players':>7} {'games':>6} {'compiled/s':>11} {'hand/s':>9} {'ratio':>7} "
          f"{'len comp':>9} {'len hand':>9} {'ratio actions/s':>16}")
    for n, row in v["players"].items():
        c, h = row["compiled"], row["handwritten"]
        print(f"{n:>7} {c['games']:>6} {c['playouts_per_s']:>11.1f} {h['playouts_per_s']:>9.1f} "
              f"{row['ratio']:>7.3f} {c['avg_length']:>9.1f} {h['avg_length']:>9.1f} "
              f"{row['ratio_actions']:>16.3f}")
    print(f"overall ratio compiled / hand-written playouts/s: {v['ratio']:.3f} "
          f"(each repetition alone: {', '.join(f'{x:.3f}' for x in v['repetitions'])})")
    print()
    a = r["adapters"]
    print(f"MasterIslands, {a['players']} players, through the adapters (alternating blocks)")
    for name, row in a["ways"].items():
        print(f"  {name:<12} {row['playouts_per_s']:>9.1f} playouts/s  {row['ratio_to_direct']:>5.2f} of direct"
              f"  ({row['ratio_per_decision']:.2f} per decision)")
    print()
    c = r["compile"]
    print(f"Parse + check + lower (atoll.compile_spec), CPU seconds. Cold: every spec in a new interpreter, "
          f"best of {len(c['cold_runs'])}; warm: median of {r['compile_runs']} compiles in one process, "
          f"the parse kept")
    print(f"  {'spec':<44} {'cold':>9} {'warm':>9}")
    for spec, s in c["warm"].items():
        print(f"  {spec:<44} {c['cold']['specs_s'][spec] * 1000:>6.1f} ms {s * 1000:>6.1f} ms")
    print(f"  {'the tables (cold: read from the cache)':<44} {c['cold']['grammar_s'] * 1000:>6.1f} ms")
    print(f"  {'all together':<44} {c['cold']['total_s'] * 1000:>6.1f} ms {sum(c['warm'].values()) * 1000:>6.1f} ms")
    print(f"  cold with no tables on disk (lark builds them: {c['no_cache']['grammar_s'] * 1000:.0f} ms): "
          f"{c['no_cache']['total_s'] * 1000:.0f} ms; `import atoll`: {c['cold']['import_s'] * 1000:.0f} ms, "
          f"not counted")
    print()
    for spec, props in r["verify_s"].items():
        print(f"Verification of {spec} (default options; total {r['verify_total_s'][spec]:.1f} s "
              f"including compile)")
        for prop, s in props.items():
            print(f"  {prop:<30} {r['verify_verdicts'][spec][prop]:<26} {s:>7.2f} s")
    for spec in r["verify_skipped"]:
        print(f"Verification of {spec}: left out, the run's time was up")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Atoll benchmarks (see benchmarks/README.md).")
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    ap.add_argument("--quick", action="store_true", help="fewer games and compiles (under a minute)")
    ap.add_argument("--check", nargs="?", const=100, type=int, metavar="GAMES",
                    help="first play the compiled and hand-written MasterIslands side by side "
                         "(GAMES per player count, default 100) and stop on a mismatch")
    args = ap.parse_args(argv)

    t_start = time.perf_counter()
    if args.check:
        import check_handwritten
        log(f"side-by-side check, {args.check} games per player count")
        if not check_handwritten.check(args.check, out=sys.stderr):
            log("the implementations disagree: no benchmark")
            return 1

    # games per set, seconds for all playouts (at most the cap per set), games and
    # repetitions against the hand-written game, compile runs, time before verification
    if args.quick:
        n_games, budget, cap, n_vs, reps, runs, verify_by = 100, 30.0, 3.0, 100, 2, 3, 150.0
    else:
        n_games, budget, cap, n_vs, reps, runs, verify_by = 500, 90.0, 20.0, 300, 3, 7, 210.0
    log("compile")
    compiled = bench_compile(runs)
    compile_s = compiled["warm"]
    log("random playouts")
    games = bench_games(n_games, budget, cap)
    log("compiled against hand-written")
    vs = bench_vs_handwritten(n_vs, reps)
    log("adapters (masterislands, 2 players)")
    adapters = bench_adapters(40 if args.quick else 100, reps)
    log("verify")
    verify_s, verdicts, verify_total, verify_skipped = bench_verify(t_start + verify_by)
    log(f"done in {time.perf_counter() - t_start:.0f} s")

    report = {
        "mode": "quick" if args.quick else "full",
        "python": platform.python_version(),
        "machine": f"{platform.machine()}, {platform.system()}",
        "games": games, "vs": vs, "adapters": adapters, "compile_s": compile_s, "compile": compiled,
        "compile_runs": runs, "verify_s": verify_s, "verify_verdicts": verdicts,
        "verify_total_s": verify_total, "verify_skipped": verify_skipped,
    }
    if args.json:
        out = {
            "games": {name: {"players": {str(n): {k: row[k] for k in
                                                  ("playouts_per_s", "actions_per_s", "avg_length")}
                                         for n, row in g["players"].items()}}
                      for name, g in games.items()},
            "masterislands_vs_handwritten": vs["ratio"],
            "adapters_vs_direct": {k: row["ratio_to_direct"] for k, row in adapters["ways"].items()
                                   if k != "direct"},
            "adapters_vs_direct_per_decision": {k: row["ratio_per_decision"]
                                                for k, row in adapters["ways"].items() if k != "direct"},
            "compile_s": compile_s,
            "compile_total_s": sum(compile_s.values()),
            "compile_cold_total_s": compiled["cold"]["total_s"],
            "verify_s": verify_s,
            # Beyond the promised keys: the detail behind the numbers above.
            "masterislands_vs_handwritten_by_players": {
                str(n): {"compiled": row["compiled"], "handwritten": row["handwritten"],
                         "ratio": row["ratio"], "ratio_actions": row["ratio_actions"]}
                for n, row in vs["players"].items()},
            "masterislands_vs_handwritten_repetitions": vs["repetitions"],
            "adapters": adapters,
            "compile_warm_total_s": sum(compile_s.values()),
            "compile_cold_s_by_spec": compiled["cold"]["specs_s"],
            "compile_cold_grammar_s": compiled["cold"]["grammar_s"],
            "compile_cold_wall_s": compiled["cold"]["wall_s"],
            "compile_cold_runs_s": compiled["cold_runs"],
            "compile_cold_no_cache_total_s": compiled["no_cache"]["total_s"],
            "compile_cold_no_cache_grammar_s": compiled["no_cache"]["grammar_s"],
            "compile_import_s": compiled["cold"]["import_s"],
            "compile_cold_s": compiled["first_masterislands"],
            "verify_verdicts": verdicts,
            "verify_total_s": verify_total,
            "verify_skipped": verify_skipped,
            "run": {"mode": report["mode"], "python": report["python"], "machine": report["machine"],
                    "seconds": time.perf_counter() - t_start},
        }
        print(json.dumps(out, indent=2))
    else:
        print_table(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
