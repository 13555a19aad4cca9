"""Fixed-size views of a compiled game, for learning libraries.

PettingZoo and OpenSpiel want what Atoll does not have by nature: a fixed
number of action slots, and an observation as a vector of fixed length.
Both are built here, generically, from what every compiled game declares.
The adapters ``atoll.pettingzoo`` and ``atoll.openspiel`` share them. This
module needs no third-party package.

**Actions.** An Atoll action has a stable integer id, but ids are sparse
and unbounded (an action's parameters may be a position, a card or a set of
positions), so a game cannot list its action space in advance.
``ActionIndex`` (in ``atoll.action_index``) maps the legal actions of a state into ``size`` slots by
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

import json
from itertools import compress, islice
from operator import index, is_not
from typing import Optional

from atoll.action_index import ActionIndex, ActionIndexFull, _digest  # noqa: F401 - the first two re-exported
from atoll.compiler.runtime import CHANCE, SIMULTANEOUS, TERMINAL, Game, ModelError

#: Integers in an observation are clipped to this magnitude, so that the
#: observation space has finite bounds.
INT_LIMIT = float(1 << 20)

#: Hashed buckets for the contents of collections, unless told otherwise.
DEFAULT_HASH_SIZE = 256


def canonical(value) -> str:
    """A JSON value as one deterministic compact string."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


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
        self._any_sim, self._rounds = game._any_sim, game.rounds   # see _update
        self._bucket: dict[str, int] = {}
        # encode_state's parts: slot (or (slot, player) for a slot its owner
        # sees) -> (the value, its writes, its hashed counts), the last made;
        # (that key, value) -> its part, for values that hold no collection
        self._parts: dict = {}
        self._by_value: dict = {}
        self._heads: dict = {}               # (header key before, after) -> the writes between, see _update
        self._seen: list = [None] * self.n   # per player: its kept vector, see _update
        self._fns = None                     # per slot: its generated updater, see _updaters
        self._fn_text = ""                   # the updaters' generated text
        self._np = False                     # numpy, None without it, False until asked
        # path -> element -> its buckets (see _element_buckets), one dict per path (the
        # generated updaters hold their paths' dicts); how many are kept in all
        self._elements: dict = {}
        self._n_elements = 0
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
        self._plan = [(None, None, None, None)] + [
            self._slot_plan(i, name, t, offset, game.visibility[i])
            for i, (name, t, offset) in enumerate(self.slots, start=1)]

    def _slot_plan(self, i: int, name: str, t, offset: int, vis) -> tuple:
        """How ``_update`` keeps slot ``i`` up to date: (_COLL, the cells,
        the collection's type, its kind) for a collection (or one per player)
        seen by all, by nobody or by its owner; else (_PART, (type, offset,
        name), seen by its owner, kept by value). A cell is (the seat or
        None, its position, its path, who sees its elements: _ALL, a seat
        or None)."""
        who = vis[1] if vis is not None else None
        if _is_coll(t) and who in ("all", "nobody"):
            return (_COLL, ((None, offset, name, _ALL if who == "all" else None),), t, t[0])
        if isinstance(t, tuple) and t[0] == "player" and _is_coll(t[1]) and who in ("all", "owner", "nobody"):
            cells = tuple((q, offset + q, f"{name}[{q}]",
                           _ALL if who == "all" else q if who == "owner" else None) for q in range(self.n))
            return (_COLL, cells, t[1], t[1][0])
        return (_PART, (t, offset, name), who == "owner", _flat(t, self.codec.records))

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
        """``encode(st.observation(player))``, kept up to date (see
        ``_update``): only what changed since the player's last vector is
        written again."""
        vec = self._update(st, player).out
        return vec.tolist() if self._np is not None else list(vec)

    def encode_array(self, st, player: int):
        """``encode_state`` as a numpy float32 array (a new one)."""
        if self._np is None:
            import numpy   # noqa: F401 - raises the ImportError that names what is missing
        return self._update(st, player).out.copy()

    def _update(self, st, player: int) -> "_Seen":
        """The vector kept for ``player`` brought up to date with ``st``.

        Each player has its own kept vector: the whole observation as that
        player sees it (its seat, the header, every variable with what it
        sees of it, the hashed counts), with the values of the state it was
        last made from. Each state variable's value is compared, by
        identity, with that one (values are never changed in place; the
        values are kept in a tuple of their own, so a list of values
        changed later changes nothing kept). A collection that changed is
        compared element by element with the old one (a map by its
        entries, a list or bag by what differs between the common
        beginning and end, a set by set difference): its size is written
        and only the elements taken away and added change the hashed
        counts (of the elements the player sees). Any other variable is a
        part (its positions and its hashed counts) made from the player's
        view of it, kept per value; the old part's positions are cleared
        and its counts taken away, the new one's written and added. Counts
        are whole numbers, so the result is exactly
        ``encode(st.observation(player))``, however far apart the states
        the vector is brought from and to."""
        if not (player.__class__ is int and 0 <= player < self.n):
            try:
                player = index(player)   # a numpy integer, say
            except TypeError:
                player = -1
            if not 0 <= player < self.n:
                raise ValueError(f"player must be 0..{self.n - 1}")
        seen = self._seen[player]
        if seen is None:
            seen = self._start(player)
        if st.outcome is None and st.pending is None and st.choosing is None and not self._any_sim:
            # current_player(), phase() and winners() where one player decides and no
            # stage is simultaneous (there current_player() is the slot's player), written out
            ctl = st.ctl
            key = (ctl[4][ctl[2] % len(ctl[4])], self._rounds[ctl[0]][ctl[1]][1][ctl[3]], st.S[0], ())
        else:
            key = (st.current_player(), st.phase(), st.S[0], st.winners())
        old = seen.head
        if key != old:
            # the writes that turn the header of ``old`` into that of ``key``, kept per pair
            heads = self._heads
            writes = heads.get((old, key))
            if writes is None:
                was, now = self._head_writes(old), self._head_writes(key)
                writes = tuple([(k, 0.0) for k in was if k not in now] +
                               [(k, y) for k, y in now.items() if was.get(k) != y])
                if len(heads) >= 10_000:
                    heads.clear()
                heads[(old, key)] = writes
            vec = seen.vec
            for k, y in writes:
                vec[k] = y
            seen.head = key
        cur, prev = st.S, seen.vals
        changed = list(compress(seen.at, map(is_not, cur, prev)))
        if changed:
            cur = seen.vals = tuple(cur)
            fns = self._fns
            if fns is None:
                fns = self._fns = self._updaters()
            for i in changed:
                f = fns[i]
                if f is not None:   # None: the round, in the header
                    f(cur[i], prev[i], seen, player)
        return seen

    def _updaters(self) -> list:
        """Per slot of the state, a function generated from its plan (see
        ``_slot_plan``: the slot's type and who sees it) that brings a kept
        vector up to date when the slot's value changed: ``f(new value, old
        value, the kept vector, the observing player)``; None for the round
        (in the header). Only positions, seats and names made here go into
        the generated text; the spec's names (the paths of the hashed
        features) and types are passed as values, never written into it."""
        lines: list = []
        consts: dict = {"U": _UNSEEN, "NONES": (None,) * self.n, "md": _map_diff, "sd": _seq_diff,
                        "count": self._count_elements, "part": self._part_changed,
                        "BV": self._by_value, "swap": _swap_parts}
        hashed = bool(self.hash_size)

        def elements(ind: str, kind: str, o: str, x: str, tname: str, pname: str) -> None:
            if kind == "map":
                lines.append(f"{ind}gone, came = md({o}, {x})")
            elif kind == "set":
                lines.append(f"{ind}gone = {o} if {x} is None else () if {o} is None else {o} - {x}")
                lines.append(f"{ind}came = {x} if {o} is None else () if {x} is None else {x} - {o}")
            else:
                lines.append(f"{ind}gone, came = sd({o} or (), {x} or ())")
            lines.append(f"{ind}if gone or came:")
            lines.append(f"{ind}    count({tname}, {pname}, K{pname[1:]}, gone, came, seen)")

        for i in range(1, len(self._plan)):
            how, a, b, c = self._plan[i]
            lines.append(f"def f{i}(x, o, seen, player):")
            if how is _COLL:   # a: the cells (seat or None, position, path, seen by whom), b: the type
                consts[f"T{i}"] = b
                if a[0][0] is None:   # one collection
                    _, pos, path, who = a[0]
                    consts[f"P{i}_0"], consts[f"K{i}_0"] = path, self._kept_at(path)
                    lines += ["    if o is U:", "        o = None",
                              f"    seen.vec[{int(pos)}] = 0.0 if x is None else float(len(x))"]
                    if hashed and who is _ALL:
                        elements("    ", c, "o", "x", f"T{i}", f"P{i}_0")
                else:   # one per player
                    lines += ["    if o is U or o is None:", "        o = NONES",
                              "    if x is None:", "        x = NONES", "    vec = seen.vec"]
                    for q, pos, path, who in a:
                        q = int(q)
                        consts[f"P{i}_{q}"], consts[f"K{i}_{q}"] = path, self._kept_at(path)
                        lines += [f"    oq = o[{q}]", f"    nq = x[{q}]", "    if oq is not nq:",
                                  f"        vec[{int(pos)}] = 0.0 if nq is None else float(len(nq))"]
                        if hashed and who is _ALL:
                            elements("        ", c, "oq", "nq", f"T{i}", f"P{i}_{q}")
                        elif hashed and who is not None:   # seen by its owner: seat q
                            lines.append(f"        if player == {q}:")
                            elements("            ", c, "oq", "nq", f"T{i}", f"P{i}_{q}")
            else:   # a part: a = (type, offset, name), b: seen by its owner, c: kept by value
                consts[f"A{i}"], consts[f"B{i}"], consts[f"C{i}"] = a, b, c
                if c:   # kept by value: the usual case looked up here, as _part_changed keeps it
                    key = f"(({i}, player), x)" if b else f"({i}, x)"
                    lines += ["    if x is not None:",
                              f"        p = BV.get({key})",
                              "        if p is not None:",
                              f"            old = seen.parts[{i}]",
                              "            if old is p:",
                              "                return",
                              f"            seen.parts[{i}] = p",
                              "            swap(old, p, seen)",
                              "            return"]
                lines.append(f"    part({i}, A{i}, B{i}, C{i}, x, player, seen)")
        ns = dict(consts)
        self._fn_text = "\n".join(lines) + "\n"   # (read by the tests: no spec text in it)
        exec(compile(self._fn_text, "<atoll observation encoder>", "exec"), ns)
        return [None] + [ns[f"f{i}"] for i in range(1, len(self._plan))]

    def _head_writes(self, key) -> dict:
        """Position -> value of the header of ``key`` (the player to move, the
        phase, the round, the winners; None: nothing written yet), without
        the observer's seat (written once, see ``_start``)."""
        d: dict = {}
        if key is not None:
            self._header(d, 0, key[0], key[1], key[2], key[3])
            del d[0]
        return d

    def _start(self, player: int) -> "_Seen":
        """Make the vector kept for ``player``, on the first one asked for."""
        if self._np is False:
            try:
                import numpy
                self._np = numpy
            except ImportError:   # pragma: no cover - numpy comes with both adapters
                self._np = None
        width = len(self._plan)
        seen = self._seen[player] = _Seen()
        if self._np is None:
            seen.out = seen.vec = [0.0] * self.size
        else:
            # written through a memoryview of the array's own memory: a store costs
            # about half what numpy's item assignment costs (its index and value
            # parsing), and rounds the value to float32 as numpy does (a C cast)
            seen.out = self._np.zeros(self.size, self._np.float32)
            seen.vec = memoryview(seen.out).cast("B").cast("f")
        seen.vec[player] = 1.0   # the observing seat, in the header
        seen.counts = [0.0] * self.size   # at the positions of the buckets
        seen.at = range(width)
        seen.vals = (_UNSEEN,) * width
        seen.parts = [None] * width
        seen.head = None
        return seen

    def _part_changed(self, i: int, tn: tuple, owned: bool, by_value: bool, x, player,
                      seen: "_Seen") -> None:
        old = seen.parts[i]
        if x is None:
            part = None
        else:
            key = (i, player) if owned else i
            parts = self._parts
            part = parts.get(key)
            if part is None or part[0] is not x:
                vkey = (key, x) if by_value else None
                part = self._by_value.get(vkey) if by_value else None
                if part is None:
                    part = self._part(i, tn[0], x, tn[1], tn[2], player if owned else 0)
                    if by_value:
                        if len(self._by_value) >= 100_000:
                            self._by_value.clear()
                        self._by_value[vkey] = part
                parts[key] = part
        if old is part:
            return
        seen.parts[i] = part
        _swap_parts(old, part, seen)

    def _part(self, i: int, t, x, offset: int, name: str, player: int) -> tuple:
        """(value, its writes, its hashed counts) of slot ``i`` holding ``x``,
        as ``player`` sees it (counts by the position of their bucket)."""
        writes: dict = {}
        features: list = []
        self._put(t, self.game._slot_view(i, x, player), writes, offset, name, features)
        mine: dict = {}
        exact = self.exact
        for f in features if self.hash_size else ():
            b = exact + self.bucket(f)
            mine[b] = mine.get(b, 0.0) + 1.0
        return (x, tuple(writes.items()), tuple(mine.items()))

    def _count_elements(self, t, path: str, kept: dict, gone, came, seen: "_Seen") -> None:
        """Take the elements ``gone`` of a collection of type ``t`` at
        ``path`` away from the hashed counts of ``seen``, and add those of
        ``came`` (see ``_updaters``, which finds them); ``kept`` is the
        path's dict of ``_elements``."""
        vec, counts, lim = seen.vec, seen.counts, INT_LIMIT
        for e in gone:
            try:
                bs = kept[e]
            except (KeyError, TypeError):
                bs = self._element_buckets(t, path, e)
            for b in bs:
                c = counts[b] = counts[b] - 1.0
                vec[b] = c if c < lim else lim
        for e in came:
            try:
                bs = kept[e]
            except (KeyError, TypeError):
                bs = self._element_buckets(t, path, e)
            for b in bs:
                c = counts[b] = counts[b] + 1.0
                vec[b] = c if c < lim else lim

    def _kept_at(self, path: str) -> dict:
        """The dict of ``_elements`` for ``path`` (made once: it is cleared in place)."""
        kept = self._elements.get(path)
        if kept is None:
            kept = self._elements[path] = {}
        return kept

    def _element_buckets(self, t, path: str, e) -> tuple:
        """The positions of the buckets of one element (for a map, a (key,
        value) pair), kept."""
        kept = self._kept_at(path)
        try:
            bs = kept.get(e)
        except TypeError:   # an element holding a map: not kept
            kept, bs = None, None
        if bs is None:
            codec = self.codec
            j = {"key": codec.to_json(t[1], e[0]), "value": codec.to_json(t[2], e[1])} \
                if t[0] == "map" else codec.to_json(t[1], e)
            features: list = []
            _element(path, j, features)
            bs = tuple(self.exact + self.bucket(f) for f in features)
            if kept is not None:
                if self._n_elements >= 200_000:
                    for d in self._elements.values():
                        d.clear()
                    self._n_elements = 0
                kept[e] = bs
                self._n_elements += 1
        return bs

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


