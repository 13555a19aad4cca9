"""The terminal view of a game, for `atoll play`, generated from the spec's
declarations (nothing here knows a game).

- One notation per value, used everywhere (board, hands, moves, news): a
  record is its fields in order (a Card(yellow, 3) is ``yellow 3``), a
  position ``(x,y)``, an enum member its name, a player ``player N``.
- A map keyed by positions is drawn as a grid; the per-player lists or sets
  of positions (pieces) are drawn on it as the players' digits.
- A map whose values are players (who owns what) is an ownership table.
- Per-player variables form one line per player; what the viewer may not
  see shows only its size.
- Bookkeeping is folded: phase variables are left out, and the global
  flags that are set share one line (``atoll play`` prints them all with
  its command ``state``).
"""
from __future__ import annotations

from collections import Counter
from typing import Optional

from atoll.compiler.values import sort_values

POS = ("record", "Pos")


# ------------------------------------------------------------------ types

def view_types(game) -> dict:
    """Per state slot name: its resolved type with ``"Player"`` where the
    spec declared a player (the resolved types say only ``int``)."""
    declared = game.info.get("declared", {})
    out = {}
    for name, t in zip(game.layout.names, game.slot_types):
        tr = declared.get(name)
        if isinstance(t, tuple) and t[0] == "player":
            out[name] = ("player", _mark(tr, t[1]))
        else:
            out[name] = _mark(tr, t)
    return out


def _mark(tr, t):
    if tr is None:
        return t
    if tr.name == "Player" and t == "int":
        return "Player"
    if isinstance(t, tuple) and t[0] in ("list", "bag", "set", "map", "tuple", "maybe") \
            and len(tr.args) == len(t) - 1:
        return (t[0],) + tuple(_mark(a, x) for a, x in zip(tr.args, t[1:]))
    return t


def _base(t):
    """The codec's type for a view type."""
    if t == "Player":
        return "int"
    if isinstance(t, tuple) and t[0] in ("list", "bag", "set", "map", "tuple", "player", "maybe"):
        return (t[0],) + tuple(_base(x) for x in t[1:])
    return t


# ------------------------------------------------------------------ labels

def label(codec, t, v, top: bool = True) -> str:
    """A value in the game's one notation."""
    if t == "Player":
        return f"player {v}"
    if t == "bool":
        return "yes" if v else "no"
    if t in ("int", "str", "?"):
        return str(v)
    kind = t[0]
    if kind == "maybe":
        return "none" if v is None else label(codec, t[1], v, top)
    if kind == "enum":
        return codec.enums[t[1]][v]
    if kind == "record":
        if t[1] == "Pos":
            return f"({v[0]},{v[1]})"
        text = " ".join(label(codec, ft, x, False) for (_, ft), x in zip(codec.records[t[1]], v))
        return text if top else f"({text})"
    if kind == "tuple":
        return "(" + ", ".join(label(codec, it, x, False) for it, x in zip(t[1:], v)) + ")"
    if kind == "set":
        return "{" + ", ".join(label(codec, t[1], x) for x in sort_values(v)) + "}"
    if kind in ("list", "bag", "player"):
        return "[" + ", ".join(label(codec, t[1], x) for x in v) + "]"
    if kind == "map":
        return "{" + ", ".join(f"{label(codec, t[1], k)}: {label(codec, t[2], v[k])}"
                               for k in sort_values(v)) + "}"
    return str(v)   # pragma: no cover - every type is above


def items_text(codec, t, v) -> str:
    """A collection's items without brackets (``-`` when empty)."""
    if isinstance(t, tuple) and t[0] in ("list", "bag", "set"):
        items = sort_values(v) if t[0] == "set" else v
        return ", ".join(label(codec, t[1], x) for x in items) or "-"
    return label(codec, t, v)


# ------------------------------------------------------------------ the view

def _folded(name: str, t) -> bool:
    """Bookkeeping: phase variables and global flags."""
    return "." in name or t == "bool"


def snapshot(game, st, viewer: int) -> dict:
    """What ``viewer`` sees, as comparable entries: name -> (kind, type, value)
    where kind is 'value', 'hidden' (value: its size or None) or 'player'
    (value: a list of such entries, one per player)."""
    types = view_types(game)
    out = {}
    for i, name in enumerate(game.layout.names):
        if i == 0 or st.S[i] is None:
            continue
        scope, vis = game.visibility[i]
        t, v = types[name], st.S[i]
        if scope == "player":
            et = t[1]
            out[name] = ("player", et, [
                ("value", et, x) if vis == "all" or (vis == "owner" and p == viewer)
                else ("hidden", et, _size(et, x)) for p, x in enumerate(v)])
        elif vis == "all":
            out[name] = ("value", t, v)
        else:
            out[name] = ("hidden", t, _size(t, v))
    return out


def _size(t, v) -> Optional[int]:
    return len(v) if isinstance(t, tuple) and t[0] in ("list", "bag", "set", "map") else None


def _hidden_text(size) -> str:
    return "hidden" if size is None else f"{size} hidden"


