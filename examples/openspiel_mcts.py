"""OpenSpiel's Python MCTS plays an Atoll game against random players.

The spec is registered as an OpenSpiel game (``atoll.openspiel.register``);
seat ``--mcts-seat`` is played by ``open_spiel.python.algorithms.mcts.MCTSBot``
with a random-rollout evaluator, the other seats pick uniformly among their
legal actions, and chance nodes are sampled from ``chance_outcomes()``.

MCTS searches the true state: in a game with hidden information it plays as
if it could see every hand. It is a baseline, not a fair opponent.

Needs the ``openspiel`` extra (``pip install ".[openspiel]"``). See
docs/ecosystem.md.
"""
from __future__ import annotations

import argparse
import json
import sys
import time

EXAMPLE = """examples:
  python examples/openspiel_mcts.py                         # MasterIslands, 2 players, 2 games
  python examples/openspiel_mcts.py spec/masterislands.atoll --players 3 --games 4 --simulations 50
  python examples/openspiel_mcts.py tests/good/nim.atoll --games 20 --json"""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description="OpenSpiel's Python MCTS (random rollouts) against random players on an Atoll game.",
        epilog=EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("spec", nargs="?", default="spec/masterislands.atoll", help="the .atoll file")
    ap.add_argument("--players", type=int, default=None, help="player count (default: the smallest allowed)")
    ap.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="a game option")
    ap.add_argument("--games", type=int, default=2, help="games to play (default 2)")
    ap.add_argument("--simulations", type=int, default=20, help="MCTS simulations per move (default 20)")
    ap.add_argument("--rollouts", type=int, default=1, help="random rollouts per evaluation (default 1)")
    ap.add_argument("--uct-c", type=float, default=2.0, help="UCT exploration constant (default 2)")
    ap.add_argument("--mcts-seat", type=int, default=0, help="the seat MCTS plays (default 0)")
    ap.add_argument("--seed", type=int, default=0, help="seed of every random choice (default 0)")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    args = ap.parse_args(argv)
    for flag, value in (("--games", args.games), ("--rollouts", args.rollouts)):
        if value < 1:
            return _usage(f"{flag} must be at least 1, not {value}")
    if args.simulations < 2:
        return _usage(f"--simulations must be at least 2 (the first one only evaluates the root), "
                      f"not {args.simulations}")
    options = {}
    for pair in args.option:
        if "=" not in pair:
            return _usage(f"--option takes KEY=VALUE, not {pair!r}")
        key, value = pair.split("=", 1)
        options[key.strip()] = value.strip()

    try:
        import numpy as np
        import pyspiel
        from open_spiel.python.algorithms import mcts
        import atoll
        import atoll.openspiel
    except ImportError as e:
        print(f"openspiel_mcts: {e}", file=sys.stderr)
        return 2
    try:
        name = atoll.openspiel.register(args.spec, players=args.players, options=options)
    except atoll.SpecError as e:
        print(e, file=sys.stderr)
        return 1 if any(d.code not in ("A0302", "A0303") for d in e.diagnostics) else 2
    game = pyspiel.load_game(name)
    n = game.num_players()
    if not 0 <= args.mcts_seat < n:
        return _usage(f"--mcts-seat must be 0..{n - 1}")

    rng = np.random.RandomState(args.seed)
    bot = mcts.MCTSBot(game, uct_c=args.uct_c, max_simulations=args.simulations,
                       evaluator=mcts.RandomRolloutEvaluator(n_rollouts=args.rollouts, random_state=rng),
                       random_state=rng)
    started = time.perf_counter()
    games = []
    for g in range(args.games):
        state = game.new_initial_state()
        moves = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(int(rng.choice(outcomes, p=probs)))
                continue
            player = state.current_player()
            if player == args.mcts_seat:
                action = bot.step(state)
            else:
                action = int(rng.choice(state.legal_actions()))
            state.apply_action(action)
            moves += 1
        atoll_state = state.atoll_state
        games.append({"game": g, "moves": moves, "returns": state.returns(),
                      "winners": list(atoll_state.winners()), "ending": atoll_state.ending()})
        if not args.json:
            print(f"game {g + 1}: {moves} moves, ending {atoll_state.ending()}, "
                  f"winners {list(atoll_state.winners()) or 'none'}, returns {state.returns()}")
    seconds = time.perf_counter() - started
    wins = sum(1 for r in games if args.mcts_seat in r["winners"] and len(r["winners"]) < n)
    summary = {"game": name, "players": n, "mcts_seat": args.mcts_seat, "simulations": args.simulations,
               "games": games, "mcts_wins": wins, "mcts_mean_return":
               sum(r["returns"][args.mcts_seat] for r in games) / len(games), "seconds": round(seconds, 2)}
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(f"MCTS (seat {args.mcts_seat}, {args.simulations} simulations a move) won {wins} of "
              f"{len(games)} games against {n - 1} random player(s); mean return "
              f"{summary['mcts_mean_return']:+.2f}; {seconds:.1f} s")
    return 0


def _usage(msg: str) -> int:
    print(f"openspiel_mcts: {msg}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
