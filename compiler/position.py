"""A position set by hand: ``Game.state_from``.

A worked example of a rulebook starts from a position ("Red holds these
cards, these spaces are taken; Red plays ...") that no saved game
describes. ``state_from`` builds it from a partial description over the
state after setup: the values given replace those of a fresh game (seed
``seed``), in the JSON form of saved games, keyed by the names a save uses
(``hand``, per-player values as one list per player; a phase's variable as
``phase.var``; ``current_round``). Who is to act and in which phase may be
given; the position is then a decision of that player in that phase, from
which play continues (``legal_actions``, ``apply_action``).

What is checked, as loading a save checks it: every name is a variable of
the game (else ``BadPosition`` naming it, with the closest names), every
value has its type (ints within the bound, enum members, record fields,
one value per player), the phase is one of the round the flow chooses for
these values, the player one of its stage's players, the phase not
automatic and not already over (its ``done when``). What cannot be checked:
that the rules reach this position by play (a save's history replay has
nothing to replay here), nor what the spec states only as a rule (a
`Player` value is an int; a count that should equal a bag's size is not
compared with it). Endings are tested after the next action, as in play.
"""
from __future__ import annotations

import json
from typing import Optional

from atoll.compiler import savegame
from atoll.compiler.savegame import CorruptState
from atoll.compiler.values import shown
from atoll.diagnostics import did_you_mean


class BadPosition(CorruptState):
    """A position given to ``Game.state_from`` that does not fit the game;
    ``field`` names the variable (or ``player``, ``phase``)."""

    def __init__(self, reason: str, field: Optional[str] = None):
        self.field, self.reason = field, reason
        ValueError.__init__(self, f"position, `{field}`: {reason}" if field is not None
                            else f"not a position: {reason}")