def headline(game, st, viewer: int) -> str:
    if st.is_terminal():
        return f"{game.title}: game over after round {st.round}"
    cp = st.current_player()
    who = {-1: "chance to resolve", -2: "players choosing at once"}.get(
        cp, "your turn" if cp == viewer else f"player {cp} to play")
    return f"{game.title}: round {st.round}, phase {st.phase()}, {who} (you are player {viewer})"


def view_parts(game, st, viewer: int, everything: bool = False) -> dict:
    """What the view of ``viewer`` shows, sorted into its parts: ``grids``
    (name -> (type, value): maps keyed by positions), ``pieces`` (position
    -> the digits of the players whose pieces stand there), ``rest`` (name,
    kind, type, value: the other shared values), ``players`` (name, type,
    entries: the per-player values) and ``folded`` (name, type, value, kind:
    the global flags folded into one line, unless ``everything``)."""
    snap = snapshot(game, st, viewer)
    grids, pieces, players, folded, rest = {}, {}, [], [], []
    for name, (kind, t, v) in snap.items():
        if kind == "player":
            if isinstance(t, tuple) and t[0] in ("list", "set") and t[1] == POS:
                for p, (k, _, x) in enumerate(v):
                    if k == "value":
                        for q in x:
                            pieces.setdefault(q, []).append(str(p))
            players.append((name, t, v))
        elif kind == "value" and isinstance(t, tuple) and t[0] == "map" and t[1] == POS:
            grids[name] = (t, v)
        elif _folded(name, t) and not everything:
            if "." not in name:
                folded.append((name, t, v, kind))
        else:
            rest.append((name, kind, t, v))
    return {"grids": grids, "pieces": pieces, "rest": rest, "players": players, "folded": folded}


def owners_text(game, t, v) -> list[tuple[int, list[str]]]:
    """A map whose values are players, as (player, the keys they own) for every player."""
    owners: dict = {}
    for k in sort_values(v):
        p = v[k]
        owners.setdefault(p, []).append(label(game.codec, t[1], k))
    return [(p, owners.get(p, [])) for p in range(game.num_players)]


def value_text(game, kind: str, t, v) -> str:
    """One shared value of the view, on one line (a hidden one as its size)."""
    if kind == "hidden":
        return _hidden_text(v)
    return items_text(game.codec, t, v)


def flags_set(parts: dict) -> list[str]:
    return [n for n, t, v, k in parts["folded"] if k == "value" and v]


def view_text(game, st, viewer: int, everything: bool = False) -> str:
    """The picture of the game for ``viewer``; ``everything``: bookkeeping too."""
    codec = game.codec
    parts = view_parts(game, st, viewer, everything)
    grids, pieces, players = parts["grids"], parts["pieces"], parts["players"]
    out = [headline(game, st, viewer)]
    for name, (t, v) in grids.items():
        out.append(f"{name}" + (" (digits under a cell: whose pieces stand there)" if pieces else "") + ":")
        out.append(grid_text({k: label(codec, t[2], x) for k, x in v.items()}, pieces))
    for name, kind, t, v in parts["rest"]:
        if kind == "hidden":
            out.append(f"{name}: {_hidden_text(v)}")
        elif isinstance(t, tuple) and t[0] == "map" and t[2] == "Player":
            out.append(f"{name} (by owner):")
            for p, keys in owners_text(game, t, v):
                out.append(f"  player {p}{' (you)' if p == viewer else ''}: {len(keys)}"
                           + (": " + ", ".join(keys) if keys else ""))
        elif isinstance(t, tuple) and t[0] == "map":
            out.append(f"{name}:" + ("" if v else " -"))
            for k in sort_values(v):
                out.append(f"  {label(codec, t[1], k)}: {label(codec, t[2], v[k])}")
        else:
            out.append(f"{name}: {items_text(codec, t, v)}")
    if players:
        for p in range(game.num_players):
            cells = []
            for name, t, v in players:
                k, _, x = v[p]
                cells.append(f"{name} {_hidden_text(x) if k == 'hidden' else items_text(codec, t, x)}")
            out.append(f"player {p}{' (you)' if p == viewer else ''}: " + "; ".join(cells))
    if parts["folded"]:
        flags = flags_set(parts)
        out.append(("flags set: " + ", ".join(flags) if flags else "no flag set")
                   + " (type `state` for everything)")
    return "\n".join(out)


def grid_text(cells: dict, pieces: dict) -> str:
    """``cells``: (x, y) -> label; ``pieces``: (x, y) -> list of marks.
    Two lines per row: the cells, then the pieces on them."""
    keys = list(cells) + list(pieces)
    if not keys:
        return "  (empty)"
    xs = [k[0] for k in keys]
    ys = [k[1] for k in keys]
    width = max([len(c) for c in cells.values()] + [len("".join(m)) for m in pieces.values()]
                + [len(str(x)) for x in xs] + [1]) + 2
    lines = ["     " + "".join(f"{x:^{width}}" for x in range(min(xs), max(xs) + 1))]
    for y in range(min(ys), max(ys) + 1):
        row = f"{y:>4} " + "".join(f"{cells.get((x, y), '.'):^{width}}"
                                   for x in range(min(xs), max(xs) + 1))
        lines.append(row.rstrip())
        marks = "     " + "".join(f"{''.join(pieces.get((x, y), [])):^{width}}"
                                  for x in range(min(xs), max(xs) + 1))
        if marks.strip():
            lines.append(marks.rstrip())
    return "\n".join(lines)


