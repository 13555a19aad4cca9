"""What to draw for a spec, decided from its types and values.

* a **grid** for every state variable (or constant) that maps positions to
  values (``map[Pos, V]``): each cell is coloured by the first enum field of
  its record and labelled with its numbers; lists and sets of positions (a
  player's pieces) are drawn as dots on it;
* a **graph** for every data table or constant that links things to things:
  a map from each node to a collection of its neighbours (the form the
  standard library's ``reach``, ``connected`` and ``planar`` take), or a
  table of records with a key field and a list of neighbour keys; a table of
  records with that key colours the nodes by its first enum field.

Positions come from ``atoll.load(...).new_initial_state(seed=...)`` and its
observations, so what is drawn is what a player would see. Nothing here
knows a game; ``atoll.docgen.svg`` turns the data into SVG.
"""
from __future__ import annotations

import json
import random
from typing import Optional

from atoll.compiler import names as N
from atoll.compiler import types as T
from atoll.compiler.planarity import faces
from atoll.docgen import svg as pictures
from atoll.docgen.rst import code, esc, table

_COLLS = ("list", "set", "bag")


def _hkey(v):
    """A JSON value as a dictionary key."""
    return json.dumps(v, sort_keys=True) if isinstance(v, (dict, list)) else v


def _label(v) -> str:
    if isinstance(v, dict) and set(v) == {"x", "y"}:
        return f"({v['x']},{v['y']})"
    if isinstance(v, dict):
        return "/".join(_label(x) for x in v.values())
    return "none" if v is None else str(v)   # (null: an absent optional value)


def _record_parts(codec, rec: str) -> tuple[Optional[str], list[str]]:
    """A record's first enum field (for colour) and its number fields (for the label)."""
    fields = codec.records.get(rec, [])
    enum = next((f for f, t in fields if isinstance(t, tuple) and t[0] == "enum"), None)
    nums = [f for f, t in fields if t == T.INT]
    return enum, nums


# ---------------------------------------------------------------- grids

def grid_svg(game, name: str, t, value, markers: dict, title: str, hits: bool = False) -> str:
    """One picture of a ``map[Pos, V]`` value (as JSON) with ``markers``:
    (x, y) -> list of (text, colour)."""
    codec = game.codec
    vt = t[2]
    colours: dict = {}
    enum_field, nums, members = None, [], ()
    if isinstance(vt, tuple) and vt[0] == "record":
        enum_field, nums = _record_parts(codec, vt[1])
        if enum_field:
            et = dict(codec.records[vt[1]])[enum_field]
            members = codec.enums[et[1]]
    elif isinstance(vt, tuple) and vt[0] == "enum":
        members = codec.enums[vt[1]]
    colours = pictures.member_colours(members)
    cells = {}
    used = set()
    for key, v in value:
        xy = (key["x"], key["y"])
        if isinstance(v, dict):
            member = v.get(enum_field) if enum_field else None
            text = "/".join(str(v[f]) for f in nums) or _label(v)
        else:
            member = v if members else None
            text = str(v)[:1] if members else _label(v)
        fill = colours.get(member, "#d9dfe4")
        if member:
            used.add(member)
        cells[xy] = (text, fill)
    legend = [("box", colours[m], m) for m in members if m in used]
    seen_marks = {}
    for marks in markers.values():
        for text, colour in marks:
            seen_marks[text] = colour
    legend += [("dot", c, text) for text, c in seen_marks.items()]
    return pictures.grid(cells, markers, legend, title, hits=hits)


def _grid_vars(game) -> tuple[list, list]:
    """Names of grid variables and of position-list variables, from the types."""
    grids, marks = [], []
    for i, name in enumerate(game.layout.names):
        t = game.slot_types[i]
        scope = game.visibility[i][0] if i < len(game.visibility) and game.visibility[i] else ""
        if scope == "phase" or not isinstance(t, tuple):
            continue
        if t[0] == "map" and t[1] == T.POS:
            grids.append((name, t))
        elif t[0] == "player" and isinstance(t[1], tuple) and t[1][0] in _COLLS and t[1][1] == T.POS:
            marks.append((name, t))
        elif t[0] in _COLLS and t[1] == T.POS:
            marks.append((name, t))
    return grids, marks


