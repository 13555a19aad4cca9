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
"""
from __future__ import annotations

from atoll.compiler import types as T

FIELDS = ("centre", "edges", "roads", "closed", "label")


def check_pictures(c, prog, rep) -> None:
    raw = prog.meta("pictures")
    if raw is None:
        return
    entry = next(e for e in prog.game.meta if e.key == "pictures")
    if not isinstance(raw, str):
        rep.add("A0108", "`pictures` names functions in a string: `pictures: \"cell_view\"`", entry.span)
        return
    for name in [x.strip() for x in raw.split(",") if x.strip()]:
        d = prog.defs.get(name)
        if d is None:
            from atoll.diagnostics import did_you_mean
            rep.add("A0108", f"`pictures` names `{name}`, which is not a function of the spec", entry.span,
                    did_you_mean(name, prog.defs))
            continue
        prog.used.add(name)
        problem = shape_problem(c, d)
        if problem:
            rep.add("A0108", f"`pictures` names `{name}`, which cannot draw a tile: {problem}", entry.span,
                    "give it the parameters `(m: map[Pos, V], q: Pos)` or `(v: V)`, and return a record "
                    "with `centre: E` and/or `edges: list[E]` for an enum E")


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
