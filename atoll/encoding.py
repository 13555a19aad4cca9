"""Fixed-size views of a compiled game, for learning libraries.

PettingZoo and OpenSpiel want what Atoll does not have by nature: a fixed
number of action slots, and an observation as a vector of fixed length.
Both are built here, generically, from what every compiled game declares.
The adapters ``atoll.pettingzoo`` and ``atoll.openspiel`` share them. This
module needs no third-party package.

**Actions.** An Atoll action has a stable integer id, but ids are sparse
and unbounded (an action's parameters may be a position, a card or a set of
positions), so a game cannot list its action space in advance.
``ActionIndex`` maps the legal actions of a state into ``size`` slots by
hashing each action's stable id ("feature hashing"): the same move gets the
same slot in every state and every run, except when two moves that are legal
together hash to the same slot; then the one with the larger id takes the
next free slot (linear probing, in id order, so the result is still a
function of the state). A state with more legal actions than slots is
refused with a message that names the remedy.

**Observations.** ``ObservationEncoder`` turns ``State.observation(player)``
into a vector whose layout is derived from the declared types of the state
variables: an int or bool is one number, an enum is one-hot, a record is its
fields, an optional value (``maybe[T]``) is a presence flag then its
value (zeros when absent), a per-player variable is one block per seat, and a collection
(list, set, bag, map) is its size. The contents of collections, and
strings, whose size has no bound, go into a fixed number of hashed count
buckets ("feature hashing" again): each element adds 1 to the bucket of
``"<variable>:<element>"`` and to those of its fields. A hidden value
encodes as zeros (a hidden collection keeps its size, as the observation
shows it). The header holds the observing seat, the player to move, the
phase, the round and the winners.
"""
from __future__ import annotations

import hashlib
import json
from typing import Iterable, Optional

from atoll.compiler.runtime import CHANCE, SIMULTANEOUS, TERMINAL, Action, Game, ModelError

#: Integers in an observation are clipped to this magnitude, so that the
#: observation space has finite bounds.
INT_LIMIT = float(1 << 20)

#: Hashed buckets for the contents of collections, unless told otherwise.
DEFAULT_HASH_SIZE = 256


def _digest(data: bytes) -> int:
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")


