"""Pictures of square tiles, for specs whose game block names drawing
functions in `pictures` (compiler/check_pictures.py says what they return).

* Every map of positions whose values a cell function draws (``(m:
  map[Pos, V], q: Pos)``) is drawn as a grid of tiles, once per seat for a
  per-player map: each tile with its middle and four sides in the colours
  of their enum members, its roads, the parts marked ``closed`` outlined,
  its label and note.
* Every list, set, bag or map key set of values an item function draws
  (``(v: V)``) is drawn as a row of tiles per seat, with the map's value
  (a price, a count) under each.

Only what the viewer's observation shows is drawn (a hidden value is left
out). The functions are the spec's own, evaluated by the compiled model;
nothing here knows a game.
"""
from __future__ import annotations

from atoll.compiler import names as N
from atoll.compiler import types as T
from atoll.docgen import shapes
from atoll.docgen import svg as S

CELL = 64


def drawers(doc, game) -> tuple[dict, dict, dict]:
    """({V: cell function}, {V: item function}, {name: (shapes function,
    record, per player)}) of the `pictures` entry."""
    raw = doc.prog.meta("pictures")
    cells, items, shapes = {}, {}, {}
    if not isinstance(raw, str):
        return cells, items, shapes
    types = _types(game)
    for name in [x.strip() for x in raw.split(",") if x.strip()]:
        d = doc.prog.defs.get(name)
        fn = game.ns.get(N.def_fn(name))
        if d is None or fn is None:
            continue
        ps = [types(p.type) for p in d.params]
        rec = types(d.type)
        if isinstance(rec, tuple) and rec[0] == "list":
            shapes[name] = (fn, rec[1], len(ps) == 1)
        elif len(ps) == 2 and isinstance(ps[0], tuple) and ps[0][0] == "map":
            cells[ps[0][2]] = (fn, rec)
        elif len(ps) == 1:
            items[ps[0]] = (fn, rec)
    return cells, items, shapes


def _types(game):
    """A type reference of the spec as the codec's type (enough for drawing)."""
    codec = game.codec

    def resolve(tr):
        if tr.name in ("list", "set", "bag", "map", "maybe"):
            return (tr.name,) + tuple(resolve(a) for a in tr.args)
        if tr.name == "Pos":
            return T.POS
        if tr.name in codec.enums:
            return ("enum", tr.name)
        if tr.name in codec.records:
            return ("record", tr.name)
        return {"Player": T.INT}.get(tr.name, tr.name)
    return resolve


def _shape_svgs(doc, game, state, shaped: dict, caption: str) -> list[tuple]:
    """(key, SVG, [function]) for each shapes function: once, or once per
    seat for a function of a player. The checker made sure such a function
    reads only what every player sees."""
    out = []
    for name, (fn, rec, per_player) in shaped.items():
        fill = dict(game.codec.records[rec[1]]).get("fill")
        if isinstance(fill, tuple) and fill[0] == "maybe":
            fill = fill[1]
        members = tuple(game.codec.enums[fill[1]]) if isinstance(fill, tuple) and fill[0] == "enum" else ()
        for p in range(game.num_players) if per_player else [None]:
            value = fn(state.S, p) if per_player else fn(state.S)
            views = [_view(game, rec, v) for v in value]
            if not views:
                continue
            past = shapes.over_limits(views)
            if past:
                _report_limit(doc, name, past)
            who = f", player {p}" if per_player else ""
            out.append((f"{name}{'-' + str(p) if per_player else ''}",
                        shapes.draw(views, f"{name}{who}: {caption}", members), [name]))
    return out


_REPORTED: set = set()


def _report_limit(doc, name: str, past: str) -> None:
    """A shapes picture past a bound: a diagnostic (A0005) at the game
    block's `pictures` entry, logged as a warning of the docs build (an
    error with ``--strict``); the picture itself stays within the bounds."""
    from sphinx.util import logging
    from atoll.diagnostics import Diagnostic, render
    entry = next((e for e in doc.prog.game.meta if e.key == "pictures"), None)
    key = (str(doc.path), name, past)
    if key in _REPORTED:                  # once per build, not once per position drawn
        return
    _REPORTED.add(key)
    d = Diagnostic("A0005", f"the picture `{name}` has {past}", entry.span if entry else None,
                   "draw fewer or smaller shapes (docs/language.md, section Limits)")
    logging.getLogger(__name__).warning(render(d))


def _members(game, rec) -> tuple:
    """The members of the enum of the drawing record's `centre` or `edges`."""
    fields = dict(game.codec.records[rec[1]])
    for f in ("centre", "edges"):
        t = fields.get(f)
        if isinstance(t, tuple) and t[0] == "list":
            t = t[1]
        if isinstance(t, tuple) and t[0] == "enum":
            return tuple(game.codec.enums[t[1]])
    return ()


