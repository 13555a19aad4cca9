"""SVG pictures for the generated docs: grids, graphs and the pipeline.

Every function takes plain data (labels, colours, positions) and returns the
text of one standalone SVG document; what to draw is decided by the caller
from the spec's types and values (see ``atoll.rulebook``). Nothing here
knows a game. Layouts are deterministic: the same data gives the same file.
"""
from __future__ import annotations

import math
import random
from typing import Optional
from xml.sax.saxutils import escape as _escape

# Softer shades for enum members that are named after a colour; any other
# member gets the next colour of PALETTE.
NAMED_COLOURS = {
    "red": "#e4574f", "green": "#4caf6a", "blue": "#4a7fd4", "yellow": "#f2cf3a",
    "orange": "#f08c30", "purple": "#8e5bc4", "violet": "#a077d4", "pink": "#ec8fb8",
    "brown": "#9a6b43", "black": "#3b3b3b", "white": "#f7f7f2", "grey": "#a0a4a8",
    "gray": "#a0a4a8", "cyan": "#47c1d1", "magenta": "#c8509e", "gold": "#d9b13b",
    "silver": "#c3c7cc", "teal": "#2f9c95", "navy": "#2d4a86", "olive": "#8b9a3a",
}
PALETTE = ("#7aa6d8", "#e8a15d", "#8cc48a", "#d98aa8", "#b49ad8", "#d8c86a", "#79c9c3",
           "#c7a27e", "#a9b3bd", "#e07b6a")
PLAYER_COLOURS = ("#1f3f8f", "#b3261e", "#1e7a3c", "#7b3fa0", "#b8860b", "#0e7c86",
                  "#8a4b14", "#4d4d4d")
FONT = "font-family='DejaVu Sans, Verdana, sans-serif'"


def escape(text) -> str:
    """Text for an SVG element: ``&``, ``<`` and ``>`` escaped, and every
    character XML does not allow (control characters, lone surrogates)
    dropped, so that any text of a spec gives a well-formed picture."""
    ok = "".join(c for c in str(text) if c in "\t\n\r" or not (
        c < " " or "\x7f" <= c <= "\x9f" or "\ud800" <= c <= "\udfff" or c in "\ufffe\uffff"))
    return _escape(ok)


def member_colours(members) -> dict[str, str]:
    """A fill colour for each member of an enum: its own when it names one."""
    out, k = {}, 0
    for m in members:
        if m.lower() in NAMED_COLOURS:
            out[m] = NAMED_COLOURS[m.lower()]
        else:
            out[m] = PALETTE[k % len(PALETTE)]
            k += 1
    return out


def text_colour(fill: str) -> str:
    """Black or white, whichever reads better on ``fill`` (#rrggbb)."""
    r, g, b = (int(fill[i:i + 2], 16) for i in (1, 3, 5))
    return "#000000" if 0.299 * r + 0.587 * g + 0.114 * b > 140 else "#ffffff"


def _doc(width: float, height: float, body: list[str], title: str) -> str:
    head = (f"<svg xmlns='http://www.w3.org/2000/svg' width='{width:.0f}' height='{height:.0f}' "
            f"viewBox='0 0 {width:.0f} {height:.0f}' role='img' {FONT} font-size='12'>")
    return "\n".join([head, f"<title>{escape(title)}</title>",
                      "<rect width='100%' height='100%' fill='#ffffff'/>"] + body + ["</svg>", ""])


def _text(x: float, y: float, s: str, size: int = 12, anchor: str = "middle", fill: str = "#000",
          weight: str = "normal") -> str:
    return (f"<text x='{x:.1f}' y='{y:.1f}' font-size='{size}' text-anchor='{anchor}' "
            f"dominant-baseline='central' fill='{fill}' font-weight='{weight}'>{escape(s)}</text>")


