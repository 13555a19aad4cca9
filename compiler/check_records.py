"""A record type may not hold itself, directly or through other records,
collections or optional values (`record Node { next: maybe[Node] }`).

Every value of the language is a finite tree built from its type's parts,
and the tools that walk a type (saves, observations, the z3 meaning, the
int bound) unfold it: a type that holds itself has no finite unfolding.
A part that refers to another of its kind is given an id instead (a map
from ids to parts holds them).
"""
from __future__ import annotations

from atoll.compiler import types as T


def _records_in(t) -> set:
    if not isinstance(t, tuple):
        return set()
    if t[0] == "record":
        return {t[1]}
    return set().union(*(_records_in(a) for a in t[1:])) if len(t) > 1 else set()


def _reaches(fields: dict, start: set, target: str) -> bool:
    """Some record of ``start``, or one they hold, is ``target``."""
    todo, seen = list(start), set()
    while todo:
        r = todo.pop()
        if r == target:
            return True
        if r in seen or r not in fields:
            continue
        seen.add(r)
        for _, ft in fields[r]:
            todo.extend(_records_in(ft))
    return False


def check_record_cycles(c, prog) -> None:
    """Report each record that holds itself (A0103), at the first field of
    it that leads back to it."""
    fields = {name: [(f, c.resolve(f.type)) for f in rec.fields] for name, rec in prog.records.items()}
    for name in prog.records:
        f = next((f for f, t in fields[name] if _reaches(fields, _records_in(t), name)), None)
        if f is not None:
            c.rep.add("A0103", f"record `{name}` holds itself (through its field `{f.name}`)", f.span,
                      "a value is a finite tree of its parts: give the part an id and keep the "
                      "parts in a map from ids, or hold a list of ids")
