"""Run-time values of a type: to and from JSON, readable text, stable ids.

At run time an enum member is its index in the declaration (so sets of
members sort in declaration order, as in the z3 meaning); JSON and text use
its name.

All conversions are driven by the value's type (see ``atoll.compiler.types``)
and validate what they read, so a corrupt saved game is refused with the
place and the reason instead of producing a broken state.
"""
from __future__ import annotations

from itertools import chain
from operator import itemgetter
from typing import Callable, Optional

#: Every int of a game's state stays within ``-INT_BOUND < n < INT_BOUND``:
#: a rule that makes one larger stops with ``ModelError``, and data files and
#: saved games holding one are refused. The bound keeps every value far from
#: Python's limit on converting ints to text (4,300 digits), so that saving,
#: printing and hashing a state never fail, and it stops an int that grows
#: without end long before it slows the game down.
INT_BOUND = 10 ** 18

from atoll.compiler.files import brief   # a diagnostic quotes a short prefix of a value


# ---------------------------------------------------------------- the order of values
# The language orders every value (sets and maps iterate sorted, bags are
# kept sorted). Python orders ours natively, but for ``None`` (the absent
# value of a ``maybe``), which the language puts before every other value.

def order_key(v):
    """A key that orders values as the language does: ``none`` first, then
    as Python orders them, item by item inside tuples (records, lists)."""
    if v is None:
        return (0,)
    if type(v) is tuple:
        return (1, tuple(map(order_key, v)))
    return (1, v)


def sort_values(xs) -> list:
    """``sorted(xs)`` in the language's order: Python's own sort, unless
    some item holds ``none`` where another holds a value (Python cannot
    compare them), then by ``order_key`` (the same order, extended)."""
    try:
        return sorted(xs)
    except TypeError:
        return sorted(xs, key=order_key)


class BadValue(ValueError):
    """A JSON value does not fit its declared type; ``where`` is the place
    (``hand[0][2].value``)."""

    def __init__(self, where: str, reason: str):
        super().__init__(f"{where}: {reason}")
        self.where, self.reason = where, reason


def _same(v):
    return v


def shown(j) -> str:
    """A JSON value for an error message: at most a short prefix of it."""
    text = repr(j)
    return text if len(text) <= 60 else text[:57] + "..."


