"""Standard-library operations for games of tiles and territories: turning a
tile's edge data, 2x2 blocks, columns and rows of positions, the empty
spaces around a group, and the leaders of a count. Python meanings only;
compiler/stdlib.py gives each its typing rule and its line of docs, and
verify/z3tiles.py its z3 meaning. Nothing here knows any game.
"""
from __future__ import annotations


def rotate(xs, k):
    """The list turned ``k`` places: the item at i moves to (i + k) mod n, so
    the last ``k`` items come first (a negative ``k`` turns the other way)."""
    n = len(xs)
    if n == 0:
        return ()
    k %= n
    return tuple(xs[n - k:]) + tuple(xs[:n - k])


def _cells(ps):
    return ps if isinstance(ps, (set, frozenset, dict)) else set(ps)


def squares(ps):
    """The 2x2 blocks of positions all in ``ps``, each named by its corner
    with the least x and y (blocks may overlap)."""
    s = _cells(ps)
    return frozenset(p for p in s if (p[0] + 1, p[1]) in s and (p[0], p[1] + 1) in s
                     and (p[0] + 1, p[1] + 1) in s)


def _runs(ps, along: int):
    """The maximal runs of positions of ``ps`` that share the other
    coordinate and follow each other along coordinate ``along`` (0: x, 1: y),
    each in increasing order; ordered by the shared coordinate, then start."""
    across = 1 - along
    lines: dict = {}
    for p in _cells(ps):
        lines.setdefault(p[across], []).append(p)
    out = []
    for key in sorted(lines):
        line = sorted(lines[key], key=lambda p: p[along])
        run = [line[0]]
        for p in line[1:]:
            if p[along] == run[-1][along] + 1:
                run.append(p)
            else:
                out.append(tuple(run))
                run = [p]
        out.append(tuple(run))
    return tuple(out)


def columns(ps):
    """The maximal vertical runs of positions (one x, consecutive y)."""
    return _runs(ps, 1)


def rows(ps):
    """The maximal horizontal runs of positions (one y, consecutive x)."""
    return _runs(ps, 0)


def frontier(ps):
    """The positions not in ``ps`` that share an edge with one in it."""
    s = _cells(ps)
    return frozenset(q for (x, y) in s for q in ((x, y - 1), (x + 1, y), (x, y + 1), (x - 1, y))
                     if q not in s)


def leaders(m):
    """The keys of a map (the indices of a list) whose value is the
    greatest; every tied key is a leader; nothing when it is empty."""
    pairs = list(m.items()) if isinstance(m, dict) else list(enumerate(m))
    if not pairs:
        return frozenset()
    best = max(v for _, v in pairs)
    return frozenset(k for k, v in pairs if v == best)


__all__ = ["rotate", "squares", "columns", "rows", "frontier", "leaders"]
