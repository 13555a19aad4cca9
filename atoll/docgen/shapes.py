"""Pictures made of shapes, for specs whose game block names a drawing
function in `pictures` that returns a list of shape records
(compiler/check_pictures.py says what such a record holds).

A function without parameters is drawn once; a function of a player
``(p: Player)`` once per seat. Each record is one shape, drawn in the
order of the list: an annular ``sector`` (centre ``x, y``, radii ``r0 <
r1``, angles ``a0, a1`` in hundredths of a degree counter-clockwise from
east), a ``dot`` (centre ``x, y``, radius ``r1``), a ``box`` (centre ``x,
y``, size ``w`` by ``h``) or a ``text`` at ``x, y``; a dot, box or text
moved by ``r0`` in the direction ``a0`` when they are set (a place given
in polar coordinates). Coordinates are the
spec's own integers, ``y`` upwards; the picture is scaled to fit. ``fill``
is an enum member (a member named after a colour keeps it); ``seat``,
when it is a seat, colours the shape in that player's colour instead; ``label`` is written on the shape. Every text is
escaped, and what is drawn is bounded (``MAX_SHAPES``, ``MAX_LABEL``,
``MAX_COORD``): past a bound the picture says what it left out.

The functions are the spec's own, evaluated by the compiled model; the
checker makes sure they read only what every player sees. Nothing here
knows a game.
"""
from __future__ import annotations

import math

from atoll.docgen import svg as S

KINDS = ("sector", "dot", "box", "text")
INTS = ("x", "y", "r0", "r1", "a0", "a1", "w", "h")
MAX_SHAPES = 2000      # shapes drawn in one picture; the rest are counted, not drawn
MAX_LABEL = 40         # characters of a label
MAX_COORD = 10 ** 6    # |coordinate| (a larger one is clamped)
SIZE = 520.0           # the longer side of the drawing, in pixels
UNSET = "#d9dfe4"


def _clamp(v) -> int:
    v = int(v) if isinstance(v, int) and not isinstance(v, bool) else 0
    return max(-MAX_COORD, min(MAX_COORD, v))


def _shape(view: dict) -> dict:
    out = {f: _clamp(view.get(f)) for f in INTS}
    out["shape"] = view.get("shape")
    seat = view.get("seat")
    ok = isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < 64
    out["fill"] = seat if ok else view.get("fill")
    label = view.get("label")
    out["label"] = None if label is None else str(label)[:MAX_LABEL]
    out["cx"], out["cy"] = out["x"], out["y"]
    if out["shape"] != "sector":          # a dot, box or text moved by r0 towards a0
        a = math.radians(out["a0"] / 100)
        out["cx"], out["cy"] = out["x"] + out["r0"] * math.cos(a), out["y"] + out["r0"] * math.sin(a)
    return out


def over_limits(views: list[dict]) -> str:
    """What in ``views`` goes past a bound ('' when nothing does): the
    caller reports it as a diagnostic (A0005), and the picture is drawn
    within the bounds."""
    out = []
    if len(views) > MAX_SHAPES:
        out.append(f"{len(views)} shapes (at most {MAX_SHAPES} are drawn)")
    if any(v.get("label") is not None and len(str(v["label"])) > MAX_LABEL for v in views):
        out.append(f"a label longer than {MAX_LABEL} characters (it is cut)")
    big = [f for v in views for f in INTS if isinstance(v.get(f), int) and abs(v[f]) > MAX_COORD]
    if big:
        out.append(f"a `{big[0]}` past {MAX_COORD:,} in size (it is clamped)")
    return "; ".join(out)


def _outline(s: dict, n: int = 0) -> list[tuple[float, float]]:
    """Points (spec units, y up) around a shape, to size the picture."""
    x, y = s["cx"], s["cy"]
    if s["shape"] == "sector":
        a0, a1 = s["a0"] / 100, s["a1"] / 100
        steps = max(2, min(64, int(abs(a1 - a0) / 6) + 2))
        pts = []
        for r, other in ((s["r1"], s["r0"]), (s["r0"], s["r1"])):
            for i in range(steps + 1):          # an arc, then the straight side to the other arc
                a = math.radians(a0 + (a1 - a0) * i / steps)
                pts.append((x + r * math.cos(a), y + r * math.sin(a)))
            a = math.radians(a1)
            pts += [(x + (r + (other - r) * k / 4) * math.cos(a), y + (r + (other - r) * k / 4) * math.sin(a))
                    for k in (1, 2, 3)]
            a0, a1 = a1, a0
        return pts
    if s["shape"] == "dot":
        r = abs(s["r1"])
        return [(x - r, y - r), (x + r, y + r)]
    if s["shape"] == "box":
        w, h = abs(s["w"]) / 2, abs(s["h"]) / 2
        return [(x - w, y - h), (x + w, y - h), (x + w, y + h), (x - w, y + h)]
    return [(x, y)]