_UNSEEN = object()            # a slot value no vector was made from yet
_ALL = object()               # a collection's elements are seen by every player
_COLL, _PART = "collection", "part"


class _Seen:
    """What ``ObservationEncoder._update`` keeps for one player: the vector
    (``out``: a numpy float32 array, or a list without numpy; ``vec``: what
    writes it, a float memoryview of the array's memory, or the list), the places of the
    state's slots (``range``), the value of each slot it was made from, the
    part of each slot written (see ``_part_changed``), the hashed counts by
    position, the header's key."""
    __slots__ = ("out", "vec", "at", "vals", "parts", "counts", "head")


def _is_coll(t) -> bool:
    return isinstance(t, tuple) and t[0] in ("list", "set", "bag", "map")


def _flat(t, records: dict, _seen: frozenset = frozenset()) -> bool:
    """Whether values of type ``t`` hold no collection (so they are cheap to
    hash, and equal values encode alike)."""
    if t in ("int", "bool", "str"):
        return True
    if not isinstance(t, tuple) or t[0] in ("list", "set", "bag", "map"):
        return False
    if t[0] == "enum":
        return True
    if t[0] == "record":
        return t[1] not in _seen and all(_flat(ft, records, _seen | {t[1]}) for _, ft in records[t[1]])
    return all(_flat(x, records, _seen) for x in t[1:])


