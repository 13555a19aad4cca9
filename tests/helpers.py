"""Shared test helpers: paths, and building positions through saved-game JSON."""
from __future__ import annotations

import json
import random
from pathlib import Path

from atoll.compiler import savegame

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "spec"
MASTERISLANDS = SPEC / "masterislands.atoll"
KANALOA = SPEC / "kanaloa.atoll"


def card(colour: str, value: int) -> dict:
    return {"colour": colour, "value": value}


def pos(x: int, y: int) -> dict:
    return {"x": x, "y": y}


def position(game, phase: str, player: int, stage_players=None, round_index=None, **values):
    """A state of ``game`` in ``phase`` with ``player`` to act, the state
    variables given as JSON values (as ``to_json`` writes them), the others
    as after setup. Every field is checked as a save's would be, but the
    position is not replayed (it may be one the rules never reach), so it is
    built with ``savegame.decode``, not loaded with ``state_from_json``.
    ``stage_players`` is the stage's list of players (default: every seat);
    ``round_index`` the `round` of the flow (default: the one it chose at the start)."""
    base = game.new_initial_state(seed=0)
    d = json.loads(base.to_json())
    names = game.layout.names
    for k, v in values.items():
        d["values"][names.index(k)] = v
    ri = base.ctl[0] if round_index is None else round_index
    for stages in [game.rounds[ri]]:
        for si, (_, phases, *_) in enumerate(stages):
            if phase in phases:
                players = list(range(game.num_players)) if stage_players is None else list(stage_players)
                d["control"] = [ri, si, players.index(player), list(phases).index(phase), players, False,
                                False]
                return savegame.decode(game, d)
    raise AssertionError(f"no stage has phase {phase}")


def random_playout(state, rng: random.Random, max_steps: int = 10_000):
    steps = 0
    while not state.is_terminal() and steps < max_steps:
        legal = state.legal_actions()
        state.apply_action(rng.choice(legal))
        steps += 1
    return steps
