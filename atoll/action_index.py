"""Action slots for learning libraries: ``ActionIndex`` maps the legal
actions (or moves) of any state of a game into a fixed number of slots by
hashing each action's stable id (see ``atoll.encoding``, which re-exports
it). This module needs no third-party package."""
from __future__ import annotations

import hashlib
from itertools import count
from typing import Iterable

from atoll.compiler.runtime import CHANCE, Action, Game


def _digest(data: bytes) -> int:
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")


class ActionIndexFull(ValueError):
    """A state has more legal actions than the index has slots."""


class ActionIndex:
    """Slots ``0 .. size-1`` for the legal actions of any state of ``game``.
    ``setting`` names the parameter that sets ``size``, for error messages."""

    def __init__(self, game: Game, size: int = 1024, setting: str = "num_actions"):
        if not isinstance(size, int) or isinstance(size, bool) or size < 1:
            raise ValueError(f"{setting} (the number of action slots) must be a positive integer, "
                             f"not {size!r}")
        self.game = game
        self.size = size
        self.setting = setting
        self._home: dict[int, int] = {}
        self._key: dict[tuple, int] = {}
        self._move_home: dict[int, dict] = {}   # action index -> params -> home slot, see assign_moves
        self._move_id: dict[int, dict] = {}     # action index -> params -> id
        self._getters: dict = {}                # action index -> its _move_home dict's __getitem__

    def key(self, action: Action) -> int:
        """The action's stable id, without the player a simultaneous node adds
        to it, so that a move has one slot wherever it is played."""
        if action.player == CHANCE or action.kind == "chance":
            return action.id
        try:
            return self._key[(action.kind, action.params)]
        except KeyError:
            pass
        except TypeError:       # a parameter that is a map: not hashable, not memoised
            return self.game._action_id(self.game.action_by_name[action.kind], action.params)
        k = self.game._action_id(self.game.action_by_name[action.kind], action.params)
        if len(self._key) < 1_000_000:
            self._key[(action.kind, action.params)] = k
        return k

    def home(self, key: int) -> int:
        slot = self._home.get(key)
        if slot is None:
            slot = _digest(key.to_bytes(max(1, (key.bit_length() + 7) // 8), "big")) % self.size
            if len(self._home) < 1_000_000:
                self._home[key] = slot
        return slot

    def assign(self, actions: Iterable[Action]) -> dict[int, Action]:
        """Slot -> action for actions that are legal together."""
        keyed = sorted(((self.key(a), a) for a in actions), key=lambda ka: ka[0])
        if len(keyed) > self.size:
            raise ActionIndexFull(
                f"this state has {len(keyed)} legal actions, more than the {self.size} action slots; "
                f"ask for more slots ({self.setting}={_next_power(len(keyed) * 4)})")
        out: dict[int, Action] = {}
        for k, a in keyed:
            slot = self.home(k)
            while slot in out:
                slot = (slot + 1) % self.size
            out[slot] = a
        return out

    def assign_moves(self, moves) -> dict[int, int]:
        """Slot -> index in ``moves``, a state's ``legal_moves()`` where one
        player decides (``atoll.compiler.playout.Moves``: parameter tuples,
        no Action objects): the slots ``assign`` gives the same actions.
        When no two moves share a home slot, every move gets its home, as
        ``assign`` would give it (it moves a move only to resolve a clash)."""
        getters = self._getters
        slots: list = []
        start = 0
        try:
            for end, ai in moves.ends:
                if end != start:
                    slots += map(getters[ai], moves[start:end])
                    start = end
        except (KeyError, TypeError):   # a move (or an action) not seen yet, or a parameter holding a map
            slots = [self._move_slot(ai, moves[i])[1] for i, ai in _kinds_of(moves)]
        out = dict(zip(slots, count()))
        if len(out) == len(slots):
            return out
        # two moves share a home slot (or are the same move, listed twice): as assign orders them
        ids = self._move_id
        keyed = []
        for i, ai in _kinds_of(moves):
            try:
                keyed.append((ids[ai][moves[i]], i))
            except (KeyError, TypeError):
                keyed.append((self._move_slot(ai, moves[i])[0], i))
        keyed.sort()
        if len(keyed) > self.size:
            raise ActionIndexFull(
                f"this state has {len(keyed)} legal actions, more than the {self.size} action slots; "
                f"ask for more slots ({self.setting}={_next_power(len(keyed) * 4)})")
        out = {}
        home, size = self.home, self.size
        for k, i in keyed:
            slot = home(k)
            while slot in out:
                slot = (slot + 1) % size
            out[slot] = i
        return out

    def _move_slot(self, ai: int, params: tuple) -> tuple:
        """(id, home slot) of the move ``params`` of action ``ai`` (kept, unless a parameter is a map)."""
        g = self.game
        k = g._action_id(g.actions[ai], params)
        h = (k, self.home(k))
        cache = self._move_home.get(ai)
        if cache is None:
            cache = self._move_home[ai] = {}
            self._getters[ai] = cache.__getitem__
        try:
            if len(cache) < 200_000:
                cache[params] = h[1]
                self._move_id.setdefault(ai, {})[params] = k
        except TypeError:   # a parameter that is a map: not kept
            pass
        return h


def _kinds_of(moves):
    """(index, action index) of each move of ``moves`` (a ``Moves``)."""
    start = 0
    for end, ai in moves.ends:
        for i in range(start, end):
            yield i, ai
        start = end


def _next_power(n: int) -> int:
    p = 1
    while p < n:
        p *= 2
    return p
