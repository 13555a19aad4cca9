"""The ecosystem adapters on every shipped game: conformance and speed.

For every spec under spec/ (each player count, plus the modes that change
the flow) and every valid spec of tests/good (the player counts of its
header), runs PettingZoo's ``api_test`` and ``seed_test`` and OpenSpiel's
``random_sim_test`` (with serialization) and times each. Then measures
random playouts per second of MasterIslands played directly, through the
PettingZoo environment and through the OpenSpiel game.

    python benchmarks/ecosystem.py            # about a minute here
    python benchmarks/ecosystem.py --quick    # fewer simulations and playouts
    python benchmarks/ecosystem.py --json

Needs the pettingzoo and openspiel extras. Not a test: the test suite runs
the same checks on fewer cases (tests/test_pettingzoo.py, tests/test_openspiel.py).
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))


def conformance(sims: int, log) -> list[dict]:
    import pyspiel
    from pettingzoo.test import api_test, seed_test

    import atoll.openspiel as aos
    import atoll.pettingzoo as apz
    from ecosystem_cases import cases

    rows = []
    for case in cases(all_counts=True):
        path, players, options = case.values
        row = {"spec": str(path.relative_to(ROOT)), "players": players, "options": options}
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
            warnings.simplefilter("ignore")
            t = time.perf_counter()
            api_test(apz.env(path, players=players, options=options), num_cycles=1000)
            row["api_test_s"] = round(time.perf_counter() - t, 3)
            t = time.perf_counter()
            seed_test(lambda: apz.env(path, players=players, options=options), num_cycles=500)
            row["seed_test_s"] = round(time.perf_counter() - t, 3)
        game = pyspiel.load_game(aos.register(path, players=players, options=options,
                                              name="atoll_bench_" + case.id.replace("-", "_")))
        t = time.perf_counter()
        pyspiel.random_sim_test(game, num_sims=sims, serialize=True, verbose=False)
        row["random_sim_test_s"] = round(time.perf_counter() - t, 3)
        row["random_sim_test_games"] = sims
        rows.append(row)
        log(f"{case.id:40s} api_test ok {row['api_test_s']:6.2f} s   seed_test ok {row['seed_test_s']:6.2f} s"
            f"   random_sim_test x{sims} ok {row['random_sim_test_s']:6.2f} s")
    return rows


def speed(spec: Path, players: int, seconds: float) -> dict:
    import numpy as np
    import pyspiel

    import atoll
    import atoll.openspiel as aos
    import atoll.pettingzoo as apz

    def rate(play):
        n = steps = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            steps += play(n)
            n += 1
        dt = time.perf_counter() - start
        return {"playouts_per_s": round(n / dt, 1), "steps_per_s": round(steps / dt)}

    game = atoll.load(spec, players=players)

    def direct(seed):   # the lean path (legal_moves/apply_move), as benchmarks/run.py measures it
        rng, st, k = random.Random(seed), game.new_initial_state(seed=seed), 0
        while not st.is_terminal():
            st.apply_move(rng.randrange(len(st.legal_moves())))
            k += 1
        return k

    env = apz.env(game)

    def petting(seed):
        rng, k = np.random.default_rng(seed), 0
        env.reset(seed=seed)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            k += not (term or trunc)
        return k

    osgame = pyspiel.load_game(aos.register(spec, players=players, name="atoll_bench_speed"))

    def spiel(seed):
        rng, st, k = np.random.RandomState(seed), osgame.new_initial_state(), 0
        while not st.is_terminal():
            if st.is_chance_node():
                actions, probs = zip(*st.chance_outcomes())
                st.apply_action(int(rng.choice(actions, p=probs)))
            else:
                st.apply_action(int(rng.choice(st.legal_actions())))
                k += 1
        return k

    return {"spec": str(spec.relative_to(ROOT)), "players": players,
            "direct": rate(direct), "pettingzoo": rate(petting), "openspiel": rate(spiel)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="examples:\n  python benchmarks/ecosystem.py --quick\n"
                                        "  python benchmarks/ecosystem.py --json > ecosystem.json")
    ap.add_argument("--quick", action="store_true", help="1 OpenSpiel simulation per case, 2 s of playouts")
    ap.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    args = ap.parse_args(argv)
    log = (lambda s: print(s, file=sys.stderr, flush=True)) if args.json else print
    sims, seconds = (1, 2.0) if args.quick else (5, 5.0)
    started = time.perf_counter()
    rows = conformance(sims, log)
    rates = speed(ROOT / "spec" / "masterislands.atoll", 2, seconds)
    for how in ("direct", "pettingzoo", "openspiel"):
        log(f"masterislands 2p {how:11s} {rates[how]['playouts_per_s']:7.1f} playouts/s "
            f"{rates[how]['steps_per_s']:7d} decisions/s")
    total = round(time.perf_counter() - started, 1)
    log(f"total {total} s")
    if args.json:
        print(json.dumps({"conformance": rows, "speed": rates, "seconds": total}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