def _view(game, rec, value) -> dict:
    """The drawing function's record as {field: value}, enums by member name."""
    codec = game.codec
    fields = codec.records[rec[1]]
    out = {}
    for (f, t), v in zip(fields, value):
        if isinstance(t, tuple) and t[0] == "maybe":
            t = t[1]
        if v is None:
            out[f] = None
        elif isinstance(t, tuple) and t[0] == "enum":
            out[f] = codec.enums[t[1]][v]
        elif isinstance(t, tuple) and t[0] == "list" and isinstance(t[1], tuple) and t[1][0] == "enum":
            out[f] = [codec.enums[t[1][1]][x] for x in v]
        else:
            out[f] = v
    return out


def tile_svgs(doc, game, state, viewer: int, caption: str) -> list[tuple]:
    """(key, SVG, [variable]) for every variable the `pictures` functions draw."""
    cells, items, shaped = drawers(doc, game)
    if not cells and not items and not shaped:
        return []
    obs = state.observation(viewer)["state"]
    out = _shape_svgs(doc, game, state, shaped, caption)
    for i, name in enumerate(game.layout.names):
        if i == 0 or name not in obs:
            continue
        t, (scope, vis) = game.slot_types[i], game.visibility[i]
        if scope == "phase":
            continue
        per_player = isinstance(t, tuple) and t[0] == "player"
        vt = t[1] if per_player else t
        seats = range(game.num_players) if per_player else [None]

        def shown(p):
            seen = obs[name][p] if p is not None else obs[name]
            return not (isinstance(seen, dict) and seen.get("hidden"))
        raw = state.S[i]
        if isinstance(vt, tuple) and vt[0] == "map" and vt[1] == T.POS and vt[2] in cells:
            fn, rec = cells[vt[2]]
            for p in seats:
                m = raw[p] if p is not None else raw
                if not shown(p) or not m:
                    continue
                views = {q: _view(game, rec, fn(state.S, m, q)) for q in m}
                who = f", player {p}" if p is not None else ""
                out.append((f"{name}{'-' + str(p) if p is not None else ''}",
                            grid(views, f"{name}{who}: {caption}", _members(game, rec)), [name]))
        elif isinstance(vt, tuple) and vt[0] in ("list", "set", "bag", "map") and vt[1] in items:
            fn, rec = items[vt[1]]
            rows = []
            for p in seats:
                v = raw[p] if p is not None else raw
                if not shown(p) or not v:
                    continue
                keys = sorted(v) if vt[0] in ("set", "map") else list(v)
                rows.append((f"player {p}" if p is not None else "",
                             [(_view(game, rec, fn(state.S, k)),
                               str(v[k]) if vt[0] == "map" else "") for k in keys]))
            if rows:
                out.append((name, row_svg(rows, f"{name}: {caption}", _members(game, rec)), [name]))
    return out


# ---------------------------------------------------------------- drawing

# Muted colours for the members of a tile's enum, in declared order (a
# member named after a colour keeps its own, as everywhere in the docs).
TILE_PALETTE = ("#9ccc65", "#b0a089", "#6fa8dc", "#e6cf8b", "#c39bd3", "#f2a36b", "#80cbc4", "#d7ccc8")


def _colours(views, members=()) -> dict:
    """Member -> colour: every member of the enum (``members``, declared
    order) keeps its colour from picture to picture; only the members seen
    go in the legend."""
    seen = []
    for v in views:
        for m in [v.get("centre")] + list(v.get("edges") or []):
            if m is not None and m not in seen:
                seen.append(m)
    out, k = {}, 0
    for m in list(members) or seen:
        if m.lower() in S.NAMED_COLOURS:
            out[m] = S.NAMED_COLOURS[m.lower()]
        else:
            out[m] = TILE_PALETTE[k % len(TILE_PALETTE)]
            k += 1
    return {m: out[m] for m in out if m in seen}


