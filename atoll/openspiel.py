"""A compiled game as an OpenSpiel Python game.

    >>> import pyspiel, atoll.openspiel                                    # doctest: +SKIP
    >>> name = atoll.openspiel.register("spec/GAME.atoll", players=2)      # doctest: +SKIP
    >>> game = pyspiel.load_game(name)                # or f"{name}(players=3)"  # doctest: +SKIP
    >>> pyspiel.random_sim_test(game, num_sims=5, serialize=True, verbose=False)  # doctest: +SKIP

The mapping:

* **Actions** are the slots of ``atoll.encoding.ActionIndex``
  (``num_distinct_actions``, default 1024): a move keeps its slot from state
  to state; ``action_to_string`` gives the spec's label.
* **Chance**: the state runs with ``chance="explicit"``, so every draw is an
  OpenSpiel chance node whose ``chance_outcomes()`` are the distinct items
  of the bag with their probabilities (slots of a second index of
  ``max_chance_outcomes`` slots, default 1024).
* **Simultaneous stages** are played as sequential moves with imperfect
  information (``Dynamics.SEQUENTIAL``): at an Atoll ``SIMULTANEOUS`` node
  the lowest seat still to choose is the current player, then the next one,
  and so on. Nobody sees the others' choices before the stage ends, because
  Atoll observations hide them. This is the same game in extensive form, and
  it lets sequential algorithms (MCTS) play it. A game without hidden state
  and without simultaneous stages is declared ``PERFECT_INFORMATION``.
* **Observations**: ``observation_string`` is the player's Atoll observation
  as JSON; ``observation_tensor`` is ``atoll.encoding.ObservationEncoder``'s
  vector. ``information_state_string`` is the current observation plus a
  digest of everything the player saw and did so far (perfect recall:
  the sequence of the player's distinct observations and their own
  actions). There is no information-state tensor.
* **Returns**: ``State.returns()`` at the end (+1 a winner, -1 the others,
  0 for everyone in a tie), 0 before. Utility is zero-sum when the spec
  allows only 2 players, general-sum otherwise.
* ``max_game_length`` (default 10000) is a bound OpenSpiel requires and
  Atoll cannot compute for every game: pass a tighter one if you know it.

OpenSpiel's C++ MCTS (``pyspiel.MCTSBot``) crashes on Python-implemented
games (OpenSpiel's own included); use the Python one,
``open_spiel.python.algorithms.mcts.MCTSBot`` (see docs/ecosystem.md).

Needs the ``openspiel`` extra: ``pip install "atoll[openspiel]"``.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Union

try:
    import numpy as np
    import pyspiel
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError(f"atoll.openspiel needs OpenSpiel ({e.name} is missing): "
                      "pip install \"atoll[openspiel]\"") from None

from atoll.compiler.pipeline import Compiled, compile_spec, instantiate
from atoll.compiler.runtime import SIMULTANEOUS, Game, IllegalAction
from atoll.compiler.playout import Moves, apply_move, legal_moves
from atoll.encoding import ActionIndex, ObservationEncoder, acting_player, observation_text

__all__ = ["register"]

_CHANCE = int(pyspiel.PlayerId.CHANCE)


@dataclass
class _Entry:
    """What a registered name loads."""
    name: str
    comp: Compiled
    options: dict
    players: int
    num_actions: int
    max_chance_outcomes: int
    max_game_length: int
    hash_size: Optional[int]
    game_type: object = None
    stochastic: bool = True
    zero_sum: bool = False
    games: dict = field(default_factory=dict)    # players -> atoll Game
    loaded: dict = field(default_factory=dict)   # players -> the last AtollGame made

    def atoll_game(self, players: int) -> Game:
        if players not in self.games:
            self.games[players] = instantiate(self.comp, players, self.options)
        return self.games[players]


_ENTRIES: dict[str, _Entry] = {}


def register(spec: Union[str, Path, Game], players: Optional[int] = None, options: Optional[dict] = None,
             name: Optional[str] = None, *, num_actions: int = 1024, max_chance_outcomes: int = 1024,
             max_game_length: int = 10_000, hash_size: Optional[int] = None) -> str:
    """Register the spec at ``spec`` (or the spec of a loaded ``atoll.Game``,
    with its players and options) as an OpenSpiel game, and return its name
    for ``pyspiel.load_game``. ``players`` is the default of the game's
    ``players`` parameter; ``options`` are fixed. The name defaults to
    ``atoll_<file stem>``; registering a name again replaces what it loads."""
    if isinstance(spec, Game):
        if players is not None or options:
            raise ValueError("players and options come from the loaded game; pass the spec's path "
                             "to choose them")
        players, options, spec = spec.num_players, dict(spec.options), spec.file
    path = Path(spec)
    for label, value in (("num_actions", num_actions), ("max_chance_outcomes", max_chance_outcomes),
                         ("max_game_length", max_game_length)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ValueError(f"{label} must be a positive integer, not {value!r}")
    comp = compile_spec(path)
    lo, hi = comp.program.player_range
    players = lo if players is None else players
    if name is None:
        name = "atoll_" + (re.sub(r"[^a-z0-9]+", "_", path.stem.lower()).strip("_") or "game")
    elif not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise ValueError(f"an OpenSpiel game name is letters, digits and underscores, not {name!r}")
    entry = _Entry(name, comp, dict(options or {}), players, num_actions, max_chance_outcomes,
                   max_game_length, hash_size)
    game = entry.atoll_game(players)          # checks players and options (SpecError)
    ObservationEncoder(game, hash_size)       # checks hash_size
    entry.stochastic = "X.draw(" in comp.source   # the lowering's only way to chance
    hidden = any(vis != "all" for _, vis in game.visibility)
    simultaneous = any(stage[2] == "simultaneous" for stages in game.rounds for stage in stages)
    entry.zero_sum = hi == 2
    GT = pyspiel.GameType
    entry.game_type = GT(
        short_name=name,
        long_name=f"Atoll: {game.title} ({path.name})",
        dynamics=GT.Dynamics.SEQUENTIAL,
        chance_mode=GT.ChanceMode.EXPLICIT_STOCHASTIC if entry.stochastic else GT.ChanceMode.DETERMINISTIC,
        information=(GT.Information.IMPERFECT_INFORMATION if hidden or simultaneous
                     else GT.Information.PERFECT_INFORMATION),
        utility=GT.Utility.ZERO_SUM if entry.zero_sum else GT.Utility.GENERAL_SUM,
        reward_model=GT.RewardModel.TERMINAL,
        max_num_players=hi,
        min_num_players=lo,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"players": players},
    )
    _ENTRIES[name] = entry
    # A class, as OpenSpiel's own Python games register: a plain function
    # held only by OpenSpiel's C++ registry would be freed without the GIL
    # when the interpreter exits, and crash it.
    creator = type(f"AtollGame_{name}", (AtollGame,), {"entry_name": name})
    pyspiel.register_game(entry.game_type, creator)
    return name


class AtollGame(pyspiel.Game):
    """An Atoll game for OpenSpiel: made by ``pyspiel.load_game`` after
    ``register`` (which makes one subclass per registered name)."""

    entry_name = ""

    def __init__(self, params=None):
        entry = _ENTRIES[self.entry_name]
        params = dict(params or {})
        players = params.get("players", entry.players)
        self.atoll = entry.atoll_game(players)
        self.entry = entry
        info = pyspiel.GameInfo(
            num_distinct_actions=entry.num_actions,
            max_chance_outcomes=entry.max_chance_outcomes if entry.stochastic else 0,
            num_players=players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0 if entry.zero_sum else None,
            max_game_length=entry.max_game_length)
        super().__init__(entry.game_type, info, params)
        self.index = ActionIndex(self.atoll, entry.num_actions)
        self.chance_index = ActionIndex(self.atoll, entry.max_chance_outcomes, "max_chance_outcomes")
        self.encoder = ObservationEncoder(self.atoll, entry.hash_size)
        self._chance_kept = None   # (items, slots, order), see chance_slots
        self.initial = self.atoll.new_initial_state(seed=0, chance="explicit")
        entry.loaded[players] = self

    def new_initial_state(self):
        return AtollState(self)

    def chance_slots(self, st) -> tuple:
        """(slot -> outcome, [(slot, probability)] in slot order) at chance node ``st``.
        The slots depend only on which items may be drawn, so they are kept
        for the last list of items (the engine gives the same list object
        while a draw leaves every item in the bag, see ``_ChanceNode``);
        the probabilities are the engine's own, ``count / total``."""
        outcomes = st._chance_counts()   # (action, count, total), counted once per node
        items = st._chance.items
        kept = self._chance_kept
        if kept is None or kept[0] is not items:
            slots, order = _chance_slots(self.chance_index, outcomes)
            kept = self._chance_kept = (items, slots, order)
        total = outcomes[0][2] if outcomes else 1   # one total per node: the size of the bag drawn from
        return kept[1], [(s, outcomes[i][1] / total) for s, i in kept[2]]

    def make_py_observer(self, iig_obs_type=None, params=None):
        return AtollObserver(self, iig_obs_type, params)


