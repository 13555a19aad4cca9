"""Where the CPU of a configuration's shared games goes (verify.playbook):
the same uniformly random games played bare (listing + effect + the random
choice), then watched by every play-checked property (``play_together``,
states recorded), in alternating blocks, by CPU time (time.process_time).

    python benchmarks/watch_shares.py spec/kanaloa.atoll 3 take_optional=false \
        refill=stage_ends equal_turns=in_game --games 10 --rounds 2
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _value(text: str):
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    try:
        return int(text)
    except ValueError:
        return text


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("spec")
    ap.add_argument("players", type=int)
    ap.add_argument("options", nargs="*", help="KEY=VALUE")
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rounds", type=int, default=2)
    a = ap.parse_args()
    from atoll.compiler import pipeline
    from atoll.verify import playbook
    from atoll.verify.runner import _checks  # noqa: F401 (the runner's module loaded as it runs)
    comp = pipeline.compile_spec(a.spec)
    opts = dict(kv.split("=", 1) for kv in a.options)
    opts = {k: _value(v) for k, v in opts.items()}
    game = pipeline.instantiate(comp, a.players, opts)
    props = list(comp.program.properties.values())
    book = playbook.Book(game, props, a.games, a.seed, a.spec)
    names = book._players()
    checks = []
    for n in names:
        c = book.check_of(n)
        c.record_states = True
        checks.append(c)
    print(f"{len(names)} properties watch the games", file=sys.stderr)

    def bare():
        steps = 0
        for i in range(a.games):
            st = game.new_initial_state(seed=a.seed + i)
            rng = random.Random(a.seed + i)
            n = 0
            while not st.is_terminal() and n < 10_000:
                legal = st.legal_moves()
                if not legal:
                    break
                st.apply_move(rng.randrange(len(legal)))
                n += 1
            steps += n
        return steps

    def watched():
        steps = 0
        for i in range(a.games):
            steps += playbook.play_together(game, checks, a.seed + i)[0].steps
        return steps

    t = {"bare": 0.0, "watched": 0.0}
    steps = {}
    for _ in range(a.rounds):
        for k, f in (("bare", bare), ("watched", watched)):
            t0 = time.process_time()
            steps[k] = f()
            t[k] += time.process_time() - t0
    for k in t:
        per = t[k] / a.rounds
        print(f"{k:8s} {per:7.2f} CPU s for {steps[k]} actions: {1e6 * per / max(1, steps[k]):6.2f} us/action")
    print(f"watching {100 * (t['watched'] - t['bare']) / t['watched']:.0f}% of the watched games")


if __name__ == "__main__":
    main()
