"""Choices inside effects (`choose x in D by p`), for the runtime.

An effect that reaches `choose` with no choice given stops (``_NeedChoice``):
the transaction is undone and the state waits for that player, with one legal
action per distinct item of ``D``. Applying one runs the original action again
from the start with the choices made so far (chance draws repeat exactly: the
seeded stream is only advanced when a transaction succeeds, and explicit
chance outcomes given so far are kept), so an effect with choices is still
all-or-nothing. This is the machinery chance uses (``State.pending``), for a
player instead of chance: to every caller (simulate, the adapters, saves,
`atoll play`, `atoll serve`) the state is an ordinary decision of
``current_player()``, and the history holds the ids of the choices.
"""
from __future__ import annotations



def choice_options(domain) -> list:
    """The distinct items of a choice's domain, in its order."""
    out, seen = [], set()
    for x in domain:
        try:
            if x in seen:
                continue
            seen.add(x)
        except TypeError:   # an unhashable item (a map): compared one by one
            if x in out:
                continue
        out.append(x)
    return out


def wait_for_choice(game, st, e, action, forced, choices, X) -> None:
    """The transaction stopped at a choice: make ``st`` wait for it."""
    from atoll.compiler.runtime import ModelError
    n = game.num_players
    if type(e.player) is not int or not 0 <= e.player < n:
        raise ModelError(f"evaluating {game._where}: a rule asks player {e.player!r} to choose "
                         f"`{e.name}`, and the seats are 0 to {n - 1}")
    st.choosing = (e.player, tuple(e.options), e.elem_type, e.name, action,
                   None if forced is None else list(forced))
    st.chosen = list(choices or [])
    st.pending = None
    st._legal = None
    st._events = X.events + [("waits", "choice")]


def choice_spec(game, st):
    """The rule of the awaited choice, as an action's: kind ``choose NAME``,
    one parameter, the phase and citations of the action that asks it. Made
    once per name and type, and known to ``game.action_by_name`` like the
    spec's actions, so that every reader of actions (labels, the adapters'
    action slots, `atoll play`, `atoll serve`) handles a choice as a move."""
    from atoll.compiler.runtime import ActionSpec
    _, _, t, name, action = st.choosing[:5]
    table = game.__dict__.setdefault("_choice_specs", {})
    key = (name, t)
    spec = table.get(key)
    if spec is None:
        kind = f"choose {name}"
        while kind in game.action_by_name:   # the same name chosen with another type
            kind += "'"
        phase = st.phase() if action is None else action[0].phase   # (no action: the flow's first steps)
        cites = (() if action is None else action[0].cites) or game.phases[phase].cites
        what = "the start of the game" if action is None else f"`{action[0].name}`"
        known = game.info.get("choice_keys", ())
        index = len(game.actions) + (known.index(key) if key in known else len(known) + len(table))
        spec = ActionSpec(index, kind, phase, ((name, t),), (), (),
                          cites, f"A choice inside the effect of {what}: `{name}`.")
        table[key] = spec
        game.action_by_name[kind] = spec
    return spec


def choice_actions(game, st) -> list:
    """One action per option of the awaited choice."""
    from atoll.compiler.runtime import Action
    player, options, t, name = st.choosing[:4]
    spec = choice_spec(game, st)
    return [Action(spec.name, (item,), None, player,   # the id computed when asked for
                   f"player {player} chooses {name} = {game.codec.text(t, item)}", game)
            for item in options]


def apply_choice(game, st, action) -> None:
    from atoll.compiler.runtime import Action, IllegalAction
    acts = choice_actions(game, st)
    if isinstance(action, Action) and action._game is game:   # one of them: found without the ids
        match = next((a for a in acts if a.kind == action.kind and a.params == action.params), None)
    else:
        aid = action.id if isinstance(action, Action) else action
        match = next((a for a in acts if a.id == aid), None) if isinstance(aid, int) else None
    if match is None:
        player, _, _, name = st.choosing[:4]
        raise IllegalAction(f"player {player} is choosing `{name}` inside an effect: the action must be "
                            f"one of legal_actions() (one per choice)")
    act, forced = st.choosing[4], st.choosing[5]
    game._transact(st, act, forced, st.chosen + [match.params[0]])
    if st.pending is not None and act is not None:
        st.pending = (game._action_id(act[0], act[1], act[2] if len(act) > 2 else None),) + st.pending[1:]
    st._hist.append(match.id)
