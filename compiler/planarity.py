"""Planarity of a small graph: can it be drawn without crossing edges?

The Demoucron-Malgrange-Pertuiset algorithm, on each biconnected block (a
graph is planar exactly when its blocks are): embed a cycle, then again and
again take a fragment of the rest that fits in the fewest faces, and draw a
path of it across one of them, splitting the face in two. A fragment that
fits in no face proves the graph is not planar. Quadratic and plain, for
boards of tens of nodes.
"""
from __future__ import annotations


def _edges(adj) -> set:
    out = set()
    for a, bs in adj.items():
        for b in bs:
            if a != b:
                out.add(frozenset((a, b)))
    return out


def _blocks(nodes, edges) -> list:
    """The biconnected blocks, as edge sets (iterative Tarjan)."""
    nbr = {n: [] for n in nodes}
    for e in edges:
        a, b = tuple(e)
        nbr[a].append(b)
        nbr[b].append(a)
    index, low, blocks, stack, counter = {}, {}, [], [], [0]
    for root in sorted(nodes, key=repr):
        if root in index:
            continue
        index[root] = low[root] = counter[0]
        counter[0] += 1
        work = [(root, None, iter(nbr[root]))]
        while work:
            v, parent, it = work[-1]
            advanced = False
            for w in it:
                if w == parent:
                    continue
                if w not in index:
                    stack.append(frozenset((v, w)))
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    work.append((w, v, iter(nbr[w])))
                    advanced = True
                    break
                if index[w] < index[v]:
                    stack.append(frozenset((v, w)))
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if parent is not None:
                low[parent] = min(low[parent], low[v])
                if low[v] >= index[parent]:
                    block = set()
                    while stack:
                        e = stack.pop()
                        block.add(e)
                        if e == frozenset((parent, v)):
                            break
                    blocks.append(block)
    return blocks


def _find_cycle(edges) -> list:
    nbr = {}
    for e in edges:
        a, b = tuple(e)
        nbr.setdefault(a, []).append(b)
        nbr.setdefault(b, []).append(a)
    start = min(nbr, key=repr)
    parent, order, stack = {start: None}, [], [start]
    while stack:   # depth first until an edge closes a cycle
        v = stack.pop()
        order.append(v)
        for w in nbr[v]:
            if w == parent[v]:
                continue
            if w in parent:
                path_v, x = [], v
                while x is not None:
                    path_v.append(x)
                    x = parent[x]
                path_w, x = [], w
                while x is not None:
                    path_w.append(x)
                    x = parent[x]
                common = next(x for x in path_v if x in set(path_w))
                return path_v[:path_v.index(common) + 1] + path_w[:path_w.index(common)][::-1]
            parent[w] = v
            stack.append(w)
    return []


def _fragments(edges, emb_nodes, emb_edges):
    """Parts of the graph outside the embedding: (attachment nodes, edges)."""
    rest = [e for e in edges if e not in emb_edges]
    out = []
    nbr = {}
    for e in rest:
        a, b = tuple(e)
        if a in emb_nodes and b in emb_nodes:
            out.append((set(e), {e}))
        else:
            nbr.setdefault(a, []).append((b, e))
            nbr.setdefault(b, []).append((a, e))
    seen = set()
    for v in list(nbr):
        if v in emb_nodes or v in seen:
            continue
        comp_edges, attach, todo = set(), set(), [v]
        seen.add(v)
        while todo:
            x = todo.pop()
            for y, e in nbr.get(x, ()):
                comp_edges.add(e)
                if y in emb_nodes:
                    attach.add(y)
                elif y not in seen:
                    seen.add(y)
                    todo.append(y)
        out.append((attach, comp_edges))
    return out


def _path_through(frag_edges, attach, emb_nodes):
    """A path of the fragment between two distinct attachment nodes."""
    nbr = {}
    for e in frag_edges:
        a, b = tuple(e)
        nbr.setdefault(a, []).append(b)
        nbr.setdefault(b, []).append(a)
    start = next(iter(sorted(attach, key=repr)))
    prev, todo = {start: None}, [start]
    while todo:
        x = todo.pop(0)
        for y in nbr.get(x, ()):
            if y in prev:
                continue
            prev[y] = x
            if y in attach and y != start:
                path = [y]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return path[::-1]
            if y not in emb_nodes:
                todo.append(y)
    return None


def _planar_block(edges) -> bool:
    nodes = {n for e in edges for n in e}
    if len(nodes) <= 4:
        return True
    if len(edges) > 3 * len(nodes) - 6:
        return False   # more edges than any planar graph on these nodes has
    return _embed(edges) is not None


def _embed(edges):
    """The faces of a plane embedding of a biconnected block (each a cycle of
    nodes), or None when it has none."""
    cycle = _find_cycle(edges)
    emb_nodes = set(cycle)
    emb_edges = {frozenset((cycle[i], cycle[(i + 1) % len(cycle)])) for i in range(len(cycle))}
    faces = [list(cycle), list(cycle)]
    while len(emb_edges) < len(edges):
        frags = _fragments(edges, emb_nodes, emb_edges)
        choice = None
        for attach, fedges in frags:
            fits = [i for i, f in enumerate(faces) if attach <= set(f)]
            if not fits:
                return None
            if choice is None or len(fits) < len(choice[2]):
                choice = (attach, fedges, fits)
        attach, fedges, fits = choice
        path = _path_through(fedges, attach, emb_nodes)
        face = faces.pop(fits[0])
        a, b = path[0], path[-1]
        i, j = face.index(a), face.index(b)
        if i > j:
            i, j = j, i
            path = path[::-1]
        # split the face along the path from face[i] to face[j]
        inner = path[1:-1]
        f1 = face[i:j + 1] + inner[::-1]
        f2 = face[j:] + face[:i + 1] + inner
        faces += [f1, f2]
        emb_nodes |= set(path)
        emb_edges |= {frozenset((path[k], path[k + 1])) for k in range(len(path) - 1)}
    return faces


def planar(adj) -> bool:
    """Can the graph (a map from each node to its neighbours) be drawn in the
    plane without two edges crossing?"""
    edges = _edges(adj)
    nodes = set(adj) | {n for e in edges for n in e}
    return all(_planar_block(b) for b in _blocks(nodes, edges) if len(b) > 1)


def faces(adj):
    """The faces of a plane drawing of a graph (a map from each node to its
    neighbours), each a cycle of nodes, when the graph is planar and
    biconnected (one block holds every link); None otherwise. Used to draw
    a board without crossings."""
    edges = _edges(adj)
    nodes = set(adj) | {n for e in edges for n in e}
    blocks = [b for b in _blocks(nodes, edges) if len(b) > 1]
    if len(blocks) != 1 or len(nodes) < 3 or len(edges) > 3 * len(nodes) - 6:
        return None
    return _embed(blocks[0])