def _swap_parts(old, part, seen: _Seen) -> None:
    """Clear the positions of part ``old`` and take its hashed counts away
    from ``seen``; write those of ``part`` and add its counts (either may
    be None)."""
    vec, counts = seen.vec, seen.counts
    if old is not None:
        for k, _ in old[1]:
            vec[k] = 0.0
        for b, d in old[2]:
            c = counts[b] = counts[b] - d
            vec[b] = c if c < INT_LIMIT else INT_LIMIT
    if part is not None:
        for k, y in part[1]:
            vec[k] = y
        for b, d in part[2]:
            c = counts[b] = counts[b] + d
            vec[b] = c if c < INT_LIMIT else INT_LIMIT


def _map_diff(old, new) -> tuple:
    """(the entries of map ``old`` that ``new`` does not hold, those of ``new``
    that ``old`` does not hold), as (key, value) pairs; None is an empty map."""
    if old is None or not old:
        return (), () if new is None else new.items()
    if new is None:
        return old.items(), ()
    n = len(old)
    if len(new) >= n and list(new)[:n] == list(old) and list(new.values())[:n] == list(old.values()):
        return (), list(islice(new.items(), n, None))   # entries added (a dict keeps their order)
    get, none = new.get, _UNSEEN
    gone = [(k, v) for k, v in old.items() if get(k, none) != v]
    get = old.get
    came = [(k, v) for k, v in new.items() if get(k, none) != v]
    return gone, came


def _seq_diff(old, new) -> tuple:
    """(what list or bag ``old`` holds that ``new`` does not, and the
    converse), as the parts that differ between their common beginning and
    common end (not the least difference, but an exact one for counting)."""
    n, m = len(old), len(new)
    if n <= m and new[:n] == old:
        return (), new[n:]
    if m < n and old[:m] == new:
        return old[m:], ()
    i, lim = 0, min(n, m)
    while i < lim and old[i] == new[i]:
        i += 1
    j = 0
    while j < lim - i and old[n - 1 - j] == new[m - 1 - j]:
        j += 1
    return old[i:n - j], new[i:m - j]


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
