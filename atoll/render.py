"""Text pictures of an observation, for `atoll play`.

Generic: any map from positions to values is drawn as a grid; per-player
lists of positions (pieces) are drawn as markers on it; everything else is
listed. Nothing here knows a game.
"""
from __future__ import annotations


def _is_pos(v) -> bool:
    return isinstance(v, dict) and set(v) == {"x", "y"}


def _short(v) -> str:
    """A compact label for a value: a record shows the initial of its text
    fields and its numbers (e.g. a red 3 becomes r3)."""
    if isinstance(v, dict):
        if v.get("hidden"):
            return "?"
        parts = []
        for x in v.values():
            if isinstance(x, bool):
                parts.append("T" if x else "F")
            elif isinstance(x, int):
                parts.append(str(x))
            elif isinstance(x, str):
                parts.append(x[:1])
        return "".join(parts)
    return str(v)


def _text(v) -> str:
    if isinstance(v, dict):
        if v.get("hidden"):
            return f"(hidden{', ' + str(v['size']) + ' items' if 'size' in v else ''})"
        if _is_pos(v):
            return f"({v['x']},{v['y']})"
        return "{" + ", ".join(f"{k}: {_text(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(_text(x) for x in v) + "]"
    return str(v)


def grid_text(cells: dict, markers: dict) -> str:
    """``cells``: (x, y) -> label; ``markers``: (x, y) -> list of marks."""
    keys = list(cells) + list(markers)
    if not keys:
        return "(empty)"
    xs = [k[0] for k in keys]
    ys = [k[1] for k in keys]
    width = max([len(c) for c in cells.values()] + [1]) + max(
        [len("".join(m)) + 2 for m in markers.values()] + [0]) + 1
    width = max(width, 3)
    head = "     " + "".join(f"{x:^{width}}" for x in range(min(xs), max(xs) + 1))
    lines = [head]
    for y in range(min(ys), max(ys) + 1):
        row = f"{y:>4} "
        for x in range(min(xs), max(xs) + 1):
            label = cells.get((x, y), ".")
            mark = "".join(markers.get((x, y), []))
            row += f"{label + ('[' + mark + ']' if mark else ''):^{width}}"
        lines.append(row)
    return "\n".join(lines)


def observation_text(game, obs: dict) -> str:
    cp = obs["current_player"]
    who = {-1: "chance to resolve", -2: "players choosing at once"}.get(cp, f"player {cp} to play")
    out = [f"{game.title}: round {obs['round']}, phase {obs['phase'] or '-'}, "
           f"{who} (you are player {obs['player']})"]
    values = obs["state"]
    types = dict(zip(game.layout.names, game.slot_types))
    pos = ("record", "Pos")
    grids, markers, rest = {}, {}, {}
    for name, v in values.items():
        t = types.get(name)
        if isinstance(t, tuple) and t[0] == "map" and t[1] == pos:
            grids[name] = {(p[0]["x"], p[0]["y"]): _short(p[1]) for p in v}
        elif isinstance(t, tuple) and t[0] == "player" and isinstance(t[1], tuple) \
                and t[1][0] in ("list", "set") and t[1][1] == pos:
            for player, ps in enumerate(v):
                for q in ps:
                    markers.setdefault((q["x"], q["y"]), []).append(str(player))
            rest[name] = v
        else:
            rest[name] = v
    for name, cells in grids.items():
        out.append(f"{name} (digits after a cell: the players whose pieces stand there):")
        out.append(grid_text(cells, markers))
    for name, v in rest.items():
        if isinstance(v, list) and len(v) == game.num_players and name not in grids \
                and not all(isinstance(x, (int, bool)) for x in v):
            out.append(f"{name}:")
            for p, x in enumerate(v):
                out.append(f"  player {p}: {_text(x)}")
        else:
            out.append(f"{name}: {_text(v)}")
    return "\n".join(out)