def _markers(obs: dict, marks: list) -> dict:
    out: dict = {}
    for name, t in marks:
        v = obs.get(name)
        if v is None:
            continue
        if t[0] == "player":
            for p, ps in enumerate(v):
                if isinstance(ps, list):
                    colour = pictures.PLAYER_COLOURS[p % len(pictures.PLAYER_COLOURS)]
                    for q in ps:
                        out.setdefault((q["x"], q["y"]), []).append((f"player {p}: {name}", colour))
        else:
            for q in v if isinstance(v, list) else []:
                out.setdefault((q["x"], q["y"]), []).append((name, "#333333"))
    return out


def position_svgs(doc, game, state, player: int, caption: str, hits: bool = False) -> list[tuple]:
    """``state`` as ``player`` sees it, drawn: (key, SVG, the variables
    shown, the graph's name or None for a grid) for every grid variable,
    and for every graph of the data that the state places owners on.
    ``hits``: clickable targets (see ``svg.grid``)."""
    grids, marks = _grid_vars(game)
    obs = state.observation(player)["state"]
    out = []
    for name, t in grids:
        if name not in obs or not isinstance(obs[name], list):
            continue
        svg = grid_svg(game, name, t, obs[name], _markers(obs, marks), f"{name}: {caption}", hits)
        out.append((name, svg, [name], None))
    for g in graphs(doc):
        nodes, links = owner_vars(doc, g)
        if not nodes and not links:
            continue
        svg = graph_svg(g, obs, nodes, links, hits)
        out.append((g["name"].replace(".", "-"), svg, nodes + links, g["name"]))
    return out


def position_pictures(doc, ctx, game, state, player: int, stem: str, caption: str) -> list[str]:
    """reST showing ``state`` as ``player`` sees it: every grid variable,
    and every graph of the data with what the state places on it."""
    if ctx.picture is None:
        return []
    out = []
    for key, svg, shown, graph in position_svgs(doc, game, state, player, caption):
        if graph is None:
            out += ctx.picture(f"{stem}-{key}", svg, f"{code(shown[0])}: {caption}")
        else:
            out += ctx.picture(f"{stem}-{key}", svg, f"{', '.join(code(n) for n in shown)} on the "
                               f"graph {code(graph)}: {caption}")
    return out


def owner_vars(doc, g: dict) -> tuple[list[str], list[str]]:
    """State variables that give the graph's nodes or links an owner: a map
    declared with ``Player`` values whose keys are nodes (``map[K, Player]``)
    or links named by their ends (``map[list[K], Player]``)."""
    nodes, links = [], []
    for v in doc.prog.state.values():
        tref = v.type
        if v.scope == "player" or tref.name != "map" or len(tref.args) != 2 \
                or tref.args[1].name != "Player":
            continue
        kt = doc.resolve(tref.args[0])
        if kt == g["key_type"]:
            nodes.append(v.name)
        elif isinstance(kt, tuple) and kt[0] in _COLLS and kt[1] == g["key_type"]:
            links.append(v.name)
    return nodes, links


def _players(doc) -> int:
    lo, hi = doc.prog.player_range
    return max(lo, min(hi, 2))


def setup_pictures(doc, ctx) -> list[str]:
    """The position after setup, for a fixed seed."""
    n = _players(doc)
    game = doc.game(n)
    if not _grid_vars(game)[0] and not any(any(owner_vars(doc, g)) for g in graphs(doc)):
        return []
    state = game.new_initial_state(seed=ctx.example_seed)
    return position_pictures(doc, ctx, game, state, 0, f"{doc.slug}-setup",
                             f"after setup ({n} players, seed {ctx.example_seed})")


# ---------------------------------------------------------------- an example turn