def state_from(game, position: dict, seed: int = 0, player: Optional[int] = None,
               phase: Optional[str] = None, chance: str = "auto"):
    """See the module documentation and ``Game.state_from``."""
    from atoll.compiler.runtime import ModelError, Transaction, _why
    if not isinstance(position, dict) or not all(isinstance(k, str) for k in position):
        raise BadPosition("expected a dict from variable names to values")
    names = game.layout.names
    base = game.new_initial_state(seed=seed, chance=chance)
    if base.outcome is not None or base.pending is not None:
        raise BadPosition("the game with this seed is over or waits for chance right after setup; "
                          "no position can be set over it")
    for k in position:
        if k not in names:
            hint = did_you_mean(k, names)
            raise BadPosition(f"not a variable of {game.title}" + (f"; {hint}" if hint else ""), k)
    try:   # JSON-able: the values are what a save would hold
        given = json.loads(json.dumps(position))
    except (TypeError, ValueError) as e:
        raise BadPosition(f"the values must be JSON values, as in a saved game ({e})") from None
    want_phase = base.phase() if phase is None else phase
    if not isinstance(want_phase, str) or want_phase not in game.phases:
        raise BadPosition(f"{shown(want_phase)} is not a phase of {game.title}"
                          + (f"; {did_you_mean(want_phase, game.phases)}" if isinstance(want_phase, str)
                             and did_you_mean(want_phase, game.phases) else ""), "phase")
    for k in given:
        if "." in k and k.split(".")[0] != want_phase:
            raise BadPosition(f"a variable of phase `{k.split('.')[0]}`, but the position is in phase "
                              f"`{want_phase}`", k)

    d = json.loads(base.to_json())
    for k, v in given.items():
        d["values"][names.index(k)] = v
    try:
        st = savegame.decode(game, d)
    except BadPosition:   # pragma: no cover - decode raises CorruptState only
        raise
    except CorruptState as e:
        field = e.field[len("values."):] if e.field and e.field.startswith("values.") else e.field
        raise BadPosition(e.reason, field) from None
    S = st.S

    # Where the flow is: the round the flow chooses for these values, the stage of the phase.
    try:
        ri = next((i for i, applies in enumerate(game._round_fn) if applies(S)), None)
    except Exception as e:
        raise BadPosition(f"the flow cannot choose a round for this position: {e}", "phase") from None
    if ri is None:
        raise BadPosition("no `round` of the flow applies to this position", "phase")
    stages = [si for si, (_, phases, *_) in enumerate(game.rounds[ri]) if want_phase in phases]
    if not stages:
        raise BadPosition(f"phase `{want_phase}` is in no stage of the round the flow chooses for "
                          f"this position (round {ri + 1} of the flow)", "phase")
    chosen = None
    for si in stages:
        try:
            players = tuple(game._stage_fn[ri][si](S))
        except Exception as e:
            raise BadPosition(f"the players of the stage of phase `{want_phase}` cannot be computed "
                              f"from this position: {e}", "phase") from None
        if any(not (type(p) is int and 0 <= p < game.num_players) for p in players):
            raise BadPosition(f"the stage of phase `{want_phase}` names players {list(players)}; seats "
                              f"are 0..{game.num_players - 1}", "phase")
        if player is None and players:
            mine = base.current_player() if si == base.ctl[1] and ri == base.ctl[0] else None
            chosen = (si, players, players.index(mine) if mine in players else 0)
            break
        if player in players:
            chosen = (si, players, players.index(player))
            break
    if chosen is None:
        who = "no player plays" if player is None else f"player {shown(player)} does not play"
        raise BadPosition(f"{who} in the stage of phase `{want_phase}` in this position", "player")
    si, players, slot = chosen
    ph = game.rounds[ri][si][1].index(want_phase)
    keeper = game.rounds[ri][si][4] if game.rounds[ri][si][2] == "around" else None
    if keeper is not None and names[keeper] in given:   # `turns round ... from v`: v names whose turn it is
        if player is None and S[keeper] in players:
            slot = players.index(S[keeper])
        elif S[keeper] != players[slot]:
            raise BadPosition(f"`{names[keeper]}` names whose turn it is in this stage, so it must be "
                              f"{players[slot]}, the player to act, not {shown(S[keeper])}", names[keeper])
    me = players[slot]
    if keeper is not None:
        S[keeper] = me

    # The phase's variables: those not given as entering the phase sets them
    # (its `on enter` runs on a copy: only the variables are kept); other phases' stay as after setup.
    first_phase_slot = 1 + len(game.info["state_vars"])
    own = {i for i in range(first_phase_slot, len(names)) if names[i].split(".")[0] == want_phase}
    missing = [i for i in own if names[i] not in given]
    if missing:
        copy = list(S)
        enter = game._phase_fn[want_phase][0]
        try:
            enter(copy, me, Transaction(st.rng[0], 0, None))
        except ModelError as e:
            raise BadPosition(f"entering phase `{want_phase}` on this position fails: {e}", "phase") from None
        except Exception as e:
            raise BadPosition(f"entering phase `{want_phase}` on this position fails: {_why(e)}",
                              names[missing[0]]) from None
        for i in missing:
            S[i] = copy[i]
    for i in sorted(own):
        if S[i] is None:
            raise BadPosition(f"a variable of phase `{want_phase}`, where the position is, has a value",
                              names[i])

    st.ctl = [ri, si, slot, ph, players, False, False]
    st.outcome, st.pending, st._hist, st.rng = None, None, [], [int(seed) & ((1 << 64) - 1), 0]
    st.chance_mode = chance
    _, auto, done, _ = game._phase_fn[want_phase]
    if auto is not None:
        raise BadPosition(f"phase `{want_phase}` is automatic: no player decides in it", "phase")
    try:
        over = done(S, me)
    except Exception as e:
        raise BadPosition(f"the `done when` of phase `{want_phase}` cannot be evaluated here: {_why(e)}",
                          "phase") from None
    if over:
        raise BadPosition(f"phase `{want_phase}` is already over in this position (its `done when` "
                          f"holds for player {me}): play would have moved on", "phase")
    for i, ok in game._int_slots:
        if S[i] is not None and not ok(S[i]):   # pragma: no cover - the codec checked each int
            raise BadPosition("an int is past the bound of ints", names[i])
    st._legal = None
    return st