class _Core:
    """The Python side of a state, in one attribute: OpenSpiel copies a state
    by deep-copying its attributes and saves it by pickling them, and an
    Atoll state must be copied with ``clone()`` and saved as JSON."""
    __slots__ = ("game", "st", "slots", "chances", "trail", "by_move", "cp")

    def __init__(self, game: AtollGame, st, trail=None):
        self.game, self.st, self.trail = game, st, trail
        self.slots = self.chances = None
        self.by_move = False   # slots hold indices of legal_moves(), not Actions (see moves())
        self.cp = None         # the current player, kept until the state changes (see player())

    def __deepcopy__(self, memo):
        c = _Core(self.game, self.st.clone(), self.trail)   # the trail is immutable: shared
        c.slots, c.chances, c.by_move, c.cp = self.slots, self.chances, self.by_move, self.cp
        return c

    def player(self) -> int:
        """OpenSpiel's current player (at a simultaneous node, the lowest
        seat still to choose), kept: OpenSpiel asks it several times a step."""
        cp = self.cp
        if cp is None:
            st = self.st
            cp = st.current_player()
            if cp == SIMULTANEOUS:
                cp = acting_player(st)
            self.cp = cp
        return cp

    def moves(self) -> dict:
        """Slot -> what ``apply`` plays: where one player decides, the index
        of a move of ``legal_moves()`` (no Action objects); elsewhere the
        Action (see ``actions``)."""
        if self.slots is None:
            st = self.st
            moves = None
            if st.outcome is None and st.pending is None:
                moves = st._legal   # State.legal_moves(), without the call
                if moves is None:
                    moves = legal_moves(self.game.atoll, st)
            if moves.__class__ is Moves and moves:
                self.slots, self.chances, self.by_move = self.game.index.assign_moves(moves), [], True
                return self.slots
            self.actions()
        return self.slots

    def __reduce__(self):
        g = self.game
        return _restore, (g.entry.name, g.atoll.num_players, self.st.to_json(), self.trail)

    def actions(self) -> dict:
        """Slot -> Atoll action, at this node (chance outcomes at a chance node)."""
        if self.by_move:
            actions = self.st.legal_actions()   # in the order of legal_moves()
            return {s: actions[i] for s, i in self.slots.items()}
        if self.slots is None:
            st = self.st
            if st.is_chance_node():
                self.slots, self.chances = self.game.chance_slots(st)
            elif st.is_terminal():
                self.slots, self.chances = {}, []
            else:
                self.slots = self.game.index.assign(st.legal_actions(player=acting_player(st)))
                self.chances = []
        return self.slots

    def apply(self, slot: int) -> None:
        slots = self.slots
        a = (self.moves() if slots is None else slots).get(slot)
        if a is None:
            raise IllegalAction(f"action {slot} is not legal now; legal: {sorted(self.moves())[:12]}")
        st, trail = self.st, self.trail
        if trail is not None:
            actor = None if st.is_chance_node() else acting_player(st)
            label = str(self.actions()[slot])
        if self.by_move:
            apply_move(self.game.atoll, st, a)   # State.apply_move, without the call
            self.by_move = False
        else:
            self.game.atoll._apply(st, a)   # State.apply_action, without the call
        self.slots = self.chances = self.cp = None
        if trail is not None:
            self.trail = _advance(trail, st, actor, label)

    def info_state(self, player: int, history) -> str:
        if self.trail is None:   # first asked: replay the history once, then keep it up to date
            replay = _Core(self.game, self.game.initial.clone(), _start(self.game.initial))
            for slot in history:
                replay.apply(slot)
            self.trail = replay.trail
        digest, last = self.trail[player]
        return f"{last}\nhistory {digest}"