def _play(game, seed: int, max_steps: int = 3000):
    """A random game, cut into turns: (state before, player, actions)."""
    state = game.new_initial_state(seed=seed)
    rng = random.Random(seed)
    turns = []
    steps = 0
    while not state.is_terminal() and steps < max_steps:
        legal = state.legal_actions()
        if not legal:
            break
        a = legal[rng.randrange(len(legal))]
        if not turns or turns[-1][1] != a.player:
            turns.append((state.clone(), a.player, []))
        turns[-1][2].append((a.kind, str(a)))
        state.apply_action(a)
        steps += 1
    return turns, state


def pick_turn(turns) -> Optional[int]:
    """The turn that shows the most: the most kinds of action, rare kinds
    breaking ties."""
    if not turns:
        return None
    freq: dict = {}
    for _, _, acts in turns:
        for kind, _ in acts:
            freq[kind] = freq.get(kind, 0) + 1
    best, best_score = None, -1.0
    for i, (_, _, acts) in enumerate(turns[: max(1, int(len(turns) * 0.85))]):
        kinds = {k for k, _ in acts}
        score = len(kinds) + 0.5 * sum(1.0 / freq[k] for k in kinds)
        if score > best_score + 1e-9:
            best, best_score = i, score
    return best


def example_turn(doc, ctx) -> list[str]:
    """One turn of a random game (a fixed seed): the position, the moves
    with the rules they follow, and the position after."""
    n = _players(doc)
    game = doc.game(n)
    turns, final = _play(game, ctx.example_seed)
    i = pick_turn(turns)
    if i is None:
        return ["(The game has no move to show.)", ""]
    before, player, acts = turns[i]
    after = turns[i + 1][0] if i + 1 < len(turns) else final
    out = [f"A game between {n} players making random legal moves (seed {ctx.example_seed}); "
           f"this is its turn {i + 1}, played by player {player}, in round {before.round}.", ""]
    out += position_pictures(doc, ctx, game, before, player, f"{doc.slug}-example-before",
                             "before the turn")
    out += _visible_values(game, before, player)
    out += [f"Player {player}'s moves:", ""]
    replay = before.clone()
    for k, (kind, text) in enumerate(acts, start=1):
        move = next((a for a in replay.legal_actions() if str(a) == text), None)
        if move is not None:
            replay.apply_action(move)
            text = move_words(game, move)
        else:      # (not expected: the turn is replayed from its own position)
            text = esc(text)
        decl = doc.prog.actions.get(kind)
        what = ""
        if decl is not None and decl[1].notes.summary:
            what = f": {esc(decl[1].notes.summary)}"
        out.append(f"{k}. {text}{what}")
    out.append("")
    out += position_pictures(doc, ctx, game, after, player, f"{doc.slug}-example-after",
                             "after the turn")
    return out + _turn_viewer(doc, ctx, game, before, after, i + 1)


def _turn_viewer(doc, ctx, game, before, after, turn: int) -> list[str]:
    """The turn as a step-through viewer: the position after each move."""
    if getattr(ctx, "trace", None) is None:
        return []
    from atoll.web import traces, viewer
    src = traces.Source("example", game.num_players, dict(game.options), ctx.example_seed,
                        after.history, chance="auto")
    try:
        tr = traces.build(doc, game, src, first=len(before.history))
    except traces.TraceError:   # pragma: no cover - the game was played by these rules
        return []
    caption = f"{game.title}: turn {turn} of an example game"
    return ["Step through the turn:", ""] + ctx.trace(f"{doc.slug}-example-turn",
                                                      viewer.trace_html(tr, caption))


def value_words(v) -> str:
    """A value (as JSON) in plain words: a record as its fields ("yellow 3"),
    a position as "(1, 0)", a collection as a list ("none" when empty)."""
    if isinstance(v, dict) and v.get("hidden"):
        return "(hidden)"
    if isinstance(v, dict) and set(v) == {"x", "y"}:
        return f"({v['x']}, {v['y']})"
    if isinstance(v, dict):
        return " ".join(value_words(x) for x in v.values())
    if isinstance(v, list):
        return "; ".join(value_words(x) for x in v) if v else "none"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if v is None:   # an absent optional value (`maybe`)
        return "none"
    return str(v).replace("_", " ")