def colours(members: tuple) -> dict:
    return S.member_colours(members)


def _fill(v, palette: dict) -> str:
    if isinstance(v, bool) or v is None:
        return UNSET
    if isinstance(v, int):
        return S.PLAYER_COLOURS[v % len(S.PLAYER_COLOURS)]
    return palette.get(v, UNSET)


def draw(views: list[dict], title: str, members: tuple = ()) -> str:
    """One SVG of the shapes (each a {field: value} view of a record)."""
    left = max(0, len(views) - MAX_SHAPES)
    shapes = [_shape(v) for v in views[:MAX_SHAPES]]
    shapes = [s for s in shapes if s["shape"] in KINDS]
    palette = colours(members)
    pts = [p for s in shapes for p in _outline(s)] or [(0, 0)]
    x0, x1 = min(p[0] for p in pts), max(p[0] for p in pts)
    y0, y1 = min(p[1] for p in pts), max(p[1] for p in pts)
    scale = SIZE / max(x1 - x0, y1 - y0, 1)
    margin = 16

    def at(px, py):
        return margin + (px - x0) * scale, margin + (y1 - py) * scale

    body, texts = [], []
    for s in shapes:
        fill = _fill(s["fill"], palette)
        cx, cy = at(s["cx"], s["cy"])
        if s["shape"] == "sector":
            path = " ".join(f"{a:.1f},{b:.1f}" for a, b in (at(*p) for p in _outline(s)))
            body.append(f"<polygon points='{path}' fill='{fill}' stroke='#333' stroke-width='0.8'/>")
            mid = math.radians((s["a0"] + s["a1"]) / 200)
            r = (s["r0"] + s["r1"]) / 2
            lx, ly = at(s["x"] + r * math.cos(mid), s["y"] + r * math.sin(mid))
        elif s["shape"] == "dot":
            r = max(1.5, abs(s["r1"]) * scale)
            body.append(f"<circle cx='{cx:.1f}' cy='{cy:.1f}' r='{r:.1f}' fill='{fill}' stroke='#222' "
                        f"stroke-width='0.8'/>")
            lx, ly = cx, cy
        elif s["shape"] == "box":
            w, h = abs(s["w"]) * scale, abs(s["h"]) * scale
            body.append(f"<rect x='{cx - w / 2:.1f}' y='{cy - h / 2:.1f}' width='{w:.1f}' height='{h:.1f}' "
                        f"rx='3' fill='{fill}' stroke='#333' stroke-width='1'/>")
            lx, ly = cx, cy
        else:
            lx, ly = cx, cy
            if s["label"] is not None:
                texts.append(S._text(lx, ly, s["label"], 11, fill=fill if fill != UNSET else "#000"))
            continue
        if s["label"]:
            ink = S.text_colour(fill) if fill.startswith("#") and len(fill) == 7 else "#000000"
            texts.append(S._text(lx, ly, s["label"], 10, fill=ink))
    width = margin * 2 + (x1 - x0) * scale
    height = margin * 2 + (y1 - y0) * scale
    if left:
        texts.append(S._text(margin, height + 4, f"({left} more shapes not drawn: at most {MAX_SHAPES})",
                             10, anchor="start", fill="#a00"))
        height += 16
    filled = [s for s in shapes if s["shape"] != "text"]      # a text's colour is no legend entry
    items = [("box", c, m.replace("_", " ")) for m, c in palette.items() if any(s["fill"] == m for s in filled)]
    seats = sorted({s["fill"] for s in filled if isinstance(s["fill"], int) and not isinstance(s["fill"], bool)})
    items += [("box", _fill(p, palette), f"player {p}") for p in seats]
    if items:
        parts, used = S._legend(items, width + 4, margin)
        body_w = width + 4 + 22 + 8 * max(len(e[2]) for e in items) + 12
        return S._doc(body_w, max(height, margin + used), body + texts + parts, title)
    return S._doc(width, height, body + texts, title)
