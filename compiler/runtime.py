"""The reference model: ``Game`` and ``State``, in the style of OpenSpiel.

The rules themselves are the generated functions of the lowered module; this
module is the generic engine around them: the flow (rounds, stages, turns,
phases), chance, endings, legality with its explanations, observations and
saved games. It knows no game.

Special values of ``State.current_player()`` (the same as OpenSpiel's):
``CHANCE`` (-1) while a chance event waits for its outcome, ``SIMULTANEOUS``
(-2) while the players of a simultaneous stage choose, ``TERMINAL`` (-4) once
the game is over.

A simultaneous stage opens by entering its first phase for every player;
then, at a SIMULTANEOUS node, ``legal_actions()`` lists the first decisions
of every player still to choose (each Action knows its ``player``, and its id
includes it), and any of them may be applied. The acting player then plays
their part of the stage to its end, and the node is simultaneous again for
the others. The checker makes sure the players' parts cannot see or disturb
each other, so the order in which they are applied does not matter.
"""
from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction
from itertools import islice
from dataclasses import dataclass
from typing import Optional, Union

from atoll.compiler import names as N
from atoll.compiler import intbound, savegame
from atoll.compiler.stdlib import EvalError
from atoll.compiler.savegame import CorruptState
from atoll.compiler.position import BadPosition, state_from as position_from  # noqa: F401 - exported
from atoll.compiler.values import ValueCodec, pack, sort_values
from atoll.compiler.choices import apply_choice, choice_actions, wait_for_choice
from atoll.compiler.flow_engine import FlowEngine
from atoll.compiler.game_text import GameText, _cite, _hidden  # noqa: F401 - exported

CHANCE = -1
#: The most legal actions one state may list (see docs/language.md, Limits).
MAX_LEGAL = 100_000


def _why(e: Exception) -> str:
    """An error raised while a rule ran, as a ModelError words it (an
    evaluation error of the language speaks for itself)."""
    return str(e) if isinstance(e, EvalError) else f"{type(e).__name__}: {e}"
SIMULTANEOUS = -2
TERMINAL = -4

STATE_FORMAT = savegame.FORMAT
_MASK = (1 << 64) - 1


from atoll.compiler.transaction import (  # noqa: E402,F401 - exported
    IllegalAction, ModelError, Transaction, _DryRun, _NeedChance, _NeedChoice, _splitmix)


#: Action ids and chance outcomes kept per game (the cache is emptied past this).
_KEPT = 100_000


@dataclass(frozen=True)
class ActionSpec:
    index: int
    name: str
    phase: str
    params: tuple[tuple[str, object], ...]      # (name, type)
    clauses: tuple[tuple[str, str], ...]        # (source, summary) of domains then `when`s
    ensures: tuple[tuple[str, str], ...]        # (source, summary)
    cites: tuple[str, ...]
    summary: str


@dataclass(frozen=True)
class PhaseSpec:
    name: str
    actions: tuple[int, ...]
    auto: bool
    cites: tuple[str, ...]


_SIMULTANEOUS = object()   # an Action's id not computed yet, of a move at a simultaneous step


class Action:
    """One legal move: ``id`` is stable (the same move always has the same id),
    ``str()`` reads like the spec: ``place(c=Card(red, 3), at=(1,0))``.
    ``params`` are the run-time values (enum members as their index).
    Id and label are computed when first asked for."""
    __slots__ = ("kind", "params", "player", "_id", "_label", "_game")

    def __init__(self, kind: str, params: tuple, id: Optional[int], player: int,
                 label: Optional[str], game=None):
        self.kind, self.params, self.player = kind, params, player
        self._id, self._label, self._game = id, label, game

    @property
    def id(self) -> int:
        i = self._id
        if i is None or i is _SIMULTANEOUS:   # the latter: the player is part of the id
            i = self._id = self._game._action_id(self._game.action_by_name[self.kind], self.params,
                                                 None if i is None else self.player)
        return i

    def __str__(self) -> str:
        label = self._label
        if label is None or label is False:   # False: a simultaneous move, its player named
            text = self._game._label(self.kind, self.params)
            label = self._label = text if label is None else f"player {self.player}: {text}"
        return label

    def __repr__(self) -> str:
        return f"<Action {self} id={self.id}>"

    def __int__(self) -> int:
        return self.id

    def __eq__(self, other) -> bool:
        return isinstance(other, Action) and other.id == self.id

    def __hash__(self) -> int:
        return hash(self.id)