def move_words(game, a) -> str:
    """A move as reST: the action's name and its choices in words."""
    spec = game.action_by_name.get(a.kind)
    if spec is None:
        return esc(str(a))
    head = f"**{esc(a.kind.replace('_', ' '))}**"
    if not spec.params:
        return head
    chosen = "; ".join(f"*{esc(n.replace('_', ' '))}*: {esc(value_words(game.codec.to_json(t, v)))}"
                       for (n, t), v in zip(spec.params, a.params))
    return f"{head} ({chosen})"


def _visible_values(game, state, player: int) -> list[str]:
    """The acting player's own per-player values, as they see them."""
    obs = state.observation(player)["state"]
    grids, marks = _grid_vars(game)
    skip = {n for n, _ in grids} | {n for n, _ in marks}
    rows = []
    for i, name in enumerate(game.layout.names):
        t = game.slot_types[i]
        if name in skip or name not in obs or not (isinstance(t, tuple) and t[0] == "player"):
            continue
        rows.append([f"*{esc(name.replace('_', ' '))}*", esc(value_words(obs[name][player]))])
    if not rows:
        return []
    return [f"What player {player} holds before the turn:", ""] + table(["", "value"], rows, [20, 80])


def _text(v) -> str:
    if isinstance(v, dict) and v.get("hidden"):
        return "(hidden)"
    if isinstance(v, dict) and set(v) == {"x", "y"}:
        return f"({v['x']},{v['y']})"
    if isinstance(v, dict):
        return "(" + ", ".join(_text(x) for x in v.values()) + ")"
    if isinstance(v, list):
        return "[" + ", ".join(_text(x) for x in v) + "]" if v else "(none)"
    return "none" if v is None else str(v)


# ---------------------------------------------------------------- data: graphs and constant grids

def _values(doc) -> list[tuple[str, str, object, object]]:
    """(kind, name, type, JSON value) of every data table and constant."""
    game = doc.game(_players(doc))
    out = []
    for d in doc.prog.data.values():
        t = doc.resolve(d.type)
        out.append(("data", d.name, t, game.codec.to_json(t, doc.comp.data[d.name]), d))
    for k in doc.prog.consts.values():
        t = doc.resolve(k.type)
        if N.value(k.name) in game.ns:
            out.append(("const", k.name, t, game.codec.to_json(t, game.ns[N.value(k.name)]), k))
    return out


def _node_tables(values: list, codec) -> list[tuple]:
    """Tables of records: (name, record name, fields, JSON rows)."""
    out = []
    for kind, name, t, v, _ in values:
        if isinstance(t, tuple) and t[0] in _COLLS and isinstance(t[1], tuple) and t[1][0] == "record":
            out.append((name, t[1][1], codec.records.get(t[1][1], []), v))
    return out


def _keyed_by(tables: list, key_type, nodes: set):
    """A table with a field of ``key_type`` whose values name every node."""
    for name, rec, fields, rows in tables:
        for f, ft in fields:
            if ft == key_type and nodes <= {_hkey(r[f]) for r in rows}:
                return name, rec, fields, rows, f
    return None