# ------------------------------------------------------------------ moves and news

def move_label(game, action) -> str:
    """A move in the game's notation: ``place(c=yellow 3, at=(1,0))``."""
    spec = game.action_by_name[action.kind]
    if " " in action.kind:   # a choice inside an effect (kind `choose x`): `choose x = red`
        return f"{action.kind} = {label(game.codec, spec.params[0][1], action.params[0])}"
    return action.kind + "(" + ", ".join(
        f"{n}={label(game.codec, t, v)}" for (n, t), v in zip(spec.params, action.params)) + ")"


def action_text(game, st, action) -> str:
    """A move in the game's notation; positions on a board are shown with
    what lies there, and a set of them with the total of the cells' numbers."""
    if action.kind == "chance":
        return st.chance_kind() + " " + label(game.codec, _chance_type(st), action.params[0]) \
            if st is not None and st.pending is not None else "a chance outcome"
    spec = game.action_by_name[action.kind]
    boards = _boards(game, st)
    parts = []
    for (n, t), v in zip(spec.params, action.params):
        text = label(game.codec, t, v)
        if t == POS:
            text += _on_board(game, boards, [v])
        elif isinstance(t, tuple) and t[0] in ("list", "set", "bag") and t[1] == POS:
            text += _on_board(game, boards, sort_values(v) if t[0] == "set" else list(v))
        parts.append(f"{n}={text}")
    if " " in action.kind:   # a choice inside an effect (kind `choose x`): `choose x = red`
        return f"{action.kind} = {parts[0].partition('=')[2]}"
    return f"{action.kind}({', '.join(parts)})"


def _chance_type(st):
    return st.pending[3]


def _boards(game, st) -> list:
    if st is None:
        return []
    types = view_types(game)
    return [(types[n], st.S[i]) for i, n in enumerate(game.layout.names)
            if i and game.visibility[i] == ("global", "all") and isinstance(types[n], tuple)
            and types[n][0] == "map" and types[n][1] == POS and st.S[i] is not None]


def _on_board(game, boards, ps) -> str:
    for t, m in boards:
        found = [m[p] for p in ps if p in m]
        if not found:
            continue
        text = ", ".join(label(game.codec, t[2], x) for x in found)
        vt = t[2]
        if len(found) > 1 and isinstance(vt, tuple) and vt[0] == "record":
            fields = game.codec.records[vt[1]]
            sums = [f"{f} total {sum(x[i] for x in found)}" for i, (f, ft) in enumerate(fields)
                    if ft == "int"]
            text += ("; " + ", ".join(sums)) if sums else ""
        return f" [{text}]"
    return ""


def changes(game, before: dict, after: dict) -> list[str]:
    """What changed between two snapshots of one viewer, bookkeeping left out."""
    codec = game.codec
    out = []
    for name, (kind, t, v) in after.items():
        old = before.get(name)
        if old is None or old == (kind, t, v):
            continue
        if kind == "player":
            for p, (e_new, e_old) in enumerate(zip(v, old[2])):
                if e_new != e_old:
                    out.extend(_change(codec, f"{name} of player {p}", e_old, e_new))
        elif "." in name or (_folded(name, t) and kind == "value"):
            continue
        else:
            out.extend(_change(codec, name, old, (kind, t, v)))
    return out


def _change(codec, what: str, old, new) -> list[str]:
    (ko, t, vo), (kn, _, vn) = old, new
    if ko != "value" or kn != "value":
        if ko == kn == "hidden" and vo is not None:
            return [f"{what}: {vo} -> {vn} hidden"]
        return []
    if isinstance(t, tuple) and t[0] in ("list", "bag", "set"):
        a, b = Counter(vo), Counter(vn)
        gone, came = list((a - b).elements()), list((b - a).elements())
        text = []
        if came:
            text.append("+ " + ", ".join(label(codec, t[1], x) for x in came))
        if gone:
            text.append("- " + ", ".join(label(codec, t[1], x) for x in gone))
        return [f"{what}: {'; '.join(text)}"] if text else [f"{what}: reordered"]
    if isinstance(t, tuple) and t[0] == "map":
        text = []
        for k in sort_values(set(vo) | set(vn)):
            if k not in vo:
                text.append(f"+ {label(codec, t[1], k)}: {label(codec, t[2], vn[k])}")
            elif k not in vn:
                text.append(f"- {label(codec, t[1], k)}")
            elif vo[k] != vn[k]:
                text.append(f"{label(codec, t[1], k)}: {label(codec, t[2], vo[k])} -> "
                            f"{label(codec, t[2], vn[k])}")
        return [f"{what}: {'; '.join(text)}"]
    return [f"{what}: {label(codec, t, vo)} -> {label(codec, t, vn)}"]