def canonical(value) -> str:
    """A JSON value as one deterministic compact string."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


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
        self._move_home: dict[tuple, tuple] = {}   # (action index, params) -> (id, home), see assign_moves

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
        g, cache = self.game, self._move_home
        homes = []
        start = 0
        for end, ai in moves.ends:
            spec = None
            for i in range(start, end):
                params = moves[i]
                try:
                    h = cache[(ai, params)]
                except KeyError:
                    spec = spec or g.actions[ai]
                    k = g._action_id(spec, params)
                    h = (k, self.home(k))
                    if len(cache) < 1_000_000:
                        cache[(ai, params)] = h
                except TypeError:   # a parameter that is a map: not memoised
                    k = g._action_id(g.actions[ai], params)
                    h = (k, self.home(k))
                homes.append(h)
            start = end
        out = {h[1]: i for i, h in enumerate(homes)}
        if len(out) == len(homes):
            return out
        keyed = sorted((h[0], i) for i, h in enumerate(homes))   # ids differ: as assign orders them
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


def _next_power(n: int) -> int:
    p = 1
    while p < n:
        p *= 2
    return p


class ObservationEncoder:
    """``State.observation(player)`` as a list of ``size`` floats.

    ``low`` and ``high`` are the bounds of each position (for a Box space);
    ``hash_size`` is the number of hashed buckets for collection contents
    and strings (0: sizes only; default: ``DEFAULT_HASH_SIZE`` when the
    state has a collection or a string, else 0).
    """

    def __init__(self, game: Game, hash_size: Optional[int] = None):
        if hash_size is not None and (not isinstance(hash_size, int) or isinstance(hash_size, bool)
                                      or hash_size < 0):
            raise ValueError(f"hash_size must be a whole number >= 0, not {hash_size!r}")
        self.game = game
        self.n = game.num_players
        self.codec = game.codec
        self.phases = list(game.phases)
        self._bucket: dict[str, int] = {}
        # encode_state's parts: slot (or (slot, player) for a slot its owner
        # sees) -> (the value, its writes, its hashed counts); see there
        self._parts: dict = {}
        self._acc: dict = {}   # player -> what _update keeps of the player's last vector
        self._elements: dict = {}   # (path, element) -> its buckets (see _collection)
        # per slot: 1 a collection seen by all, 2 one per player seen by all, else 0
        colls = ("list", "set", "bag", "map")
        self._coll_kind = [0] + [
            0 if game.visibility[i][1] != "all" or not isinstance(t, tuple) else
            1 if t[0] in colls else
            2 if t[0] == "player" and isinstance(t[1], tuple) and t[1][0] in colls else 0
            for i, t in enumerate(game.slot_types) if i > 0]
        self._owner = [game.visibility[i] is not None and game.visibility[i][1] == "owner"
                       for i in range(len(game.layout.names))]
        kinds: list[str] = []          # "flag", "int" or "count" per position
        kinds += ["flag"] * self.n                     # observing seat
        kinds += ["flag"] * (self.n + 3)               # to move: a seat, simultaneous, chance, over
        kinds += ["flag"] * len(self.phases)           # phase
        kinds += ["int"]                               # round
        kinds += ["flag"] * self.n                     # winners
        self.header = len(kinds)
        self.slots = []                                # (name, type, offset)
        self._hashed = False
        for i, name in enumerate(game.layout.names):
            if i == 0:
                continue       # the round, in the header
            t = game.slot_types[i]
            self.slots.append((name, t, len(kinds)))
            self._kinds(t, kinds)
        self.exact = len(kinds)
        if hash_size is None:
            hash_size = DEFAULT_HASH_SIZE if self._hashed else 0
        self.hash_size = hash_size
        kinds += ["count"] * hash_size
        self.size = len(kinds)
        bounds = {"flag": (0.0, 1.0), "int": (-INT_LIMIT, INT_LIMIT), "count": (0.0, INT_LIMIT)}
        self.low = [bounds[k][0] for k in kinds]
        self.high = [bounds[k][1] for k in kinds]

    # ------------------------------------------------------------ layout
    def _kinds(self, t, out: list) -> None:
        if t == "int":
            out.append("int")
        elif t == "bool":
            out.append("flag")
        elif t in ("str", "?"):
            self._hashed = True                        # hashed only
        elif t[0] == "enum":
            out.extend(["flag"] * len(self.codec.enums[t[1]]))
        elif t[0] == "record":
            for _, ft in self.codec.records[t[1]]:
                self._kinds(ft, out)
        elif t[0] == "tuple":
            for it in t[1:]:
                self._kinds(it, out)
        elif t[0] == "maybe":   # present or not, then the value (zeros when none)
            out.append("flag")
            self._kinds(t[1], out)
        elif t[0] in ("list", "set", "bag", "map"):
            self._hashed = True
            out.append("count")
        elif t[0] == "player":
            for _ in range(self.n):
                self._kinds(t[1], out)
        else:  # pragma: no cover - the type grammar is closed
            raise AssertionError(t)

    def width(self, t) -> int:
        out: list = []
        self._kinds(t, out)
        return len(out)

    # ------------------------------------------------------------ values
    def encode(self, obs: dict) -> list[float]:
        v = [0.0] * self.size
        self._header(v, obs["player"], obs["current_player"], obs["phase"], obs["round"], obs["winners"])
        features: list[str] = []
        state = obs["state"]
        for name, t, offset in self.slots:
            if name in state:
                self._put(t, state[name], v, offset, name, features)
        if self.hash_size:
            counts: dict[int, float] = {}
            for f in features:
                b = self.bucket(f)
                counts[b] = counts.get(b, 0.0) + 1.0
            for b, c in counts.items():
                v[self.exact + b] = min(c, INT_LIMIT)
        return v

    def encode_state(self, st, player: int) -> list[float]:
        """``encode(st.observation(player))``, made from parts kept per state
        variable: a variable's part (its positions and its hashed counts) is
        made again only when its value is another object than the last time
        (values are never changed in place), or, for a variable seen by its
        owner, for another player; and only the positions whose part changed
        since ``player``'s last vector are written again. Counts are whole
        numbers, so adding and taking away parts gives the very counts
        ``encode`` gives."""
        return list(self._update(st, player)[0])

    def encode_array(self, st, player: int):
        """``encode_state`` as a numpy float32 array (a new one), kept per
        player and changed only where the vector changed."""
        cur, pending, arr = self._update(st, player)
        if arr is None:
            import numpy as np
            arr = self._acc[player][5] = np.array(cur, dtype=np.float32)
        elif pending:
            arr[list(pending)] = list(pending.values())
        pending.clear()
        return arr.copy()

    def _update(self, st, player: int):
        """``player``'s vector brought up to date with ``st``: (the vector,
        the positions changed since the last encode_array with their values,
        the array of encode_array or None)."""
        if not 0 <= player < self.n:
            raise ValueError(f"player must be 0..{self.n - 1}")
        acc = self._acc.get(player)
        if acc is None:
            # (the vector, slot -> its part in it, the hashed counts, the header's
            # positions, the changes not yet in the array, the array)
            acc = self._acc[player] = [[0.0] * self.size, {}, [0.0] * self.hash_size, {}, {}, None]
        cur, used, counts, head0, pending, arr = acc
        head: dict = {}
        self._header(head, player, st.current_player(), st.phase(), st.S[0], st.winners())
        if head != head0:
            for k in head0:
                if k not in head:
                    cur[k] = pending[k] = 0.0
            for k, y in head.items():
                cur[k] = pending[k] = y
            acc[3] = head
        S, parts, owner = st.S, self._parts, self._owner
        exact = self.exact
        for i, (name, t, offset) in enumerate(self.slots, start=1):
            x = S[i]
            if x is None:
                part = None
            else:
                key = (i, player) if owner[i] else i
                part = parts.get(key)
                if part is None or part[0] is not x:
                    part = parts[key] = self._part(i, t, x, offset, name, player)
            old = used.get(i)
            if old is part:
                continue
            if old is not None:
                for k, _ in old[1]:
                    cur[k] = pending[k] = 0.0
                for b, c in old[2]:
                    counts[b] -= c
                    cur[exact + b] = pending[exact + b] = min(counts[b], INT_LIMIT)
            if part is not None:
                for k, y in part[1]:
                    cur[k] = pending[k] = y
                for b, c in part[2]:
                    counts[b] += c
                    cur[exact + b] = pending[exact + b] = min(counts[b], INT_LIMIT)
            used[i] = part
        return cur, pending, arr

    def _part(self, i: int, t, x, offset: int, name: str, player: int) -> tuple:
        """(value, its writes, its hashed counts) of slot ``i`` holding ``x``, as ``player`` sees it."""
        writes: dict = {}
        mine: dict = {}
        coll = self._coll_kind[i]
        if coll == 1:
            self._collection(t, x, writes, offset, name, mine)
        elif coll == 2:
            for q, y in enumerate(x):
                self._collection(t[1], y, writes, offset + q, f"{name}[{q}]", mine)
        else:
            features: list = []
            self._put(t, self.game._slot_view(i, x, player), writes, offset, name, features)
            for f in features if self.hash_size else ():
                b = self.bucket(f)
                mine[b] = mine.get(b, 0.0) + 1.0
        return (x, tuple(writes.items()), tuple(mine.items()))

    def _collection(self, t, x, writes: dict, i: int, path: str, mine: dict) -> None:
        """What ``_put`` writes for collection ``x`` of type ``t`` seen by all
        (its size; each element's hashed features, counted into ``mine``),
        from the values: each element's buckets are kept."""
        writes[i] = float(len(x))
        if not self.hash_size:
            return
        cache, codec = self._elements, self.codec
        is_map = t[0] == "map"
        for e in x:
            key = (path, e, x[e]) if is_map else (path, e)
            try:
                bs = cache.get(key)
            except TypeError:   # an element holding a map: not kept
                key, bs = None, None
            if bs is None:
                j = {"key": codec.to_json(t[1], e), "value": codec.to_json(t[2], x[e])} if is_map \
                    else codec.to_json(t[1], e)
                features: list = []
                _element(path, j, features)
                bs = tuple(self.bucket(f) for f in features)
                if key is not None:
                    if len(cache) >= 200_000:
                        cache.clear()
                    cache[key] = bs
            for b in bs:
                mine[b] = mine.get(b, 0.0) + 1.0

    def _header(self, v: list, player: int, cp: int, phase: str, round_: int, winners) -> None:
        n = self.n
        v[player] = 1.0
        if 0 <= cp < n:
            v[n + cp] = 1.0
        else:
            v[n + n + {SIMULTANEOUS: 0, CHANCE: 1, TERMINAL: 2}.get(cp, 2)] = 1.0
        base = n + n + 3
        if phase in self.phases:
            v[base + self.phases.index(phase)] = 1.0
        base += len(self.phases)
        v[base] = _clip(round_)
        for w in winners:
            v[base + 1 + w] = 1.0

    def bucket(self, feature: str) -> int:
        b = self._bucket.get(feature)
        if b is None:
            b = _digest(feature.encode()) % self.hash_size
            if len(self._bucket) < 1_000_000:
                self._bucket[feature] = b
        return b

    def _put(self, t, j, v: list, i: int, path: str, features: list) -> int:
        """Write JSON value ``j`` of type ``t`` at ``v[i:]``; return the next offset."""
        if _is_hidden(j, t, self.codec):
            if isinstance(t, tuple) and t[0] in ("list", "set", "bag", "map"):
                v[i] = float(j.get("size", 0))
                return i + 1
            return i + self.width(t)
        if t == "int":
            v[i] = _clip(j)
            return i + 1
        if t == "bool":
            v[i] = 1.0 if j else 0.0
            return i + 1
        if t in ("str", "?"):
            features.append(f"{path}={j!r}")
            return i
        kind = t[0]
        if kind == "enum":
            members = self.codec.enums[t[1]]
            if j in members:
                v[i + members.index(j)] = 1.0
            return i + len(members)
        if kind == "record":
            for fname, ft in self.codec.records[t[1]]:
                i = self._put(ft, j[fname], v, i, f"{path}.{fname}", features)
            return i
        if kind == "tuple":
            for k, (it, x) in enumerate(zip(t[1:], j)):
                i = self._put(it, x, v, i, f"{path}[{k}]", features)
            return i
        if kind == "maybe":
            if j is None:
                return i + self.width(t)
            v[i] = 1.0
            return self._put(t[1], j, v, i + 1, path, features)
        if kind in ("list", "set", "bag"):
            v[i] = float(len(j))
            for x in j:
                _element(path, x, features)
            return i + 1
        if kind == "map":
            v[i] = float(len(j))
            for k, x in j:
                _element(path, {"key": k, "value": x}, features)
            return i + 1
        if kind == "player":
            for p, x in enumerate(j):
                i = self._put(t[1], x, v, i, f"{path}[{p}]", features)
            return i
        raise AssertionError(t)  # pragma: no cover


def _element(path: str, x, features: list) -> None:
    """The hashed features of one element of a collection: the element, and
    each of its fields when it is a record (a map entry is ``{key, value}``).
    ``repr`` of a JSON value is deterministic (records keep their declared
    field order) and much faster than ``json.dumps``."""
    features.append(f"{path}:{x!r}")
    if isinstance(x, dict):
        for f, y in x.items():
            features.append(f"{path}.{f}:{y!r}")


def _is_hidden(j, t, codec) -> bool:
    if not (isinstance(j, dict) and j.get("hidden") is True and set(j) <= {"hidden", "size"}):
        return False
    if isinstance(t, tuple) and t[0] == "record":   # a record that happens to look like the marker
        return {f for f, _ in codec.records[t[1]]} != set(j)
    return True


def _clip(x) -> float:
    return max(-INT_LIMIT, min(INT_LIMIT, float(x)))


def observation_text(state, player: int) -> str:
    """The observation of ``player`` as one deterministic line of JSON."""
    return canonical(state.observation(player))


def acting_player(state) -> Optional[int]:
    """Who decides now, when a learning library wants one player at a time:
    the player to move, or at a simultaneous node the lowest seat still to
    choose (the engine keeps the others' choices independent of it); None
    at the end of the game. Raises ``ModelError`` at a deadlock."""
    cp = state.current_player()
    if cp == TERMINAL:
        return None
    if cp >= 0:
        if not state.legal_actions():
            raise ModelError(f"player {cp} has no legal action in phase `{state.phase()}` and the game "
                             "is not over: a deadlock in the rules")
        return cp
    if cp == SIMULTANEOUS:
        waiting = [a.player for a in state.legal_actions()]
        if not waiting:
            raise ModelError(f"no player has a legal action in the simultaneous phase `{state.phase()}`: "
                             "a deadlock in the rules")
        return min(waiting)
    raise ValueError("acting_player is for states that resolve chance themselves (chance='auto')")