def _chance_slots(index: ActionIndex, outcomes: list) -> tuple:
    """(slot -> outcome, [(slot, i)] in slot order, i the outcome's place in
    ``outcomes``) of a chance node's ``outcomes`` ((action, ...) each): the
    slots ``index.assign`` gives them, found by their home slots when no two
    share one."""
    kept, home = index._home, index.home
    slots = {}
    for o in outcomes:
        a = o[0]
        k = a._id   # a chance outcome's id is made with it (Game._chance_action)
        if k.__class__ is not int:
            k = a.id
        h = kept.get(k)
        slots[home(k) if h is None else h] = a
    if len(slots) < len(outcomes):   # a clash: as assign resolves it
        slots = index.assign(o[0] for o in outcomes)
        slot_of = {a.id: s for s, a in slots.items()}
        return slots, sorted((slot_of[o[0].id], i) for i, o in enumerate(outcomes))
    return slots, sorted(zip(slots, range(len(outcomes))))


def _start(st) -> tuple:
    n = st.game.num_players
    return tuple((_chain("", o), o) for o in (observation_text(st, p) for p in range(n)))


def _advance(trail: tuple, st, actor, label: str) -> tuple:
    out = []
    for p, (digest, last) in enumerate(trail):
        if p == actor:
            digest = _chain(digest, "did " + label)
        o = observation_text(st, p)
        if o != last:
            digest, last = _chain(digest, o), o
        out.append((digest, last))
    return tuple(out)