def find_graphs(doc) -> list[dict]:
    """Every graph in the spec's data and constants, in three shapes:

    * a map from each node to a collection of its neighbours;
    * a table of records with a collection of neighbours and a key field of
      the same type (or, for numbers, the row's index), every neighbour
      being a row of the table;
    * a table of links: records with two fields (or pairs) naming nodes of
      another table's key field.

    A graph given twice (a table and the map built from it) is kept once."""
    values = _values(doc)
    codec = doc.game(_players(doc)).codec
    tables = _node_tables(values, codec)
    found = []

    def add(name, kind, decl, key_type, shown: dict, edges: list) -> None:
        nodes = list(shown)
        found.append({"name": name, "kind": kind, "decl": decl, "key_type": key_type,
                      "nodes": nodes, "edges": edges, "shown": shown})

    for kind, name, t, v, decl in values:
        if not isinstance(t, tuple):
            continue
        if t[0] == "map" and isinstance(t[2], tuple) and t[2][0] in _COLLS and t[2][1] == t[1]:
            shown = {_hkey(k): k for k, _ in v}
            add(name, kind, decl, t[1], shown, [(_hkey(k), _hkey(x)) for k, vs in v for x in vs])
            continue
        if t[0] not in _COLLS:
            continue
        elem = t[1]
        if isinstance(elem, tuple) and elem[0] == "record" and elem != T.POS:
            fields = codec.records.get(elem[1], [])
            coll = next(((f, ft) for f, ft in fields if isinstance(ft, tuple) and ft[0] in _COLLS), None)
            if coll is not None:
                f, ft = coll
                key = next((g for g, gt in fields if g != f and gt == ft[1]), None)
                if key is not None or ft[1] == T.INT:
                    shown = {(_hkey(r[key]) if key else i): (r[key] if key else i) for i, r in enumerate(v)}
                    edges = [((_hkey(r[key]) if key else i), _hkey(x)) for i, r in enumerate(v) for x in r[f]]
                    if edges and all(b in shown for _, b in edges):   # neighbours are rows of the table
                        add(f"{name}.{f}", kind, decl, ft[1], shown, edges)
                        continue
            ends = [f for f, ft in fields if not (isinstance(ft, tuple) and ft[0] in _COLLS)]
            same = [f for f in ends if sum(1 for g in ends if dict(fields)[g] == dict(fields)[f]) == 2]
            if len(same) == 2:
                a, b = same
                pairs = [(_hkey(r[a]), _hkey(r[b])) for r in v]
                _add_links(add, name, kind, decl, dict(fields)[a], pairs, tables)
        elif isinstance(elem, tuple) and elem[0] in ("list", "set") and all(
                isinstance(x, list) and len(x) == 2 for x in v):
            pairs = [(_hkey(x[0]), _hkey(x[1])) for x in v]
            _add_links(add, name, kind, decl, elem[1], pairs, tables)
    out, seen = [], set()
    for g in found:
        sig = (tuple(sorted(map(str, g["nodes"]))), tuple(sorted(_undirected(g["edges"]).items())))
        if sig in seen:
            continue
        seen.add(sig)
        _node_style(g, tables, codec)
        out.append(g)
    return out


def _add_links(add, name, kind, decl, key_type, pairs, tables) -> None:
    """A table of links makes a graph only over the rows of a node table."""
    ends = {x for p in pairs for x in p}
    hit = _keyed_by([t for t in tables if t[0] != name], key_type, ends)
    if hit is None or not pairs:
        return
    _, _, _, rows, f = hit
    shown = {_hkey(r[f]): r[f] for r in rows}
    add(name, kind, decl, key_type, shown, pairs)


def _undirected(edges: list) -> dict:
    """Links counted once per unordered pair (a link listed from both ends,
    as neighbour lists do, is one link)."""
    directed: dict = {}
    for a, b in edges:
        directed[(str(a), str(b))] = directed.get((str(a), str(b)), 0) + 1
    out = {}
    for (a, b), c in directed.items():
        key = (a, b) if a <= b else (b, a)
        back = directed.get((b, a), 0) if a != b else 0
        out[key] = max(out.get(key, 0), max(c, back))
    return out


