"""The game block's `pictures` entry: functions that say how a value is
drawn as a square tile in the generated docs (atoll/docgen/tiles.py).

`pictures: "cell_view, item_view"` names functions of the spec; each returns
a record with some of the fields the drawing reads:

- ``centre: E`` and ``edges: list[E]`` (north, east, south, west), E an enum:
  the colours of the tile's middle and of its four sides;
- ``roads: list[bool]``: a line from each side so marked to the middle;
- ``closed: list[bool]``: the parts (the four sides, then the middle) drawn
  with a heavy outline, e.g. those of a completed area;
- ``label: int`` or ``label: string``: written in the tile's corner.

A function of a map of positions and a position ``(m: map[Pos, V], q: Pos)``
draws the cells of every map of type ``map[Pos, V]`` (it may look at the
neighbours); a function of one value ``(v: V)`` draws every V in a list,
set, bag or the keys of a map, in a row.

A function that returns a *list* of records draws shapes instead
(atoll/docgen/shapes.py): ``shapes_problem`` says why one cannot (A0110).
"""
from __future__ import annotations

from atoll.compiler import types as T

FIELDS = ("centre", "edges", "roads", "closed", "label")


def named_in_entry(prog, rep, key: str, what: str, example: str):
    """A game-block entry that lists names in a string (`modes`, `pictures`):
    the entry and its names, or None when it is absent or not a string
    (A0108, reported here)."""
    raw = prog.meta(key)
    if raw is None:
        return None
    entry = next(e for e in prog.game.meta if e.key == key)
    if not isinstance(raw, str):
        rep.add("A0108", f"`{key}` {what} in a string: `{key}: \"{example}\"`", entry.span)
        return None
    return entry, [x.strip() for x in raw.split(",") if x.strip()]


def check_pictures(c, prog, rep) -> None:
    got = named_in_entry(prog, rep, "pictures", "names functions", "cell_view")
    if got is None:
        return
    entry, names = got
    for name in names:
        d = prog.defs.get(name)
        if d is None:
            from atoll.diagnostics import did_you_mean
            rep.add("A0108", f"`pictures` names `{name}`, which is not a function of the spec", entry.span,
                    did_you_mean(name, prog.defs))
            continue
        prog.used.add(name)
        rt = c.resolve(d.type)
        if isinstance(rt, tuple) and rt[0] == "list":
            problem = shapes_problem(c, prog, d, rt[1])
            if problem:
                rep.add("A0110", f"`pictures` names `{name}`, which cannot draw shapes: {problem}", entry.span,
                        "take no parameter or one player `(p: Player)`, return a list of a record with "
                        "`shape: E` (E's members among " + ", ".join(KINDS) + "), optional `fill` (an "
                        "enum) and `seat` (a player), int coordinates and an optional `label`, and read "
                        "only state every player sees")
            continue
        problem = shape_problem(c, d)
        if problem:
            rep.add("A0108", f"`pictures` names `{name}`, which cannot draw a tile: {problem}", entry.span,
                    "give it the parameters `(m: map[Pos, V], q: Pos)` or `(v: V)`, and return a record "
                    "with `centre: E` and/or `edges: list[E]` for an enum E")


KINDS = ("sector", "dot", "box", "text")   # atoll/docgen/shapes.py draws them
INTS = ("x", "y", "r0", "r1", "a0", "a1", "w", "h")


def shapes_problem(c, prog, d, item) -> str:
    """Why a function returning a list cannot draw shapes ('' when it can)."""
    if len(d.params) > 1 or (d.params and d.params[0].type.name != "Player"):
        return "it takes a parameter other than one player"
    if not (isinstance(item, tuple) and item[0] == "record"):
        return f"its list holds {T.show(item)}, not records"
    fields = dict(c.record_fields(item[1]))
    kind = fields.get("shape")
    if not (isinstance(kind, tuple) and kind[0] == "enum"):
        return "its record has no field `shape` of an enum"
    odd = [m for m in prog.enums[kind[1]].members if m not in KINDS]
    if odd:
        return f"the shape `{odd[0]}` is none of " + ", ".join(KINDS)
    fill = fields.get("fill")
    inner = fill[1] if isinstance(fill, tuple) and fill[0] == "maybe" else fill
    if fill is not None and not (isinstance(inner, tuple) and inner[0] == "enum"):
        return f"its field `fill` is {T.show(fill)}, not an enum or maybe of one"
    seat = fields.get("seat")
    if seat is not None and seat not in (T.INT, ("maybe", T.INT)):
        return f"its field `seat` is {T.show(seat)}, not a player or maybe[Player]"
    for f in INTS:
        if f in fields and fields[f] != T.INT:
            return f"its field `{f}` is {T.show(fields[f])}, not int"
    label = fields.get("label")
    if label is not None and label not in (T.INT, T.STR, ("maybe", T.INT), ("maybe", T.STR)):
        return f"its field `label` is {T.show(label)}, not int, str or maybe of one"
    hidden = _hidden_reads(prog, d)
    if hidden:
        return f"it reads `{hidden}`, which not every player sees"
    return ""


def _hidden_reads(prog, d) -> str:
    """A state variable not visible to all that ``d`` reads, itself or
    through the functions it calls ('' when none): the picture is shown to
    every reader of the players' edition."""
    from atoll.grammar import ast as A
    seen, todo = set(), [d]
    while todo:
        f = todo.pop()
        for n in A.walk(f.body):
            name = n.name if isinstance(n, A.Name) else n.func if isinstance(n, A.Call) else None
            if name is None:
                continue
            v = prog.state.get(name)
            if v is not None and v.visibility != "all":
                return name
            g = prog.defs.get(name)
            if g is not None and name not in seen:
                seen.add(name)
                todo.append(g)
    return ""


def shape_problem(c, d) -> str:
    params = [c.resolve(p.type) for p in d.params]
    cell = len(params) == 2 and isinstance(params[0], tuple) and params[0][0] == "map" \
        and params[0][1] == T.POS and params[1] == T.POS
    if not cell and len(params) != 1:
        return "it takes neither one value nor a map of positions and a position"
    rt = c.resolve(d.type)
    if not (isinstance(rt, tuple) and rt[0] == "record"):
        return f"it returns {T.show(rt)}, not a record"
    fields = dict(c.record_fields(rt[1]))
    centre, edges = fields.get("centre"), fields.get("edges")
    if centre is None and edges is None:
        return "its record has neither `centre` nor `edges`"
    for f, want in (("centre", "an enum"), ("edges", "a list of an enum")):
        t = fields.get(f)
        if t is None:
            continue
        e = t[1] if f == "edges" and isinstance(t, tuple) and t[0] == "list" else t if f == "centre" else None
        if not (isinstance(e, tuple) and e[0] == "enum"):
            return f"its field `{f}` is {T.show(t)}, not {want}"
    for f in ("roads", "closed"):
        t = fields.get(f)
        if t is not None and t != ("list", T.BOOL):
            return f"its field `{f}` is {T.show(t)}, not list[bool]"
    return ""