class _ChanceNode:
    """The outcomes of one pending chance event, counted once (``State._chance``):
    ``out`` lists (outcome action, count, total) in the order of the items,
    ``items`` the items in that order; ``byid`` (made when first asked) maps
    an outcome's id to its item. The outcomes are those of a draw from
    ``bag`` (of items of type ``elem``) whatever the event (values are
    never changed in place), so a node serves every pending event that
    draws from that very bag (a clone's too); it is never changed once made."""
    __slots__ = ("bag", "elem", "out", "items", "byid")

    def counts(self, pending) -> bool:
        """Whether this node holds the outcomes of ``pending``: its draw is from this very bag."""
        return pending[2] is self.bag and (pending[3] is self.elem or pending[3] == self.elem)

    @staticmethod
    def count(game, pending) -> "_ChanceNode":
        """The outcomes of ``pending`` (bag ``pending[2]``, type ``pending[3]``), counted."""
        node = _ChanceNode()
        node.bag, node.elem = pending[2], pending[3]
        counts = Counter(node.bag)
        total = len(node.bag)
        node.items = sort_values(counts)
        act, elem = game._chance_action, node.elem
        node.out = [(act(item, elem), counts[item], total) for item in node.items]
        node.byid = None
        return node

    def after(self, pending, drawn) -> Optional["_ChanceNode"]:
        """The node of ``pending``, counted from this one without counting
        its bag again, when ``drawn`` (a draw: (the bag, the item, what was
        left), see ``Transaction.draw``) took one item out of a bag equal
        to this node's and left the very bag that ``pending`` draws from,
        of the same type; else None (the bag is counted). Sound: ``what
        was left`` is the bag drawn from less one of the item (the draw
        makes it so), and equal bags hold the same items, so the counts
        are this node's with the item's one less, in the same order."""
        if drawn is None or drawn[2] is not pending[2] or pending[3] != self.elem:
            return None
        src = drawn[0]
        if src is not self.bag and not (len(src) == len(self.bag) and src == self.bag):
            return None
        try:
            k = self.items.index(drawn[1])
        except ValueError:   # pragma: no cover - the item came out of an equal bag
            return None
        node = _ChanceNode()
        node.bag, node.elem = pending[2], self.elem
        _, n, total = self.out[k]
        total -= 1
        out = [(a, c, total) for a, c, _ in self.out]
        items, byid = self.items, self.byid   # the same outcomes: the same ids (a dict never changed)
        if n > 1:
            out[k] = (out[k][0], n - 1, total)
        else:
            gone = out.pop(k)[0]
            items = items[:k] + items[k + 1:]
            if byid is not None:
                byid = dict(byid)
                del byid[gone.id]
        node.out, node.items, node.byid = out, items, byid
        return node

    def item_of(self, aid):
        """The item of the outcome whose id is ``aid``, or ``_NONE`` when none is."""
        byid = self.byid
        if byid is None:
            byid = self.byid = {a.id: item for (a, _, _), item in zip(self.out, self.items)}
        return byid.get(aid, _NONE)


_NONE = object()