def _legend(items: list[tuple[str, str, str]], x: float, y: float) -> tuple[list[str], float]:
    """``items``: (shape, colour, label) with shape 'box' or 'dot'. Returns the
    SVG parts and the height used."""
    out = []
    for i, (shape, colour, label) in enumerate(items):
        cy = y + 10 + i * 20
        if shape == "box":
            out.append(f"<rect x='{x:.1f}' y='{cy - 7:.1f}' width='14' height='14' rx='3' "
                       f"fill='{colour}' stroke='#555'/>")
        else:
            out.append(f"<circle cx='{x + 7:.1f}' cy='{cy:.1f}' r='6' fill='{colour}' stroke='#fff'/>")
        out.append(_text(x + 22, cy, label, anchor="start"))
    return out, len(items) * 20 + 10


# ---------------------------------------------------------------- grids

def attr(text) -> str:
    """Text for an attribute value between single or double quotes."""
    return escape(text).replace("'", "&apos;").replace('"', "&quot;")


def grid(cells: dict, markers: Optional[dict] = None, legend: Optional[list] = None,
         title: str = "grid", cell: int = 52, hits: bool = False) -> str:
    """A grid of positions. ``cells``: (x, y) -> (label, fill colour);
    ``markers``: (x, y) -> list of (text, colour) drawn as dots on the cell;
    ``legend``: (shape, colour, label) entries. y grows downwards, as in the
    terminal picture of ``atoll play``. ``hits``: every position of the
    grid's box gets a transparent target on top, ``data-mark='pos:X,Y'``
    (for a page where the board is clicked)."""
    markers = markers or {}
    keys = list(cells) + list(markers)
    if not keys:
        keys = [(0, 0)]
    x0, x1 = min(k[0] for k in keys), max(k[0] for k in keys)
    y0, y1 = min(k[1] for k in keys), max(k[1] for k in keys)
    margin = 28
    cols, rows = x1 - x0 + 1, y1 - y0 + 1
    gw, gh = cols * cell, rows * cell
    body = []
    for i in range(cols):   # axis labels
        body.append(_text(margin + i * cell + cell / 2, margin / 2, str(x0 + i), 10, fill="#777"))
    for j in range(rows):
        body.append(_text(margin / 2, margin + j * cell + cell / 2, str(y0 + j), 10, fill="#777"))
    body.append(f"<rect x='{margin}' y='{margin}' width='{gw}' height='{gh}' fill='#eef4f8' "
                f"stroke='#c9d6df'/>")
    for (x, y), (label, fill) in sorted(cells.items()):
        px, py = margin + (x - x0) * cell, margin + (y - y0) * cell
        body.append(f"<rect x='{px + 3}' y='{py + 3}' width='{cell - 6}' height='{cell - 6}' rx='6' "
                    f"fill='{fill}' stroke='#444' stroke-width='1.2'/>")
        body.append(_text(px + cell / 2, py + cell / 2 - 4, label, 15, fill=text_colour(fill),
                          weight="bold"))
    for (x, y), marks in sorted(markers.items()):
        px, py = margin + (x - x0) * cell, margin + (y - y0) * cell
        for i, (mark, colour) in enumerate(marks):
            cx = px + 11 + (i % 4) * 10
            cy = py + cell - 11 - (i // 4) * 10
            body.append(f"<circle cx='{cx}' cy='{cy}' r='5.5' fill='{colour}' stroke='#fff' "
                        f"stroke-width='1.2'><title>{escape(mark)}</title></circle>")
    if hits:
        for i in range(cols):
            for j in range(rows):
                body.append(f"<rect class='atoll-hit' data-mark='pos:{x0 + i},{y0 + j}' "
                            f"x='{margin + i * cell}' y='{margin + j * cell}' width='{cell}' "
                            f"height='{cell}' fill='transparent'/>")
    width, height = margin + gw + 12, margin + gh + 12
    if legend:
        parts, used = _legend(legend, width + 4, margin)
        body += parts
        width += 4 + 22 + 8 * max(len(e[2]) for e in legend) + 12
        height = max(height, margin + used)
    return _doc(width, height, body, title)


# ---------------------------------------------------------------- graphs

def _neighbours(nodes: list, edges: list[tuple]) -> dict:
    """Each node's neighbours, in the order the nodes are listed (so that the
    same data always gives the same drawing)."""
    found = {v: set() for v in nodes}
    for a, b in edges:
        if a != b:
            found[a].add(b)
            found[b].add(a)
    index = {v: i for i, v in enumerate(nodes)}
    return {v: sorted(ws, key=index.__getitem__) for v, ws in found.items()}


def tutte(nodes: list, edges: list[tuple], outer: list, iterations: int = 600) -> dict:
    """A drawing without crossings of a planar graph: the ``outer`` face on a
    circle, every other node at the mean of its neighbours (Tutte's
    barycentric method)."""
    nbr = _neighbours(nodes, edges)
    pos = {}
    k = len(outer)
    for i, v in enumerate(outer):
        angle = 2 * math.pi * i / k - math.pi / 2
        pos[v] = [0.5 + 0.5 * math.cos(angle), 0.5 + 0.5 * math.sin(angle)]
    inner = [v for v in nodes if v not in pos]
    for v in inner:
        pos[v] = [0.5, 0.5]
    for _ in range(iterations):
        for v in inner:
            if nbr[v]:
                pos[v] = [sum(pos[w][0] for w in nbr[v]) / len(nbr[v]),
                          sum(pos[w][1] for w in nbr[v]) / len(nbr[v])]
    return _normalise(_spread(pos, nbr))


def _crosses(p1, p2, p3, p4) -> bool:
    """Do the segments p1-p2 and p3-p4 cross (properly)?"""
    def orient(a, b, c):
        return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    d1, d2 = orient(p3, p4, p1), orient(p3, p4, p2)
    d3, d4 = orient(p1, p2, p3), orient(p1, p2, p4)
    return d1 * d2 < 0 and d3 * d4 < 0


def _gap(p, a, b) -> float:
    """The distance from point p to the segment a-b."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    t = ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / max(dx * dx + dy * dy, 1e-12)
    t = min(1.0, max(0.0, t))
    return math.hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy)


def _clearance(v, at, pos, nbr, links) -> float:
    """How close node v at ``at`` comes to a link it is not on, or its links to another node."""
    gaps = [_gap(pos[u], at, pos[w]) for w in nbr[v] for u in pos if u != v and u != w]
    gaps += [_gap(at, pos[a], pos[b]) for a, b in links if v not in (a, b)]
    return min(gaps, default=1.0)


def _fits(v, new, pos, nbr, links, clear: float) -> bool:
    """May node v move to ``new``? Never if two links would cross; not if a
    link would come closer to a node than ``clear`` (unless it was closer still)."""
    for w in nbr[v]:
        for a, b in links:
            if v not in (a, b) and w not in (a, b) and _crosses(new, pos[w], pos[a], pos[b]):
                return False
    gap = _clearance(v, new, pos, nbr, links)
    return gap >= clear or gap >= _clearance(v, pos[v], pos, nbr, links)


def _spread(pos: dict, nbr: dict, rounds: int = 150) -> dict:
    """Even out a crossing-free drawing: nodes push each other apart and
    links pull, and a move that would make two links cross is not made."""
    nodes = list(pos)
    index = {v: i for i, v in enumerate(nodes)}
    links = sorted({(a, b) if index[a] < index[b] else (b, a) for a in nbr for b in nbr[a] if a != b},
                   key=lambda e: (index[e[0]], index[e[1]]))
    k = math.sqrt(1.0 / max(len(nodes), 1))
    step = 0.05
    clear = 0.45 * k   # how close a node may come to a link it is not on
    for _ in range(rounds):
        for v in nodes:
            fx = fy = 0.0
            for w in nodes:
                if w is v or w == v:
                    continue
                dx, dy = pos[v][0] - pos[w][0], pos[v][1] - pos[w][1]
                d = max(math.hypot(dx, dy), 1e-4)
                fx += dx / d * k * k / d
                fy += dy / d * k * k / d
            for w in nbr[v]:
                dx, dy = pos[v][0] - pos[w][0], pos[v][1] - pos[w][1]
                d = max(math.hypot(dx, dy), 1e-4)
                fx -= dx / d * d * d / k
                fy -= dy / d * d * d / k
            f = math.hypot(fx, fy)
            if f < 1e-9:
                continue
            new = [pos[v][0] + fx / f * min(f, step), pos[v][1] + fy / f * min(f, step)]
            if _fits(v, new, pos, nbr, links, clear):
                pos[v] = new
        step = max(step * 0.98, 0.003)
    return pos


def _normalise(pos: dict) -> dict:
    xs = [p[0] for p in pos.values()]
    ys = [p[1] for p in pos.values()]
    s = max(max(xs) - min(xs), max(ys) - min(ys), 1e-9)
    return {v: ((p[0] - min(xs)) / s, (p[1] - min(ys)) / s) for v, p in pos.items()}


def layout(nodes: list, edges: list[tuple], seed: int = 1, iterations: int = 400) -> dict:
    """Positions in the unit square for ``nodes`` (a force-directed layout,
    Fruchterman-Reingold, started from a circle in breadth-first order)."""
    n = len(nodes)
    if n == 0:
        return {}
    if n == 1:
        return {nodes[0]: (0.5, 0.5)}
    nbr = _neighbours(nodes, edges)
    order, seen = [], set()
    for root in sorted(nodes, key=lambda v: (-len(nbr[v]), repr(v))):
        if root in seen:
            continue
        queue = [root]
        seen.add(root)
        while queue:
            v = queue.pop(0)
            order.append(v)
            for w in sorted(nbr[v], key=repr):
                if w not in seen:
                    seen.add(w)
                    queue.append(w)
    rng = random.Random(seed)
    pos = {v: [0.5 + 0.4 * math.cos(2 * math.pi * i / n) + rng.uniform(-0.01, 0.01),
               0.5 + 0.4 * math.sin(2 * math.pi * i / n) + rng.uniform(-0.01, 0.01)]
           for i, v in enumerate(order)}
    k = math.sqrt(1.0 / n)
    temp = 0.1
    pairs = list(dict.fromkeys((a, b) for a, b in edges if a != b))
    for _ in range(iterations):
        disp = {v: [0.0, 0.0] for v in nodes}
        for i, v in enumerate(nodes):
            pv = pos[v]
            for w in nodes[i + 1:]:
                pw = pos[w]
                dx, dy = pv[0] - pw[0], pv[1] - pw[1]
                d = max(math.hypot(dx, dy), 1e-4)
                f = k * k / d
                disp[v][0] += dx / d * f
                disp[v][1] += dy / d * f
                disp[w][0] -= dx / d * f
                disp[w][1] -= dy / d * f
        for a, b in pairs:
            pa, pb = pos[a], pos[b]
            dx, dy = pa[0] - pb[0], pa[1] - pb[1]
            d = max(math.hypot(dx, dy), 1e-4)
            f = d * d / k
            disp[a][0] -= dx / d * f
            disp[a][1] -= dy / d * f
            disp[b][0] += dx / d * f
            disp[b][1] += dy / d * f
        for v in nodes:
            dx, dy = disp[v]
            d = max(math.hypot(dx, dy), 1e-9)
            pos[v][0] += dx / d * min(d, temp)
            pos[v][1] += dy / d * min(d, temp)
        temp = max(temp * 0.985, 0.002)
    return _normalise(pos)


def graph(nodes: list, edges: list[tuple], labels: Optional[dict] = None,
          fills: Optional[dict] = None, legend: Optional[list] = None, title: str = "graph",
          size: int = 520, outer: Optional[list] = None, rings: Optional[dict] = None,
          link_colours: Optional[dict] = None, hits: bool = False) -> str:
    """Nodes and links. ``edges`` are (a, b) pairs, a repeated pair is drawn
    as parallel curves; ``labels`` and ``fills`` are per node. With
    ``outer`` (a face of a plane embedding) the drawing has no crossings.
    A position on the graph: ``rings`` (node -> colour) marks nodes,
    ``link_colours`` ((a, b) -> colours, one per parallel link) marks links.
    ``hits``: each node gets a transparent target on top, ``data-mark='node:KEY'``."""
    labels = labels or {}
    fills = fills or {}
    rings = rings or {}
    link_colours = link_colours or {}
    pos = _placed(tuple(nodes), tuple(edges), tuple(outer) if outer else None)
    nbr = _neighbours(nodes, edges)
    r = 15
    margin = 30 + max([len(str(labels.get(v, v))) for v in nodes] + [1]) * 3
    scale = size - 2 * margin

    def at(v):
        x, y = pos[v]
        return margin + x * scale, margin + y * scale
    body = []
    span_x = max([x for x, _ in pos.values()] + [0.0])
    span_y = max([y for _, y in pos.values()] + [0.0])
    count: dict = {}
    for a, b in edges:
        key = (a, b) if repr(a) <= repr(b) else (b, a)
        count[key] = count.get(key, 0) + 1
    for (a, b), m in sorted(count.items(), key=repr):
        (xa, ya), (xb, yb) = at(a), at(b)
        if a == b:
            body.append(f"<circle cx='{xa:.1f}' cy='{ya - r:.1f}' r='{r * 0.8:.1f}' fill='none' "
                        f"stroke='#667' stroke-width='1.6'/>")
            continue
        length = max(math.hypot(xb - xa, yb - ya), 1e-6)
        nx, ny = -(yb - ya) / length, (xb - xa) / length
        marks = list(link_colours.get((a, b), ())) + list(link_colours.get((b, a), ()))
        for i in range(m):
            off = (i - (m - 1) / 2) * 14
            cx, cy = (xa + xb) / 2 + nx * off, (ya + yb) / 2 + ny * off
            colour, width = (marks[i], 5) if i < len(marks) else ("#667", 1.6)
            body.append(f"<path d='M {xa:.1f} {ya:.1f} Q {cx:.1f} {cy:.1f} {xb:.1f} {yb:.1f}' "
                        f"fill='none' stroke='{colour}' stroke-width='{width}'/>")
    for v in nodes:
        x, y = at(v)
        fill = fills.get(v, "#dde6ee")
        if v in rings:
            body.append(f"<circle cx='{x:.1f}' cy='{y:.1f}' r='{r + 4}' fill='none' "
                        f"stroke='{rings[v]}' stroke-width='4'/>")
        body.append(f"<circle cx='{x:.1f}' cy='{y:.1f}' r='{r}' fill='{fill}' stroke='#333' "
                    f"stroke-width='1.3'><title>{escape(str(labels.get(v, v)))}</title></circle>")
    for v in nodes:    # labels last, on a white halo, where no link leaves the node
        x, y = at(v)
        text = str(labels.get(v, v))
        dx, dy = _label_side(v, pos, at, nbr, text, r, (2 * margin + span_x * scale,
                                                        2 * margin + span_y * scale + 12))
        body.append(_halo(_text(x + dx, y + dy, text, 11)))
    if hits:
        for v in nodes:
            x, y = at(v)
            body.append(f"<circle class='atoll-hit' data-mark='node:{attr(v)}' cx='{x:.1f}' "
                        f"cy='{y:.1f}' r='{r + 4}' fill='transparent'>"
                        f"<title>{escape(str(labels.get(v, v)))}</title></circle>")
    width, height = 2 * margin + span_x * scale, 2 * margin + span_y * scale + 12
    if legend:
        parts, used = _legend(legend, width, 16)
        body += parts
        width += 40 + 8 * max(len(e[2]) for e in legend)
        height = max(height, 16 + used)
    return _doc(width, height, body, title)


_LAYOUTS: dict = {}


def _placed(nodes: tuple, edges: tuple, outer: Optional[tuple]) -> dict:
    """The layout of a graph, computed once per graph: a graph is drawn
    again for every position shown on it (a page of play, a trace)."""
    key = (nodes, edges, outer)
    if key not in _LAYOUTS:
        if len(_LAYOUTS) >= 64:
            _LAYOUTS.clear()
        _LAYOUTS[key] = tutte(list(nodes), list(edges), list(outer)) if outer \
            else layout(list(nodes), list(edges))
    return _LAYOUTS[key]


def _halo(text_el: str) -> str:
    """A label drawn over a white outline, so that a link under it stays readable."""
    return text_el.replace("<text ", "<text stroke='#ffffff' stroke-width='3' "
                           "stroke-linejoin='round' paint-order='stroke' ", 1)


def _label_side(v, pos, at, nbr, text: str, r: float, bounds) -> tuple[float, float]:
    """Where a node's label goes: of eight places around the node, the one
    farthest (in angle) from the node's links and clear of the other nodes."""
    x, y = at(v)
    angles = [math.atan2(at(o)[1] - y, at(o)[0] - x) for o in nbr.get(v, ()) if o != v]
    half_w = 3.2 * len(text) + 4
    others = [at(o) for o in pos if o != v]
    best, best_score = (0.0, r + 11), -1e9
    for k in range(8):
        a = math.pi / 2 + k * math.pi / 4          # below first, then round the node
        gap = min((abs(math.remainder(a - b, math.tau)) for b in angles), default=math.pi)
        dx, dy = math.cos(a) * (r + 6 + half_w * abs(math.cos(a))), math.sin(a) * (r + 11)
        near = min((math.hypot(ox - (x + dx), oy - (y + dy)) for ox, oy in others), default=99.0)
        lx, ly = x + dx, y + dy
        outside = lx - half_w < 0 or lx + half_w > bounds[0] or ly < 6 or ly > bounds[1] - 6
        score = gap - (2.0 if near < r + half_w * 0.6 else 0.0) - (4.0 if outside else 0.0) \
            + (0.05 if k == 0 else 0.0)
        if score > best_score:
            best, best_score = (dx, dy), score
    return best


# ---------------------------------------------------------------- the pipeline

def pipeline(stages: list[tuple[str, str]], branches: list[tuple[str, str]],
             title: str = "pipeline") -> str:
    """Boxes joined by arrows, left to right; the last stage forks into
    ``branches``. Each stage and branch is (name, caption)."""
    bw, bh, gap = 118, 54, 34
    n = len(stages)
    rows = max(len(branches), 1)
    height = max(rows * (bh + 16) + 40, bh + 70)
    mid = height / 2
    body = ["<defs><marker id='arrow' viewBox='0 0 10 10' refX='9' refY='5' markerWidth='7' "
            "markerHeight='7' orient='auto-start-reverse'><path d='M 0 0 L 10 5 L 0 10 z' "
            "fill='#445'/></marker></defs>"]

    def box(x, y, name, caption, fill):
        body.append(f"<rect x='{x:.1f}' y='{y:.1f}' width='{bw}' height='{bh}' rx='8' fill='{fill}' "
                    f"stroke='#345' stroke-width='1.3'/>")
        body.append(_text(x + bw / 2, y + bh / 2 - 8, name, 13, weight="bold"))
        body.append(_text(x + bw / 2, y + bh / 2 + 10, caption, 10, fill="#345"))

    x = 14
    for i, (name, caption) in enumerate(stages):
        box(x, mid - bh / 2, name, caption, "#e3eef8" if i % 2 == 0 else "#eef6e4")
        if i < n - 1:
            body.append(f"<line x1='{x + bw:.1f}' y1='{mid:.1f}' x2='{x + bw + gap - 2:.1f}' "
                        f"y2='{mid:.1f}' stroke='#445' stroke-width='1.6' marker-end='url(#arrow)'/>")
        x += bw + gap
    last_right = x - gap
    bx = x + 24
    for j, (name, caption) in enumerate(branches):
        by = mid - (rows * (bh + 16) - 16) / 2 + j * (bh + 16)
        box(bx, by, name, caption, "#fbeedd")
        body.append(f"<path d='M {last_right:.1f} {mid:.1f} C {last_right + 30:.1f} {mid:.1f} "
                    f"{bx - 30:.1f} {by + bh / 2:.1f} {bx - 2:.1f} {by + bh / 2:.1f}' fill='none' "
                    f"stroke='#445' stroke-width='1.6' marker-end='url(#arrow)'/>")
    width = bx + (bw + 14 if branches else 0)
    return _doc(width, height, body, title)
