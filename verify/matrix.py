"""Which configurations of a verification matrix can share a check.

A property's verdict depends on the options and the player count it reads.
For a property about pure rules (a theorem, a witness, `well_defined`, a
probability or expectation over draws) that is what its own expressions
read, through the functions and constants they call, transitively; for a
property about play (an invariant, termination, an example...) it is
everything the game's rules read, so the whole game. Two configurations
that agree on those values give the same verdict (the seeds are the same),
so the check runs once and the other configurations share its result.
"""
from __future__ import annotations

from atoll.grammar import ast as A

PLAYER_BUILTINS = ("player_count", "players", "seats")
PURE_KINDS = ("theorem", "witness", "well_defined")


def _pure(pr: A.PropertyDecl) -> bool:
    return pr.kind in PURE_KINDS or (pr.kind in ("probability", "expectation") and bool(pr.fors))


def _roots(pr: A.PropertyDecl) -> list:
    out = [pr.body]
    out += [b.domain for b in pr.binders]
    if pr.objective is not None:
        out.append(pr.objective[1])
    for f in pr.fors:
        out += [f.iter, *f.conds]
    return out


def dependence(prog, pr: A.PropertyDecl):
    """(option names read, whether the player count is read), or None: the
    whole game (every option, the player count)."""
    if not _pure(pr):
        return None
    options, players = set(), False
    seen: set = set()
    todo = _roots(pr)
    while todo:
        node = todo.pop()
        for n in A.walk(node):
            ref = prog.refs.get(id(n))
            if ref is None:
                continue
            kind = ref[0]
            if kind == "option":
                options.add(ref[1])
            elif kind == "builtin" and ref[1] in PLAYER_BUILTINS:
                players = True
            elif kind == "team_of":
                players = True
            elif kind in ("const", "def") and (kind, ref[1]) not in seen:
                seen.add((kind, ref[1]))
                decl = prog.consts.get(ref[1]) if kind == "const" else prog.defs.get(ref[1])
                if decl is not None:
                    todo.append(decl.value if kind == "const" else decl.body)
            elif kind == "data":   # a table is fixed, but its rows may be filtered by options: none read here
                continue
    return frozenset(options), players


def share_key(prog, pr: A.PropertyDecl, players: int, options: dict):
    """Configurations with the same key give this property the same verdict."""
    dep = dependence(prog, pr)
    if dep is None:
        return (pr.name, players, tuple(sorted(options.items(), key=lambda kv: kv[0])))
    names, reads_players = dep
    return (pr.name, players if reads_players else None,
            tuple(sorted(((k, v) for k, v in options.items() if k in names), key=lambda kv: kv[0])))


def reads_text(prog, pr: A.PropertyDecl, axes) -> str:
    """What a shared check does not read, in words (for the report)."""
    dep = dependence(prog, pr)
    if dep is None:
        return ""
    names, reads_players = dep
    unread = [a for a in axes if a not in names]
    if not reads_players:
        unread = ["the player count"] + unread
    return ", ".join(f"`{u}`" if not u.startswith("the ") else u for u in unread)