class State:
    """A position of the game. Mutated only by ``apply_action``, atomically."""
    __slots__ = ("game", "S", "ctl", "outcome", "rng", "pending", "_hist", "chance_mode",
                 "_legal", "_events", "choosing", "chosen", "_chance", "_memo", "_drawn")

    def __init__(self, game: "Game"):
        self.game = game
        self.S: list = []
        # [round decl, stage, slot, phase index, stage players, phase needs entering,
        #  the slot's player has acted in this stage]
        self.ctl: list = [0, 0, 0, 0, (), True, False]
        self.outcome: Optional[tuple] = None        # (ending name, winners)
        self.rng = [0, 0]
        # (action id or None for setup, outcomes given so far, bag, type, the type of each outcome)
        self.pending: Optional[tuple] = None
        self._hist: list = []       # the actions applied: ids, or Actions (whose id is computed when asked)
        self.chance_mode = "auto"
        self._legal = None
        self._events: list = []    # what the last action did on the way (Transaction.events)
        # a choice inside an effect awaited: (player, options, type, name, the action
        # tuple or None, the chance outcomes given so far); ``chosen``: the choices
        # made so far in the transaction under way (see compiler/choices.py)
        self.choosing: Optional[tuple] = None
        self.chosen: list = []
        self._chance = None         # the pending event's outcomes counted: a _ChanceNode
        # the last draw of the last transaction kept, with explicit chance:
        # (the bag, the item, what was left), see _ChanceNode.after
        self._drawn = None
        # (S, ctl, {action index: its legal choices}) that the last `done when`
        # test computed on this very S and ctl (see compiler/lower_flow.py)
        self._memo = None

    @property
    def history(self) -> list[int]:
        """The ids of the actions applied so far, chance outcomes included."""
        g = self.game
        return [h if h.__class__ is int else h.id if h.__class__ is Action
                else g._action_id(g.actions[h[0]], h[1]) for h in self._hist]

    # ------------------------------------------------------------ copying
    def clone(self) -> "State":
        c = State.__new__(State)
        c.game = self.game
        c.S = list(self.S)
        c.ctl = list(self.ctl)
        c.outcome = self.outcome
        c.rng = list(self.rng)
        c.pending = None if self.pending is None else (self.pending[0], list(self.pending[1]),
                                                       self.pending[2], self.pending[3],
                                                       list(self.pending[4]))
        c._hist = list(self._hist)
        c.chance_mode = self.chance_mode
        c._legal = self._legal   # the same position: the same legal moves (a list never changed)
        c._events = []
        c.choosing = self.choosing
        c.chosen = list(self.chosen)
        c._chance = self._chance   # the same bag: the same outcomes (a node is never changed)
        c._memo = None
        c._drawn = self._drawn
        return c

    def __eq__(self, other) -> bool:
        return isinstance(other, State) and self.to_json() == other.to_json()

    def __hash__(self):  # pragma: no cover - states are mutable
        raise TypeError("State is mutable and unhashable")

    # ------------------------------------------------------------ queries
    def is_terminal(self) -> bool:
        return self.outcome is not None

    def is_chance_node(self) -> bool:
        return self.outcome is None and self.pending is not None

    def is_simultaneous_node(self) -> bool:
        return self.outcome is None and self.pending is None and self.choosing is None \
            and self.game._sim_point(self)

    def current_player(self) -> int:
        if self.outcome is not None:
            return TERMINAL
        if self.pending is not None:
            return CHANCE
        if self.choosing is not None:
            return self.choosing[0]
        if self.game._sim_point(self):
            return SIMULTANEOUS
        return self.ctl[4][self.ctl[2] % len(self.ctl[4])]

    def phase(self) -> str:
        """The name of the current phase ('' once the game is over)."""
        if self.outcome is not None:
            return ""
        g = self.game
        return g.rounds[self.ctl[0]][self.ctl[1]][1][self.ctl[3]]

    @property
    def round(self) -> int:
        return self.S[0]

    def _chance_counts(self):
        """(outcome action, count, total) of the pending chance event, outcomes in order.
        Kept for the pending event (a new event is a new ``pending`` tuple)."""
        if not self.is_chance_node():
            return []
        node = self._chance
        if node is None or not node.counts(self.pending):
            node = self._chance = _ChanceNode.count(self.game, self.pending)
        return node.out

    def chance_outcomes(self) -> list[tuple[Action, float]]:
        return [(a, n / total) for a, n, total in self._chance_counts()]

    def chance_fractions(self) -> list[tuple[Action, Fraction]]:
        """The outcomes of the pending chance event with their exact
        probabilities (each outcome's share of what is drawn from)."""
        return [(a, Fraction(n, total)) for a, n, total in self._chance_counts()]

    def chance_kind(self) -> str:
        """What the pending chance event is: "roll" (with replacement) or
        "draw" (out of a collection); "" at a state that is not a chance node."""
        if not self.is_chance_node():
            return ""
        how = next((e[1] for e in self._events if e[0] == "waits"), "draw")
        return how.split()[0]

    def events(self, viewer: Optional[int] = None, actor: Optional[int] = None, show=None) -> list[str]:
        """What the last action (with the automatic steps after it) did on the
        way, in words: its chance outcomes (``rolled [3, 6]``) and the
        branches described in words that it took. With ``viewer=None``
        everything (a designer's trace); for a player, only what that player
        may see: a roll unless it is `visible owner` (then only ``actor``, the
        player who acted, sees it) or `visible nobody`; never what a draw
        took out (where it went shows it, if it is visible). Empty while a
        chance outcome is awaited (the action has not finished). ``show(type,
        value)`` writes a value (default: as the spec writes it)."""
        if self.pending is not None:
            return []
        out = []
        notes = self.game.info.get("branch_notes", ())
        for ev in self._events:
            how = ev[0]
            if how == "note":
                out.append(notes[ev[1]] if ev[1] < len(notes) else "")
                continue
            if how in ("chose", "waits"):
                if how == "chose":
                    out.append(f"player {ev[3]} chose {ev[4]} = {(show or self.game.codec.text)(ev[2], ev[1])}")
                continue
            seen = viewer is None or how == "roll" or (how == "roll owner" and viewer == actor)
            if seen:
                verb = "drew" if how == "draw" else "rolled"
                out.append(f"{verb} {(show or self.game.codec.text)(ev[2], ev[1])}")
        return out

    def legal_actions(self, player: Optional[int] = None) -> list[Action]:
        if self.outcome is not None:
            return []
        if self.pending is not None:
            return [a for a, _ in self.chance_outcomes()]
        if self.choosing is not None:
            return [a for a in choice_actions(self.game, self) if player is None or a.player == player]
        L = self._legal
        if L is None:
            L = self._legal = self.game._all_legal(self)
        elif L.__class__ is Moves:   # listed by legal_moves(): the same actions, as Actions
            g, me = self.game, self.ctl[4][self.ctl[2] % len(self.ctl[4])]
            names = [g.actions[playout.move_kind(L, i)].name for i in range(len(L))]
            L = self._legal = [Action(k, params, None, me, None, g) for k, params in zip(names, L)]
        if player is not None:
            return [a for a in self._legal if a.player == player]
        return list(self._legal)

    def returns(self) -> list[float]:
        n = self.game.num_players
        if self.outcome is None or not self.outcome[1]:
            return [0.0] * n
        winners = set(self.outcome[1])
        if len(winners) == n:
            return [0.0] * n
        return [1.0 if p in winners else -1.0 for p in range(n)]

    def winners(self) -> tuple[int, ...]:
        return () if self.outcome is None else self.outcome[1]

    def ending(self) -> Optional[str]:
        """The name of the ending that finished the game, if it is over."""
        return None if self.outcome is None else self.outcome[0]

    def scores(self) -> list[int]:
        g = self.game
        if g.ns.get("score") is None:
            return [0] * g.num_players
        try:
            return [g.ns["score"](self.S, p) for p in range(g.num_players)]
        except RecursionError:
            raise ModelError("evaluating the score: the rules call each other without end") from None
        except Exception as e:
            raise ModelError(f"evaluating the score: {_why(e)}") from None

    def observation(self, player: int) -> dict:
        """What ``player`` may see: hidden parts show only their size."""
        return self.game._observation(self, player)

    def __str__(self) -> str:
        return self.game.describe(self)

    # ------------------------------------------------------------ moves
    def apply_action(self, action: Union[Action, int]) -> None:
        self.game._apply(self, action)

    def legal_moves(self) -> list:
        """The legal moves, lean: in the order of ``legal_actions()``, where
        one player decides the parameter tuples of the actions (no Action
        objects, labels or ids), elsewhere the Actions; see
        ``atoll.compiler.playout``."""
        L = self._legal
        return L if L is not None else playout.legal_moves(self.game, self)

    def apply_move(self, i: int) -> None:
        """Apply move ``i`` of ``legal_moves()`` (as ``apply_action`` would the same action)."""
        playout.apply_move(self.game, self, i)

    def sample_chance(self) -> Action:
        """Pick the outcome of the pending chance event from the state's seeded stream."""
        outcomes = self.chance_outcomes()
        if not outcomes:
            raise ValueError("no chance event is pending: sample_chance() is for chance nodes "
                             "(is_chance_node())")
        r = _splitmix(self.rng[0], self.rng[1]) % (1 << 53) / float(1 << 53)
        self.rng[1] += 1
        acc = 0.0
        for a, p in outcomes:
            acc += p
            if r < acc:
                return a
        return outcomes[-1][0]

    # ------------------------------------------------------------ saving
    def to_json(self) -> str:
        """The game saved as text (format ``atoll-state/1``): the values, the
        seed and the whole history, with a checksum; ``Game.state_from_json``
        loads it (see there for what loading checks)."""
        return json.dumps(savegame.state_to_data(self.game, self), sort_keys=True)