class ValueCodec:
    """Knows the enums and records of one program."""

    def __init__(self, enums: dict[str, tuple[str, ...]], records: dict[str, list[tuple[str, object]]]):
        self.enums = enums
        self.records = dict(records)
        self.records["Pos"] = [("x", "int"), ("y", "int")]
        self._writers: dict = {}

    # ------------------------------------------------------------ JSON
    def to_json(self, t, v):
        """The JSON value of ``v`` of type ``t`` (records as objects, enum
        members by name, sets in order, maps as [key, value] pairs in key
        order: equal values always give the same JSON)."""
        w = self._writers.get(t)
        if w is None:
            w = self._writers[t] = self._writer(t)
        return w(v)

    def _writer(self, t) -> Callable:
        """The function that writes values of type ``t``, built once per type."""
        if t in ("int", "bool", "str", "?"):
            return _same
        kind = t[0]
        if kind == "maybe":   # null, or the value itself (a maybe never holds a maybe)
            inner = self._writer(t[1])
            return lambda v: None if v is None else inner(v)
        if kind == "enum":
            return self.enums[t[1]].__getitem__
        if kind == "record":
            parts = [(name, self._writer(ft)) for name, ft in self.records[t[1]]]
            return lambda v: {name: w(x) for (name, w), x in zip(parts, v)}
        if kind == "tuple":   # a JSON array of its items
            items = [self._writer(it) for it in t[1:]]
            return lambda v: [w(x) for w, x in zip(items, v)]
        if kind in ("list", "bag", "player"):
            inner = self._writer(t[1])
            return list if inner is _same else (lambda v: [inner(x) for x in v])
        if kind == "set":
            inner = self._writer(t[1])
            return lambda v: [inner(x) for x in sort_values(v)]
        if kind == "map":
            kw, vw = self._writer(t[1]), self._writer(t[2])
            return lambda v: [[kw(k), vw(v[k])] for k in sort_values(v)]
        raise AssertionError(t)  # pragma: no cover

    def from_json(self, t, j, where: str = "value", players: Optional[int] = None):
        """The run-time value of JSON value ``j`` of type ``t``; ``players``,
        when given, is the length every per-player value must have."""
        def bad(msg):
            raise BadValue(where, msg)
        if t == "int":
            if not isinstance(j, int) or isinstance(j, bool):
                bad(f"expected an int, found {shown(j)}")
            if not -INT_BOUND < j < INT_BOUND:
                bad(f"{shown(j)} is past the bound of ints (|n| < 10**18)")
            return j
        if t == "bool":
            if not isinstance(j, bool):
                bad(f"expected true or false, found {shown(j)}")
            return j
        if t == "str":
            if not isinstance(j, str):
                bad(f"expected a string, found {shown(j)}")
            return j
        if not isinstance(t, tuple):
            bad(f"no value has the type {t!r}")
        kind = t[0]
        if kind == "maybe":
            return None if j is None else self.from_json(t[1], j, where, players)
        if kind == "enum":
            if j not in self.enums[t[1]]:
                bad(f"{shown(j)} is not a member of {t[1]}")
            return self.enums[t[1]].index(j)
        if kind == "record":
            fields = self.records[t[1]]
            # a field of a maybe type may be left out: it is none
            need = {f for f, ft in fields if not (isinstance(ft, tuple) and ft[0] == "maybe")}
            if not isinstance(j, dict) or not need <= set(j) or not set(j) <= {f for f, _ in fields}:
                bad(f"expected a {t[1]} with fields {', '.join(f for f, _ in fields)}")
            return tuple(self.from_json(ft, j.get(f), f"{where}.{f}", players) for f, ft in fields)
        if kind == "tuple":
            if not isinstance(j, list) or len(j) != len(t) - 1:
                bad(f"expected a tuple: a list of {len(t) - 1} items, found {shown(j)}")
            return tuple(self.from_json(it, x, f"{where}[{i}]", players)
                         for i, (it, x) in enumerate(zip(t[1:], j)))
        if kind in ("list", "bag", "set", "player"):
            if not isinstance(j, list):
                bad(f"expected a list, found {type(j).__name__}")
            if kind == "player" and players is not None and len(j) != players:
                bad(f"expected one value per player ({players}), found {len(j)}")
            items = tuple(self.from_json(t[1], x, f"{where}[{i}]", players) for i, x in enumerate(j))
            if kind == "set":
                return frozenset(items)
            if kind == "bag":
                return tuple(sort_values(items))
            return items
        if kind == "map":
            if not isinstance(j, list) or not all(isinstance(p, list) and len(p) == 2 for p in j):
                bad("expected a list of [key, value] pairs")
            out = {}
            for i, (k, x) in enumerate(j):
                out[self.from_json(t[1], k, f"{where}[{i}][0]", players)] = \
                    self.from_json(t[2], x, f"{where}[{i}][1]", players)
            return out
        bad(f"no value has the type {t!r}")

    # ------------------------------------------------------------ the int bound
    def bounded(self, t, records=None) -> Optional[Callable[[object], bool]]:
        """A test that every int in a value of type ``t`` is within the bound,
        None when ``t`` holds no int. ``records``: the record types whose
        fields to test (None: all). Built once per type; the ints are gathered
        by C-level iterators (``map``, ``itemgetter``, ``chain``), so a test
        costs little more than reading them."""
        B = INT_BOUND
        if t == "int":
            return lambda v: -B < v < B
        gather = self._each(t, records)
        if gather is None:
            return None
        return lambda v: max(map(abs, gather((v,))), default=0) < B

    def bounded_change(self, t, records=None) -> Optional[Callable[[object, object], bool]]:
        """Like ``bounded``, for a value ``new`` that replaced ``old`` whose
        ints were within the bound: ``test(new, old)``. Per player, only the
        seats whose value changed are tested; in a map whose values need no
        test, only the keys ``old`` does not have."""
        whole = self.bounded(t, records)
        if t == "int":   # whole(new), without the second call
            B = INT_BOUND
            return lambda new, old: -B < new < B
        if whole is None or not isinstance(t, tuple):
            return None if whole is None else (lambda new, old: whole(new))
        if t == ("player", "int"):
            B = INT_BOUND
            return lambda new, old: -B < min(new) and max(new) < B
        if t[0] == "player":
            each = self.bounded(t[1], records)
            return lambda new, old: all(each(n) for n, o in zip(new, old) if n is not o) \
                if old is not None and len(old) == len(new) else whole(new)
        if t[0] == "map" and self._each(t[2], records) is None:
            keys = self._each(t[1], records)
            B = INT_BOUND

            def fresh_keys(new, old):
                if type(old) is not dict:
                    return whole(new)
                fresh = set(new)              # from the dicts' stored hashes, at C speed
                fresh.difference_update(old)
                return not fresh or max(map(abs, keys(fresh)), default=0) < B
            return fresh_keys
        return lambda new, old: whole(new)

    def _each(self, t, records=None) -> Optional[Callable]:
        """``f(values) -> the ints in them`` for an iterable of values of
        type ``t``; None when ``t`` holds no int (to test)."""
        if t == "int":
            return lambda vs: vs
        if not isinstance(t, tuple) or t[0] == "enum":
            return None
        kind = t[0]
        if kind == "record":
            if records is not None and t[1] not in records:
                return None
            fields = self.records[t[1]]
            direct = [i for i, (_, ft) in enumerate(fields) if ft == "int"]
            nested = [(i, f) for i, f in ((i, self._each(ft, records)) for i, (_, ft) in enumerate(fields)
                                          if ft != "int") if f is not None]
            if not direct and not nested:
                return None
            parts = []
            if len(direct) == 1:
                parts.append(lambda vs, g=itemgetter(direct[0]): map(g, vs))
            elif direct:
                parts.append(lambda vs, g=itemgetter(*direct): chain.from_iterable(map(g, vs)))
            for i, f in nested:
                parts.append(lambda vs, g=itemgetter(i), f=f: f(map(g, vs)))
            if len(parts) == 1:
                return parts[0]

            def record_ints(vs):
                vs = tuple(vs)
                return chain.from_iterable([p(vs) for p in parts])
            return record_ints
        if kind == "tuple":   # as a record's fields (a tuple has no name: always tested)
            parts = [(i, f) for i, f in ((i, self._each(it, records)) for i, it in enumerate(t[1:]))
                     if f is not None]
            if not parts:
                return None

            def tuple_ints(vs):
                vs = tuple(vs)
                return chain.from_iterable([f(map(itemgetter(i), vs)) for i, f in parts])
            return tuple_ints
        if kind == "maybe":   # the present values only
            inner = self._each(t[1], records)
            if inner is None:
                return None
            return lambda vs: inner([v for v in vs if v is not None])
        if kind in ("list", "set", "bag", "player"):
            inner = self._each(t[1], records)
            if inner is None:
                return None
            return lambda vs: inner(chain.from_iterable(vs))
        if kind == "map":
            keys, vals = self._each(t[1], records), self._each(t[2], records)
            if keys is None and vals is None:
                return None
            if vals is None:
                return lambda vs: keys(chain.from_iterable(vs))
            if keys is None:
                return lambda vs: vals(chain.from_iterable(map(dict.values, vs)))

            def map_ints(vs):
                vs = tuple(vs)
                return chain(keys(chain.from_iterable(vs)), vals(chain.from_iterable(map(dict.values, vs))))
            return map_ints
        return None

    # ------------------------------------------------------------ text
    def text(self, t, v) -> str:
        if t in ("int", "str", "?"):
            return str(v)
        if isinstance(t, tuple) and t[0] == "enum":
            return self.enums[t[1]][v]
        if t == "bool":
            return "true" if v else "false"
        kind = t[0]
        if kind == "maybe":
            return "none" if v is None else self.text(t[1], v)
        if kind == "record":
            if t[1] == "Pos":
                return f"({v[0]},{v[1]})"
            return f"{t[1]}({', '.join(self.text(ft, x) for (_, ft), x in zip(self.records[t[1]], v))})"
        if kind == "tuple":
            return "(" + ", ".join(self.text(it, x) for it, x in zip(t[1:], v)) + ")"
        if kind in ("list", "bag"):
            return "[" + ", ".join(self.text(t[1], x) for x in v) + "]"
        if kind == "set":
            return "{" + ", ".join(self.text(t[1], x) for x in sort_values(v)) + "}"
        if kind == "map":
            return "{" + ", ".join(f"{self.text(t[1], k)}: {self.text(t[2], v[k])}" for k in sort_values(v)) + "}"
        if kind == "player":
            return "[" + ", ".join(self.text(t[1], x) for x in v) + "]"
        raise AssertionError(t)  # pragma: no cover

    # ------------------------------------------------------------ stable ids
    def naturals(self, t, v, out: list) -> None:
        """Append an injective encoding of ``v`` as naturals to ``out``."""
        if t == "int":
            out.append(2 * v if v >= 0 else -2 * v - 1)
        elif t == "bool":
            out.append(1 if v else 0)
        elif t == "str":
            b = v.encode()
            out.append(len(b))
            out.extend(b)
        elif t[0] == "enum":
            out.append(v)
        elif t[0] == "maybe":   # 0 for none, 1 then the value
            if v is None:
                out.append(0)
            else:
                out.append(1)
                self.naturals(t[1], v, out)
        elif t[0] == "record":
            for (_, ft), x in zip(self.records[t[1]], v):
                self.naturals(ft, x, out)
        elif t[0] == "tuple":   # a fixed number of items: no length needed
            for it, x in zip(t[1:], v):
                self.naturals(it, x, out)
        elif t[0] in ("list", "bag", "set"):
            items = sort_values(v) if t[0] == "set" else v
            out.append(len(items))
            for x in items:
                self.naturals(t[1], x, out)
        elif t[0] == "map":
            out.append(len(v))
            for k in sort_values(v):
                self.naturals(t[1], k, out)
                self.naturals(t[2], v[k], out)
        else:  # pragma: no cover
            raise AssertionError(t)


def pack(naturals: list[int]) -> int:
    """An injective map from lists of naturals to one natural (LEB128 bytes
    behind a marker byte), so ids are stable and never collide."""
    out = bytearray([1])
    for n in naturals:
        while True:
            low = n & 0x7F
            n >>= 7
            if n:
                out.append(low | 0x80)
            else:
                out.append(low)
                break
    return int.from_bytes(out, "big")