def _chain(digest: str, entry: str) -> str:
    return hashlib.sha256((digest + "\n" + entry).encode()).hexdigest()[:32]


def _restore(name: str, players: int, text: str, trail):
    entry = _ENTRIES.get(name)
    game = entry.loaded.get(players) if entry else None
    if game is None:
        raise ValueError(f"cannot restore a state of {name!r} with {players} players: "
                         "register and load that game first")
    return _Core(game, game.atoll.state_from_json(text), trail)


class AtollState(pyspiel.State):
    """An Atoll state for OpenSpiel (see the module documentation)."""

    def __init__(self, game: AtollGame):
        super().__init__(game)
        self._core = _Core(game, game.initial.clone())

    @property
    def atoll_state(self):
        """The underlying ``atoll.State`` (read it; change it only through ``apply_action``)."""
        return self._core.st

    def current_player(self):
        core = self._core
        cp = core.cp
        return core.player() if cp is None else cp

    # is_chance_node and legal_actions answer the usual cases in Python,
    # without the call through OpenSpiel's C++ (which asks current_player
    # back in Python up to three times): the same answers (the C++ way
    # gives ``_legal_actions`` of the player to move where one decides).
    def is_chance_node(self):
        core = self._core
        cp = core.cp
        return (core.player() if cp is None else cp) == _CHANCE

    def legal_actions(self, player=None):
        core = self._core
        cp = core.cp
        if cp is None:
            cp = core.player()
        if cp >= 0 and (player is None or player == cp):
            return sorted(core.moves())
        return super().legal_actions() if player is None else super().legal_actions(player)

    def _legal_actions(self, player):
        return sorted(self._core.moves())

    def chance_outcomes(self):
        core = self._core
        if core.slots is None:
            core.moves()
        return list(core.chances)

    def _apply_action(self, action):
        self._core.apply(int(action))

    def _action_to_string(self, player, action):
        a = self._core.actions().get(int(action))
        return str(a) if a is not None else f"action {action} (not legal here)"

    def is_terminal(self):
        return self._core.st.outcome is not None   # State.is_terminal(), without the call

    def returns(self):
        return self._core.st.returns()

    def __str__(self):
        return str(self._core.st)


class AtollObserver:
    """OpenSpiel's observer interface: a player's own view (public
    information plus the player's private information)."""

    def __init__(self, game: AtollGame, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        if iig_obs_type is not None and (
                not iig_obs_type.public_info
                or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER):
            raise ValueError("Atoll observes for one player at a time: public information plus that "
                             "player's private information")
        self.game = game
        self.perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        if self.perfect_recall:
            self.tensor = None
            self.dict = {}
        else:
            self.tensor = np.zeros(game.encoder.size, np.float32)
            self.dict = {"observation": self.tensor}

    def set_from(self, state, player):
        if self.tensor is not None:
            self.tensor[:] = self.game.encoder.encode_array(state._core.st, player)

    def string_from(self, state, player):
        if self.perfect_recall:
            return state._core.info_state(player, state.history())
        return observation_text(state._core.st, player)