@dataclass
class _Ending:
    name: str
    time: str
    cites: tuple[str, ...]
    kind: str          # win, tie, rank
    tie: str = "tie"


class Game(FlowEngine, GameText):
    """A compiled game for one player count and one choice of options."""

    def __init__(self, *, title, file, ns, layout, num_players, options, codec, slot_types,
                 visibility, actions, phases, rounds, endings, teams, program_info, source):
        self.title = title
        self.file = file
        self.ns = ns
        self.layout = layout
        self.num_players = num_players
        self.options = options
        self.codec: ValueCodec = codec
        self.slot_types = slot_types          # type of each S slot
        self.visibility = visibility          # (scope, visibility) of each S slot
        self.actions: list[ActionSpec] = actions
        self.action_by_name = {a.name: a for a in actions}
        self.phases: dict[str, PhaseSpec] = phases
        self.rounds = rounds                  # per round decl: list of (stage index, phases)
        self.endings: list[_Ending] = endings
        self.teams = teams
        self.team_of = {p: t for t in teams for p in t}
        self.info = program_info
        self.source = source                  # the generated Python module
        self._ids: dict = {}                  # (action, params, player) -> id, see _action_id
        self._chances: dict = {}              # (item, type) -> chance Action, see _chance_action
        self._pending_acts: dict = {}         # id -> (spec, params, player) of an action that waited for chance
        self._fn = {a.index: (ns[N.action("gen", a.name)], ns[N.action("why", a.name)],
                              ns[N.action("effect", a.name)], ns[N.action("ensures", a.name)])
                    for a in actions}
        # whether a choice leaves every `ensures` true (None: the action has none)
        self._ok = {a.index: ns.get(N.action("ok", a.name)) for a in actions}
        self._choices = {a.index: ns[N.action("choices", a.name)] for a in actions}   # the legal ones
        self._phase_fn = {name: (ns[N.phase("enter", name)], ns.get(N.phase("auto", name)),
                                 ns[N.phase("done", name)], ns[N.phase("repeat", name)])
                          for name in phases}
        ns["DRY"] = _DryRun()
        # Bound once, for the hot paths: what each step is called in an error
        # message, and the endings by their timing.
        self._any_sim = any(stage[2] == "simultaneous" for rd in rounds for stage in rd)
        self._round_fn = [ns[N.round_fn(i)] for i in range(len(rounds))]
        self._stage_fn = [[ns[N.stage_fn(i, j)] for j in range(len(rd))] for i, rd in enumerate(rounds)]
        self._phase_where = {name: (f"entering phase `{name}`", f"phase `{name}`",
                                    f"the end condition of phase `{name}`") for name in phases}
        self._phase_step = {name: self._phase_fn[name] + self._phase_where[name]
                            + (ns.get(N.phase("donem", name)),) for name in phases}
        self._action_where = [f"action `{a.name}`" for a in actions]
        self._choices_where = [f"the choices of action `{a.name}`" for a in actions]
        # per phase, for listing the legal actions: (error text, choices, action name, spec)
        self._listing = {name: tuple((self._choices_where[ai], self._choices[ai], actions[ai].name,
                                      actions[ai]) for ai in ph.actions)
                         for name, ph in phases.items()}
        self._move_listing = {name: tuple((self._choices_where[ai], self._choices[ai], ai) for ai in ph.actions)
                              for name, ph in phases.items()}
        # per phase, the same walk in one generated function where the module has it
        # (compiler/lower_listing.py); playout._list falls back to the walk
        self._phase_list = {name: ns.get(N.phase("list", name)) for name in phases}
        self._ends: dict[str, list] = {}
        for en in endings:
            self._ends.setdefault(en.time, []).append(
                (en, f"ending `{en.name}`", ns[N.ending_cond(en.name)], ns.get(N.ending_winners(en.name)),
                 ns.get(N.ending_rank(en.name))))
        # per timing: the test of all its conditions at once, and its endings
        self._end_test = {time: (ns[N.endings_at(time)], ends) for time, ends in self._ends.items()}
        imm = self._end_test.get("immediately")
        self._imm_test = None if imm is None else imm[0]   # (see FlowEngine._act)
        # per action, what the step after it needs (see FlowEngine._act): its
        # effect, what it is called, and its phase's end test
        self._act_steps = [(self._fn[a.index][2], self._action_where[a.index]) + self._phase_fn[a.phase][2:4]
                           + (self._phase_where[a.phase][2], ns.get(N.phase("donem", a.phase)))
                           for a in actions]
        # the generated flow per position (see compiler/lower_flow.py), or
        # None where the module has none (the interpreter runs the flow)
        self._flend = None
        self._inits = None   # see new_initial_state
        if all(N.flow_end(i, j, k) in ns for i, rd in enumerate(rounds)
                                     for j, stage in enumerate(rd) for k in range(len(stage[1]))):
            self._flend = [[[ns[N.flow_end(i, j, k)] for k in range(len(stage[1]))] for j, stage in enumerate(rd)]
                           for i, rd in enumerate(rounds)]
        # The slots that hold ints, with the test that they are within the bound:
        # every int (for the setup and saving), and after an action only the
        # ints that can have changed (see atoll.compiler.intbound).
        self._int_slots = tuple((i, ok) for i, ok in ((i, codec.bounded(t)) for i, t in enumerate(slot_types))
                                if ok is not None)
        watched, built = program_info.get("int_watch", (frozenset(range(1, len(slot_types))), None))
        self._int_watch = tuple((i, ok) for i, ok in ((i, codec.bounded_change(slot_types[i], built))
                                                      for i in sorted(watched)) if ok is not None)
        # the rulebook sections of each step, by the name errors give it
        self._cites = {w: a.cites for w, a in zip(self._action_where, actions)}
        self._cites.update({w: phases[name].cites for name, ws in self._phase_where.items() for w in ws})
        # what an outcome may be called: an ending, or the step whose `win` ended the game
        self._outcome_names = frozenset(
            [en.name for en in endings] + ["setup"]
            + [w.replace("`", "") for w in self._action_where]
            + [w.replace("`", "") for ws in self._phase_where.values() for w in ws])

    def __repr__(self) -> str:
        return f"<Game {self.title} players={self.num_players} options={self.options}>"

    # ------------------------------------------------------------ states
    def new_initial_state(self, seed: int = 0, chance: str = "auto") -> State:
        """A new game. ``chance="auto"``: chance events are resolved at once
        from the seeded stream (same seed and actions, same game).
        ``chance="explicit"``: the state stops at chance nodes and waits for
        an outcome from ``chance_outcomes()`` (as OpenSpiel does)."""
        if chance not in ("auto", "explicit"):
            raise ValueError("chance must be 'auto' or 'explicit'")
        st = State(self)
        st.chance_mode = chance
        st.rng = [int(seed) & _MASK, 0]
        inits = self._inits
        if inits is None:   # each state variable's initial value, by its function (bound once)
            inits = self._inits = [(self.ns[N.init(name)], scope == "global")
                                   for name, scope in self.info["state_vars"]]
        st.S = [0] + [init() if one else tuple(init() for _ in range(self.num_players))
                      for init, one in inits] + \
               list(self.info.get("phase_initial") or [None] * self.info["phase_slots"])
        self._transact(st, None, [] if chance == "explicit" else None)
        return st

    # ------------------------------------------------------------ transactions
    def _transact(self, st: State, action: Optional[tuple], forced: Optional[list],
                  choices: Optional[list] = None) -> None:
        """Apply ``action`` ((spec, params[, player at a simultaneous node]), or
        None for the setup) and everything automatic after it; keep the
        result only if it all succeeds."""
        # The state works on copies of its values and control (the values
        # themselves are never changed in place); on any failure the
        # originals are put back.
        S0, ctl0, outcome0 = st.S, st.ctl, st.outcome
        st.S, st.ctl = list(S0), list(ctl0)
        X = Transaction(st.rng[0], st.rng[1], forced, choices)
        self._where = "setup"
        try:
            if action is None:
                self.ns["setup"](st.S, X)
                st.S[0] = 0
                self._begin_round(st, X)
                if st.outcome is None and not self._after_effects(st, X):
                    self._settle(st, X)
            else:
                spec, params = action[0], action[1]
                if len(action) > 2 and action[2] is not None:   # a simultaneous choice
                    self._take_slot(st, action[2])
                me = st.ctl[4][st.ctl[2] % len(st.ctl[4])]
                st.ctl[6] = True
                self._where = self._action_where[spec.index]
                self._fn[spec.index][2](st.S, me, X, *params)
                if X.end == "phase" and X.outcome is None and not st.ctl[5] and self._flend is not None:
                    # as _after_effects: the endings `immediately`, then the end
                    # of the phase and _settle, by the generated flow (see _act)
                    if not self._check_endings(st, X, "immediately"):
                        X.end = None
                        self._flow(st, st.S, st.ctl, X)
                elif not self._after_effects(st, X):
                    self._settle(st, X)
            if action is None:
                self._past_bound(st, S0, ctl0, outcome0, action, forced)
            else:   # only where an action can have made an int too large (see _int_watch)
                S = st.S
                for i, ok in self._int_watch:
                    v = S[i]
                    if v is not S0[i] and v is not None and not ok(v, S0[i]):
                        self._past_bound(st, S0, ctl0, outcome0, action, forced)
        except BaseException as e:
            st.S, st.ctl, st.outcome = S0, ctl0, outcome0
            self._stopped(st, e, action, forced, choices, X)
            return
        st.rng[1] = X.counter
        if forced is not None and X.last is not None:
            st._drawn = X.last   # (see _ChanceNode.after)
        st.pending = None
        st.choosing, st.chosen = None, []
        st._legal = None
        st._events = X.events

    def _stopped(self, st: State, e: BaseException, action: Optional[tuple], forced: Optional[list],
                 choices: Optional[list], X: Transaction) -> None:
        """A transaction stopped by ``e`` (the state is back as it was): wait
        for a choice or for chance, or raise the error as play words it."""
        if isinstance(e, _NeedChoice):
            wait_for_choice(self, st, e, action, forced, choices, X)
            return
        if isinstance(e, _NeedChance):
            st.choosing, st.chosen = None, list(choices or [])
            aid = None if action is None else self._action_id(
                action[0], action[1], action[2] if len(action) > 2 else None)
            if aid is not None:   # kept, so that the outcome finds it without listing (_decode_pending)
                if len(self._pending_acts) >= _KEPT:
                    self._pending_acts.clear()
                self._pending_acts[aid] = (action[0], action[1], action[2] if len(action) > 2 else None)
            # the type of each outcome given so far: that of the draw
            # that took it (draws of one transaction may differ in type)
            given = list(forced or [])
            types = [ev[2] for ev in X.events if ev[0] not in ("note", "chose")][:len(given)]
            st.pending = (aid, given, e.bag, e.elem_type, types)
            # the outcomes counted from the last node's, when this draw's bag is what a
            # draw left of it (see _ChanceNode.after); else counted when first asked
            node = st._chance
            if node is not None and not node.counts(st.pending):
                st._chance = node.after(st.pending, X.last if X.last is not None else st._drawn)
            st._legal = None
            st._events = X.events + [("waits", e.how)]
            return
        if isinstance(e, (IllegalAction, ModelError)) or not isinstance(e, Exception):
            raise
        if isinstance(e, RecursionError):
            raise ModelError(f"evaluating {self._where}: the rules call each other without end "
                             "(for example two `ensures` that ask `can` of each other)") from None
        # a spec bug surfaced by evaluation
        raise ModelError(f"evaluating {self._where}: {_why(e)}") from None

    def _take_slot(self, st: State, player: int) -> None:
        """Let ``player`` (still to choose in this stage) play now."""
        players = list(st.ctl[4])
        i = players.index(player, st.ctl[2])
        players[st.ctl[2]], players[i] = players[i], players[st.ctl[2]]
        st.ctl[4] = tuple(players)

    def _all_legal(self, st: State) -> list:
        if not self._any_sim or not self._sim_point(st):
            return self._legal(st)
        out = []
        done = self._phase_fn[self._phase_name(st)][2]
        for q in st.ctl[4][st.ctl[2]:]:
            c = st.clone()
            self._take_slot(c, q)
            if not done(c.S, q):
                out.extend(self._legal(c, simultaneous=True))
        return out

    def _legal(self, st: State, simultaneous: bool = False) -> list[Action]:
        ctl, S = st.ctl, st.S
        me = ctl[4][ctl[2] % len(ctl[4])]
        out = []
        memo = kept_choices(st)
        try:
            for where, choices, kind, spec in self._listing[self.rounds[ctl[0]][ctl[1]][1][ctl[3]]]:
                self._where = where
                room = MAX_LEGAL + 1 - len(out)   # a state lists at most MAX_LEGAL actions
                if simultaneous:
                    out.extend([self._make_action(spec, params, me, True)
                                for params in islice(choices(S, me) if memo is None or spec.index not in memo
                                     else memo[spec.index], room)])
                else:
                    for params in islice(choices(S, me) if memo is None or spec.index not in memo
                                     else memo[spec.index], room):
                        out.append(Action(kind, params, None, me, None, self))
                if len(out) > MAX_LEGAL:
                    raise ModelError(f"evaluating {where}: more than {MAX_LEGAL:,} legal actions in one "
                                     "state (a limit of the model: narrow the parameters' domains)")
        except RecursionError:
            raise ModelError(f"evaluating {self._where}: the rules call each other without end") from None
        except (ModelError, IllegalAction):
            raise
        except Exception as e:
            raise ModelError(f"evaluating {self._where}: {_why(e)}") from None
        return out

    def _action_id(self, spec: ActionSpec, params: tuple, player: Optional[int] = None) -> int:
        """Injective: the action, its parameters, and at a simultaneous node the player.
        Kept once computed (the same moves come back state after state)."""
        key = (spec.index, params, player)
        try:
            return self._ids[key]
        except KeyError:
            pass
        except TypeError:   # a parameter holding a map: not kept
            key = None
        nat = [spec.index + 1 + (0 if player is None else len(self.actions) * (player + 1))]
        for (_, t), v in zip(spec.params, params):
            self.codec.naturals(t, v, nat)
        out = pack(nat)
        if key is not None:
            if len(self._ids) >= _KEPT:
                self._ids.clear()
            self._ids[key] = out
        return out

    def _make_action(self, spec: ActionSpec, params: tuple, player: int,
                     simultaneous: bool = False) -> Action:
        if simultaneous:   # its id and label (naming the player) computed when first asked for
            return Action(spec.name, params, _SIMULTANEOUS, player, False, self)
        return Action(spec.name, params, None, player, None, self)

    def _label(self, kind: str, params: tuple) -> str:
        spec = self.action_by_name[kind]
        return kind + "(" + ", ".join(
            f"{n}={self.codec.text(t, v)}" for (n, t), v in zip(spec.params, params)) + ")"

    def _chance_action(self, item, elem_type) -> Action:
        key = (item, elem_type)
        try:
            return self._chances[key]   # (an Action is never changed: one object serves)
        except KeyError:
            pass
        except TypeError:   # an item holding a map: not kept
            key = None
        nat = [0]
        self.codec.naturals(elem_type, item, nat)
        out = Action("chance", (item,), pack(nat), CHANCE,
                     f"chance: draw {self.codec.text(elem_type, item)}")
        if key is not None:
            if len(self._chances) >= _KEPT:
                self._chances.clear()
            self._chances[key] = out
        return out

    def _apply(self, st: State, action) -> None:
        if st.outcome is not None:
            raise IllegalAction(f"the game is over (ending `{st.outcome[0]}`); no action is legal")
        if st.choosing is not None:
            apply_choice(self, st, action)
            return
        if isinstance(action, Action) and action._game is self and st.pending is None \
                and not self._sim_point(st):
            # One of this game's actions: found among the legal ones without its id.
            legal = st._legal if st._legal.__class__ is list else st.legal_actions()
            for match in legal:
                if match is action:
                    break
            else:
                match = next((a for a in legal if a.kind == action.kind and a.params == action.params),
                             None)
                if match is None:
                    raise IllegalAction(self._explain(st, action))
            forced = [] if st.chance_mode == "explicit" else None
            self._act(st, self.action_by_name[match.kind].index, match.params, forced)
            if st.pending is not None:
                st.pending = (match.id,) + st.pending[1:]
            st._hist.append(match)
            return
        aid = action.id if isinstance(action, Action) else action
        if not isinstance(aid, int) or isinstance(aid, bool):
            raise IllegalAction(f"an action is an Action or its integer id, not {action!r}")
        if st.pending is not None:
            node = st._chance
            if node is None or not node.counts(st.pending):
                st._chance_counts()
                node = st._chance
            item = node.item_of(aid)
            if item is not _NONE:
                pending_id, outcomes = st.pending[0], st.pending[1] + [item]
                act = None if pending_id is None else self._decode_pending(st, pending_id)
                self._transact(st, act, outcomes, st.chosen)
                st._hist.append(aid)
                return
            raise IllegalAction("a chance event is pending: the next action must be one of "
                                "chance_outcomes()")
        legal = st._legal if st._legal.__class__ is list else st.legal_actions()
        sim = self._sim_point(st)
        match = None
        if isinstance(action, Action):   # found without the other moves' ids when it is one of them
            match = next((a for a in legal if a is action), None)
        if match is None:
            match = next((a for a in legal if a.id == aid), None)
        if match is not None:
            spec = self.action_by_name[match.kind]
            forced = [] if st.chance_mode == "explicit" else None
            if sim:
                self._transact(st, (spec, match.params, match.player), forced)
            else:
                self._act(st, spec.index, match.params, forced)
            if st.pending is not None:
                st.pending = (aid,) + st.pending[1:]
            st._hist.append(aid)
            return
        raise IllegalAction(self._explain(st, action))

    def _decode_pending(self, st: State, aid: int):
        """The action whose effects wait for chance: it was legal in this state."""
        known = self._pending_acts.get(aid)
        if known is not None:
            return known
        sim = self._sim_point(st)
        for a in self._all_legal(st):
            if a.id == aid:
                return (self.action_by_name[a.kind], a.params, a.player if sim else None)
        raise CorruptState("the pending action is not legal in this state")  # pragma: no cover

    # ------------------------------------------------------------ saved games
    def state_from_json(self, text: str) -> State:
        """Load a saved game (the text ``State.to_json()`` wrote).

        The save is refused with ``CorruptState`` (whose ``field`` names the
        first bad field, and whose message gives the reason) unless it is of
        this game, player count and options, every field has its type and
        range, its checksum matches, and replaying its history from its seed
        gives exactly the saved state. So what loads is a state the rules
        reach, equal to the one saved; the caller's text is not changed.
        The format is described in ``atoll.compiler.savegame``."""
        return savegame.load(self, text)

    def state_from(self, position: dict, seed: int = 0, player: Optional[int] = None,
                   phase: Optional[str] = None, chance: str = "auto") -> State:
        """A position set by hand, for a worked example: the state after setup
        (from ``seed``) with the variables in ``position`` replaced (names and
        JSON values as a save writes them), ``player`` to act in ``phase``
        (both optional). Every value is checked as a save's; the position is
        not replayed (the rules may never reach it). Raises ``BadPosition``
        (a ``CorruptState``) naming the bad field. See
        ``atoll.compiler.position``."""
        return position_from(self, position, seed, player, phase, chance)

    def _past_bound(self, st: State, S0, ctl0, outcome0, action, forced) -> None:
        """Stop a transaction that made an int of the state too large: the
        setup (``action`` None) is tested in full, an action where it can
        have grown (``_int_watch``); the error names the variable and the
        step that made it (found by running the transaction again, step by
        step; see atoll.compiler.intbound)."""
        S = st.S
        if action is None:
            bad = [i for i, ok in self._int_slots if S[i] is not None and not ok(S[i])]
        else:
            bad = [i for i, ok in self._int_watch
                   if S[i] is not S0[i] and S[i] is not None and not ok(S[i], S0[i])]
        if not bad:
            return
        where, i = ("the setup", bad[0]) if action is None else \
            intbound.locate(self, st, S0, ctl0, outcome0, action, forced, bad[0])
        raise ModelError(f"evaluating {where}{_cite(self._cites.get(where, ()))}: `{self.layout.names[i]}` "
                         f"holds an int past the bound of ints (|n| < 10**18, see the language "
                         f"reference); the state is unchanged")



from atoll.compiler import playout   # noqa: E402 - it reads this module's names
from atoll.compiler.playout import Moves, kept_choices   # noqa: E402