def _tile(v: dict, x: float, y: float, colours: dict, size: float = CELL - 6) -> list[str]:
    """One tile at (x, y): four side bands, the middle, roads, outlines, label."""
    s, b = size, size * 0.28       # the side bands' depth
    corners = [(x, y), (x + s, y), (x + s, y + s), (x, y + s)]
    inner = [(x + b, y + b), (x + s - b, y + b), (x + s - b, y + s - b), (x + b, y + s - b)]
    parts = []
    for d in range(4):             # north, east, south, west: a trapezoid each
        pts = [corners[d], corners[(d + 1) % 4], inner[(d + 1) % 4], inner[d]]
        parts.append(pts)
    parts.append(inner)
    fills = list(v.get("edges") or [None] * 4)[:4] + [v.get("centre")]
    fills = [colours.get(m, "#d9dfe4") for m in fills]
    if v.get("centre") is None:
        fills[4] = fills[0]
    closed = list(v.get("closed") or [])
    out = []
    for k, pts in enumerate(parts):
        path = " ".join(f"{px:.1f},{py:.1f}" for px, py in pts)
        out.append(f"<polygon points='{path}' fill='{fills[k]}' stroke='{fills[k]}' stroke-width='0.6'/>")
    for k, pts in enumerate(parts):
        if k < len(closed) and closed[k]:
            path = " ".join(f"{px:.1f},{py:.1f}" for px, py in pts)
            out.append(f"<polygon points='{path}' fill='url(#closed)' stroke='none'/>")
    out.append(f"<rect x='{x:.1f}' y='{y:.1f}' width='{s:.1f}' height='{s:.1f}' fill='none' "
               f"stroke='#333' stroke-width='1.2'/>")
    cx, cy = x + s / 2, y + s / 2
    mids = [(cx, y), (x + s, cy), (cx, y + s), (x, cy)]
    for d, road in enumerate(list(v.get("roads") or [])[:4]):
        if road:
            mx, my = mids[d]
            out.append(f"<line x1='{mx:.1f}' y1='{my:.1f}' x2='{cx:.1f}' y2='{cy:.1f}' stroke='#f4f0e6' "
                       f"stroke-width='5'/><line x1='{mx:.1f}' y1='{my:.1f}' x2='{cx:.1f}' y2='{cy:.1f}' "
                       f"stroke='#6b4a2b' stroke-width='2.2' stroke-dasharray='4 2'/>")
    if v.get("label") is not None:
        out.append(S._text(x + 3, y + 8, str(v["label"]), 9, anchor="start", weight="bold"))
    if v.get("note") is not None:
        out.append(f"<rect x='{x + 4:.1f}' y='{y + s - 15:.1f}' width='{s - 8:.1f}' height='12' rx='3' "
                   f"fill='#fffbe8' stroke='#8a6d1e' stroke-width='0.8'/>")
        out.append(S._text(cx, y + s - 9, str(v["note"]).replace("_", " "), 8, fill="#5a4410"))
    return out


_PATTERN = ("<defs><pattern id='closed' width='6' height='6' patternUnits='userSpaceOnUse' "
            "patternTransform='rotate(45)'><line x1='0' y1='0' x2='0' y2='6' stroke='#222' "
            "stroke-width='1.6' stroke-opacity='0.55'/></pattern></defs>")


def _legend(views, colours, width, top) -> tuple[list[str], float, float]:
    items = [("box", c, m.replace("_", " ")) for m, c in colours.items()]
    if any(any(v.get("closed") or []) for v in views):
        items.append(("box", "url(#closed)", "completed (closed) part"))
    if any(any(v.get("roads") or []) for v in views):
        items.append(("box", "#6b4a2b", "road"))
    parts, used = S._legend(items, width + 4, top)
    return parts, width + 4 + 22 + 8 * max(len(e[2]) for e in items) + 12, used


def grid(views: dict, title: str, members=()) -> str:
    """Tiles at their positions ((x, y) -> view); y grows downwards."""
    margin = 28
    x0, x1 = min(q[0] for q in views), max(q[0] for q in views)
    y0, y1 = min(q[1] for q in views), max(q[1] for q in views)
    cols, rows = x1 - x0 + 1, y1 - y0 + 1
    body = [_PATTERN]
    for i in range(cols):
        body.append(S._text(margin + i * CELL + CELL / 2, margin / 2, str(x0 + i), 10, fill="#777"))
    for j in range(rows):
        body.append(S._text(margin / 2, margin + j * CELL + CELL / 2, str(y0 + j), 10, fill="#777"))
    colours = _colours(views.values(), members)
    for (x, y), v in sorted(views.items()):
        body += _tile(v, margin + (x - x0) * CELL + 3, margin + (y - y0) * CELL + 3, colours)
    width, height = margin + cols * CELL + 12, margin + rows * CELL + 12
    parts, width, used = _legend(list(views.values()), colours, width, margin)
    return S._doc(width, max(height, margin + used), body + parts, title)


def row_svg(rows: list, title: str, members=()) -> str:
    """Rows of tiles: (row name, [(view, caption)])."""
    margin, name_w = 12, 70
    body = [_PATTERN]
    colours = _colours([v for _, tiles in rows for v, _ in tiles], members)
    y = margin
    for name, tiles in rows:
        body.append(S._text(margin, y + CELL / 2, name, 11, anchor="start", weight="bold"))
        for k, (v, cap) in enumerate(tiles):
            x = margin + name_w + k * (CELL + 8)
            body += _tile(v, x, y, colours)
            if cap:
                body.append(S._text(x + (CELL - 6) / 2, y + CELL + 6, cap, 11, weight="bold"))
        y += CELL + 20
    width = margin + name_w + max(len(t) for _, t in rows) * (CELL + 8) + 12
    parts, width, used = _legend([v for _, t in rows for v, _ in t], colours, width, margin)
    return S._doc(width, max(y, margin + used), body + parts, title)
