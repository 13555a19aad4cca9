"""Types of the expression language.

A type is a plain hashable value:

* ``"int"``, ``"bool"``, ``"str"``, ``"?"`` (unknown: an earlier error, or
  the element of an empty literal; it is compatible with everything);
* ``("enum", name)`` and ``("record", name)``; ``Pos`` is the built-in
  record ``("record", "Pos")`` with fields ``x`` and ``y``;
* ``("list", T)``, ``("set", T)``, ``("bag", T)``, ``("map", K, V)``;
* ``("maybe", T)``: an optional value, ``none`` or a ``T`` (never a maybe
  itself); at run time Python ``None`` or the value;
* ``("player", T)``: a per-player state variable, indexed by a player;
* ``("action",)``: the name of an action, only inside ``can(...)``.

``Player`` is an alias of ``int`` (seats are numbered from 0).
"""
from __future__ import annotations

from typing import Optional, Union

Type = Union[str, tuple]

INT, BOOL, STR, UNKNOWN = "int", "bool", "str", "?"
POS = ("record", "Pos")
COLLECTIONS = ("list", "set", "bag", "map")
GENERIC_ARITY = {"list": 1, "set": 1, "bag": 1, "map": 2}


def show(t: Type) -> str:
    """The type as users write it."""
    if isinstance(t, str):
        return {"?": "unknown"}.get(t, t)
    kind = t[0]
    if kind in ("enum", "record"):
        return t[1]
    if kind == "player":
        return f"per-player {show(t[1])}"
    if kind == "action":
        return "action"
    return f"{kind}[{', '.join(show(a) for a in t[1:])}]"


def compatible(want: Type, got: Type) -> bool:
    """Can a value of type ``got`` stand where ``want`` is required?"""
    if want == UNKNOWN or got == UNKNOWN or want == got:
        return True
    if isinstance(want, tuple) and isinstance(got, tuple) and want[0] == got[0] \
            and len(want) == len(got):
        return all(compatible(w, g) for w, g in zip(want[1:], got[1:]))
    return False


def join(a: Type, b: Type) -> Type:
    """The common type of two branches, or UNKNOWN if they disagree."""
    if a == UNKNOWN:
        return b
    if b == UNKNOWN or a == b:
        return a
    if isinstance(a, tuple) and isinstance(b, tuple) and a[0] == b[0] and len(a) == len(b):
        return (a[0],) + tuple(join(x, y) for x, y in zip(a[1:], b[1:]))
    return UNKNOWN


def is_maybe(t: Type) -> bool:
    return isinstance(t, tuple) and t[0] == "maybe"


def holds_maybe(t: Type, records: Optional[dict] = None, _seen: frozenset = frozenset()) -> bool:
    """Some value of type ``t`` may hold ``none`` (at any depth). ``records``:
    a record name -> its field types, to look inside records."""
    if not isinstance(t, tuple):
        return False
    if t[0] == "maybe":
        return True
    if t[0] == "record":
        if records is None or t[1] in _seen:
            return False
        return any(holds_maybe(ft, records, _seen | {t[1]}) for ft in records.get(t[1], ()))
    return any(holds_maybe(a, records, _seen) for a in t[1:])


def is_collection(t: Type) -> bool:
    return isinstance(t, tuple) and t[0] in COLLECTIONS


def element(t: Type) -> Type:
    """What iterating over ``t`` yields (map: its keys)."""
    if isinstance(t, tuple) and t[0] in COLLECTIONS:
        return t[1]
    return UNKNOWN


def is_ordered_iteration(t: Type) -> bool:
    """Lists and bags keep their order; sets and maps are iterated sorted."""
    return isinstance(t, tuple) and t[0] in ("list", "bag")