def _node_style(g: dict, tables: list, codec) -> None:
    """Colours and labels from a table of records whose key field names the nodes."""
    g["fills"], g["labels"], g["legend"] = {}, {str(n): _label(g["shown"][n]) for n in g["nodes"]}, []
    hit = _keyed_by(tables, g["key_type"], set(g["nodes"]))
    if hit is None:
        return
    name, rec, fields, rows, key = hit
    enum, _ = _record_parts(codec, rec)
    text = next((f for f, ft in fields if ft == T.STR and f != key), None)
    members = codec.enums[dict(fields)[enum][1]] if enum else ()
    colours = pictures.member_colours(members)
    used = []
    for r in rows:
        k = _hkey(r[key])
        if k not in g["shown"]:
            continue
        if enum:
            g["fills"][str(k)] = colours[r[enum]]
            if r[enum] not in used:
                used.append(r[enum])
        if text:
            g["labels"][str(k)] = str(r[text])
    g["legend"] = [("box", colours[m], f"{enum}: {m}") for m in members if m in used]
    g["style_from"] = name


def graphs(doc) -> list[dict]:
    if "graphs" not in doc.memo:
        doc.memo["graphs"] = find_graphs(doc)
    return doc.memo["graphs"]


def graph_svg(g: dict, obs: Optional[dict] = None, node_vars=(), link_vars=(), hits: bool = False) -> str:
    """The graph; with an observation, the owners its variables give to
    nodes (a ring) and links (a thick line) in the players' colours."""
    rings, link_colours, owners = {}, {}, set()
    colour = lambda p: pictures.PLAYER_COLOURS[p % len(pictures.PLAYER_COLOURS)]   # noqa: E731
    for name in node_vars:
        for k, p in (obs or {}).get(name, []):
            rings[str(_hkey(k))] = colour(p)
            owners.add(p)
    for name in link_vars:
        for k, p in (obs or {}).get(name, []):
            if isinstance(k, list) and len(k) == 2:
                link_colours.setdefault((str(_hkey(k[0])), str(_hkey(k[1]))), []).append(colour(p))
                owners.add(p)
    legend = list(g["legend"]) + [("dot", colour(p), f"player {p}") for p in sorted(owners)]
    nodes = [str(n) for n in g["nodes"]]
    known = set(nodes)
    edges = []
    for (a, b), c in sorted(_undirected(g["edges"]).items()):
        if a in known and b in known:
            edges += [(a, b)] * c
    # faces of numbered nodes: sets of numbers iterate the same way in every run
    number = {n: i for i, n in enumerate(nodes)}
    adj: dict = {i: [] for i in range(len(nodes))}
    for a, b in edges:
        adj[number[a]].append(number[b])
        adj[number[b]].append(number[a])
    found = faces(adj)
    outer = [nodes[i] for i in max(found, key=len)] if found else None
    return pictures.graph(nodes, edges, g["labels"], g["fills"], legend, title=g["name"],
                          outer=outer, rings=rings, link_colours=link_colours, hits=hits)


def graph_pictures(doc, ctx) -> list[str]:
    """A picture of every graph in the data."""
    if ctx.picture is None:
        return []
    out = []
    for g in graphs(doc):
        cap = (f"The graph of {g['kind']} {code(g['name'])}: {len(g['nodes'])} nodes"
               + (f", coloured by {code(g['style_from'])}" if g.get("style_from") else "") + ".")
        out += ctx.picture(f"{doc.slug}-graph-{g['name'].replace('.', '-')}", graph_svg(g), cap)
        if g["kind"] != "data" and g["decl"].notes.assumption:   # a data table's is shown with it
            out += [f":atoll-assumption:`Modelling assumption` {esc(g['decl'].notes.assumption)}",
                    ""]
    return out


def constant_grids(doc, ctx, only=None) -> list[str]:
    """A picture of every constant that maps positions to values (worked
    examples); with ``only``, of the constants named there."""
    if ctx.picture is None:
        return []
    out = []
    game = doc.game(_players(doc))
    for kind, name, t, v, decl in _values(doc):
        if only is not None and name not in only:
            continue
        if kind == "const" and isinstance(t, tuple) and t[0] == "map" and t[1] == T.POS:
            svg = grid_svg(game, name, t, v, {}, name)
            out += ctx.picture(f"{doc.slug}-const-{name}", svg,
                               f"Constant {code(name)}" + (f": {esc(decl.notes.summary)}"
                                                         if decl.notes.summary else ""))
    return out
