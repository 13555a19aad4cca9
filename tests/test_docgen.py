"""The documentation generators without Sphinx: the lexer, discovery of
games, the pictures, the verification cache, the generated references."""
import json
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from atoll.docgen import figures, rulebook, site, svg
from helpers import MASTERISLANDS, ROOT, SPEC

FERRY = ROOT / "tests" / "docs" / "ferry.atoll"
SVG = "{http://www.w3.org/2000/svg}"


# ---------------------------------------------------------------- the lexer

def _tokens(text):
    pygments = pytest.importorskip("pygments", reason="Pygments comes with the docs extra")
    from atoll.pygments_lexer import AtollLexer
    return list(AtollLexer().get_tokens(text)), pygments


def test_every_keyword_of_the_grammar_is_a_keyword_token():
    from atoll.grammar.parse import keywords
    words = keywords()
    grammar = (ROOT / "grammar" / "atoll.lark").read_text()
    assert set(words) == set(re.findall(r'"([a-z][a-z_]+)"', grammar))
    toks, pygments = _tokens(" ".join(words))
    kinds = {text: str(kind) for kind, text in toks if text.strip()}
    for w in words:
        assert kinds[w].startswith("Token.Keyword"), (w, kinds[w])


def test_every_spec_lexes_without_errors():
    from pygments.token import Error
    files = list(SPEC.rglob("*.atoll")) + list((ROOT / "tests" / "good").glob("*.atoll")) + [FERRY]
    for f in files:
        toks, _ = _tokens(f.read_text())
        bad = [t for k, t in toks if k is Error]
        assert not bad, f"{f.name}: {bad[:5]}"
        assert "".join(t for _, t in toks).rstrip("\n") == f.read_text().rstrip("\n")


def test_the_lexer_is_registered_as_a_pygments_plugin():
    pytest.importorskip("pygments", reason="Pygments comes with the docs extra")
    from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
    assert type(get_lexer_by_name("atoll")).__name__ == "AtollLexer"
    assert type(get_lexer_for_filename("game.atoll")).__name__ == "AtollLexer"


# ---------------------------------------------------------------- discovery

def test_discovery_finds_games_and_their_variants(tmp_path):
    (tmp_path / "v").mkdir()
    (tmp_path / "g.atoll").write_text((ROOT / "tests" / "good" / "nim.atoll").read_text())
    (tmp_path / "v" / "g_big.atoll").write_text('extends "../g.atoll"\n')
    (tmp_path / "v" / "g_bigger.atoll").write_text('extends "g_big.atoll"\n')
    (tmp_path / "part.atoll").write_text("const x: int = 1\n")   # not a game: no page
    entries = site.discover(["."], tmp_path)
    assert [e.slug for e in entries] == ["g"]
    assert [v.name for v in entries[0].variants] == ["g_big.atoll", "g_bigger.atoll"]
    shipped = site.discover(["spec"], ROOT)
    assert "masterislands" in [e.slug for e in shipped]
    mi = next(e for e in shipped if e.slug == "masterislands")
    assert sorted(v.name for v in mi.variants) == sorted(
        p.name for p in (SPEC / "variants").glob("masterislands*.atoll"))


def test_pages_are_written_for_every_game_and_code_and_stale_ones_removed(tmp_path):
    from atoll.diagnostics import CODES
    entries = site.discover(["spec"], ROOT)
    files = site.pages(entries, tmp_path, "games", True)
    files.update(site.diagnostic_pages("diagnostics"))
    (tmp_path / "games" / "old").mkdir(parents=True)
    stale = tmp_path / "games" / "old" / "index.rst"
    stale.write_text(site.MARK + "\n")
    mine = tmp_path / "games" / "notes.rst"
    mine.write_text("hand-written\n")
    site.write_files(tmp_path, files, ["games", "diagnostics"])
    for e in entries:
        for page in ("index", "players", "designer"):
            assert (tmp_path / "games" / e.slug / f"{page}.rst").is_file()
        for v in e.variants:
            assert (tmp_path / "games" / e.slug / "variants" / f"{v.stem}.rst").is_file()
    assert sorted(p.stem for p in (tmp_path / "diagnostics").glob("A*.rst")) == sorted(CODES)
    assert not stale.exists() and mine.exists()


# ---------------------------------------------------------------- pictures

def _svg(text):
    return ET.fromstring(text)


def test_the_grid_picture_has_one_cell_per_card_on_the_board():
    import atoll
    game = atoll.load(MASTERISLANDS, players=3)
    state = game.new_initial_state(seed=11)
    rng = __import__("random").Random(11)
    for _ in range(40):
        state.apply_action(rng.choice(state.legal_actions()))
    obs = state.observation(0)["state"]
    grids, marks = figures._grid_vars(game)
    assert [n for n, _ in grids] == ["board"]
    t = dict(grids)["board"]
    root = _svg(figures.grid_svg(game, "board", t, obs["board"], figures._markers(obs, marks), "b"))
    cells = [r for r in root.iter(f"{SVG}rect") if r.get("rx") == "6"]
    dots = list(root.iter(f"{SVG}circle"))
    assert len(cells) == len(obs["board"])
    galleons = sum(len(f) for f in obs["fleet"])
    legend_dots = len({p for p, f in enumerate(obs["fleet"]) if f})
    assert len(dots) == galleons + legend_dots


def _edges(path):
    data = json.loads(path.read_text())["islands"]
    return {frozenset((i["name"], j)) for i in data for j in i["links"]}


def test_a_graph_in_the_data_is_found_once_and_drawn():
    doc = rulebook.load(FERRY)
    graphs = figures.find_graphs(doc)
    # the table of islands and the map built from it are one graph
    assert len(graphs) == 1
    g = graphs[0]
    edges = _edges(FERRY.parent / "data" / "ferry_islands.json")
    assert len(g["nodes"]) == 6 and g["style_from"] == "islands"
    root = _svg(figures.graph_svg(g))
    nodes = [c for c in root.iter(f"{SVG}circle")]
    assert len(nodes) == 6
    assert len(list(root.iter(f"{SVG}path"))) == len(edges)
    assert {c.get("fill") for c in nodes} == set(svg.member_colours(["harbour", "reef", "lagoon"]).values())


def test_a_position_on_a_graph_marks_what_the_players_own():
    import random
    doc = rulebook.load(FERRY)
    g, = figures.graphs(doc)
    assert figures.owner_vars(doc, g) == (["flags"], [])
    state = doc.game(2).new_initial_state(seed=1)
    rng = random.Random(1)
    for _ in range(3):
        state.apply_action(rng.choice(state.legal_actions()))
    obs = state.observation(0)["state"]
    root = _svg(figures.graph_svg(g, obs, ["flags"], []))
    rings = [c for c in root.iter(f"{SVG}circle") if c.get("fill") == "none"]
    assert 1 <= len(rings) == len(obs["flags"])
    owners = {p for _, p in obs["flags"]}
    assert {r.get("stroke") for r in rings} == {svg.PLAYER_COLOURS[p] for p in owners}


def test_drawings_are_the_same_in_every_run(tmp_path):
    import subprocess
    import sys
    code = ("from atoll.docgen import rulebook, figures; import hashlib; "
            f"g = figures.graphs(rulebook.load({str(FERRY)!r}))[0]; "
            "print(hashlib.sha256(figures.graph_svg(g).encode()).hexdigest())")
    digests = {subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
                              env={**__import__("os").environ, "PYTHONHASHSEED": str(seed)}).stdout
               for seed in (1, 2, 3)}
    assert len(digests) == 1 and len(next(iter(digests)).strip()) == 64


def test_a_table_of_links_is_a_graph_over_the_nodes_it_names(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "b.json").write_text(json.dumps({
        "places": [{"name": n, "kind": k} for n, k in
                   [("a", "big"), ("b", "small"), ("c", "big"), ("d", "small")]],
        "links": [["a", "b"], ["b", "c"], ["c", "d"], ["d", "a"], ["a", "c"], ["a", "c"]]}))
    (tmp_path / "g.atoll").write_text(
        'game g { title: "G" players: 2..2 }\nenum Kind { big, small }\n'
        'record Place { name: str, kind: Kind }\n'
        'data places: list[Place] from "data/b.json" key "places"\n'
        'data links: list[list[str]] from "data/b.json" key "links"\n'
        'record Ex { own: int, others: list[int] }\n'
        'const exs: list[Ex] = [Ex(2, [1, 1]), Ex(3, [5])] "Not a graph: 1 and 5 are no row."\n'
        'state { n: int = 0 }\nflow { round { turns in seats: p } }\n'
        'phase p { action go() { n = n + 1 end phase } }\nending e after_round when n >= 2 => tie\n')
    g, = figures.find_graphs(rulebook.load(tmp_path / "g.atoll"))
    assert g["name"] == "links" and sorted(map(str, g["nodes"])) == ["a", "b", "c", "d"]
    root = _svg(figures.graph_svg(g))
    assert len(list(root.iter(f"{SVG}path"))) == 6   # the doubled link a-c twice


def test_a_planar_board_is_drawn_without_crossings():
    # a 4 x 4 grid with both diagonals of one square: planar and biconnected
    nodes = [(x, y) for x in range(4) for y in range(4)]
    edges = [((x, y), (x + 1, y)) for x in range(3) for y in range(4)]
    edges += [((x, y), (x, y + 1)) for x in range(4) for y in range(3)]
    edges += [((1, 1), (2, 2))]
    adj = {n: [] for n in nodes}
    for a, b in edges:
        adj[a].append(b)
        adj[b].append(a)
    from atoll.compiler.planarity import faces
    found = faces(adj)
    assert found is not None
    pos = svg.tutte(nodes, edges, max(found, key=len))
    for i, (a, b) in enumerate(edges):
        for c, d in edges[i + 1:]:
            if {a, b} & {c, d}:
                continue
            assert not svg._crosses(pos[a], pos[b], pos[c], pos[d]), (a, b, c, d)
    assert len({(round(x, 3), round(y, 3)) for x, y in pos.values()}) == len(nodes)


def test_the_example_turn_is_one_players_moves_replayed_from_its_seed():
    doc = rulebook.load(MASTERISLANDS)
    game = doc.game(2)
    turns, final = figures._play(game, 5)
    i = figures.pick_turn(turns)
    before, player, acts = turns[i]
    st = before.clone()
    for kind, text in acts:
        a = next(a for a in st.legal_actions() if str(a) == text)
        assert a.player == player and a.kind == kind
        st.apply_action(a)
    after = turns[i + 1][0] if i + 1 < len(turns) else final
    assert st.to_json() == after.to_json()


# ---------------------------------------------------------------- texts

def test_constant_values_keep_only_what_they_depend_on():
    doc = rulebook.load(MASTERISLANDS)
    vals = dict((tuple(sorted(c.items())), v) for c, v in
                rulebook.constant_values(doc, doc.prog.consts["turn_limit"]))
    assert set(vals) == {(("mission", m),) for m in ("easy", "medium", "hard")}
    for (cfg,), v in vals.items():
        game = doc.game(3, {"mode": "corsair", "mission": cfg[1]})
        assert v == str(game.ns["k_turn_limit"])
    hand = rulebook.constant_values(doc, doc.prog.consts["hand_size"])
    assert hand == [({}, "3")]


def test_excerpts_are_whole_declarations():
    doc = rulebook.load(MASTERISLANDS)
    text = MASTERISLANDS.read_text()
    for ph in doc.prog.phases.values():
        for a in ph.actions:
            ex = doc.excerpt(a)
            assert ex.startswith(f"action {a.name}(") and ex.rstrip().endswith("}")
            assert ex.count("{") == ex.count("}")
            body = "\n".join(l.strip() for l in ex.splitlines())
            assert body in "\n".join(l.strip() for l in text.splitlines())
    ex = doc.excerpt(doc.prog.phases["resupply"])
    assert ex.startswith("phase resupply") and ex.endswith("}") and "ending" not in ex


def test_the_cli_reference_has_every_command_and_option():
    import argparse
    from atoll.cli import build_parser
    from atoll.docgen import cli
    text = cli.reference()
    parser = build_parser()
    subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, sub in subs.choices.items():
        assert f"atoll {name}\n" in text
        for a in sub._actions:
            for opt in a.option_strings:
                if opt not in ("-h", "--help"):
                    assert f"``{opt}``" in text, (name, opt)


def test_the_getting_started_page_has_the_readme_quick_start():
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"## Quick start\s*\n+```sh\n(.*?)```", readme, re.S).group(1)
    page = (ROOT / "docs" / "getting-started.md").read_text()
    for line in block.strip().splitlines():
        assert line in page


# ---------------------------------------------------------------- the cache

def test_verification_results_are_cached_by_spec_content(tmp_path, monkeypatch):
    from atoll.verify import cache as C
    calls = []
    real = C.run

    def counting(*args, **kwargs):
        calls.append(args[:3])
        return real(*args, **kwargs)
    monkeypatch.setattr(C, "run", counting)
    spec = tmp_path / "nim.atoll"
    spec.write_text((ROOT / "README.md").read_text().split("## Your first spec", 1)[1]
                    .split("```\n", 1)[1].split("```", 1)[0])
    rc = C.ResultCache(tmp_path / "cache", C.Budget(games=3))
    first = rc.results(spec)
    again = C.ResultCache(tmp_path / "cache", C.Budget(games=3)).results(spec, 2, {})
    assert len(calls) == 1 and [r.to_json() for r in first] == [r.to_json() for r in again]
    C.ResultCache(tmp_path / "cache", C.Budget(games=4)).results(spec)   # another budget
    spec.write_text(spec.read_text().replace("= 9", "= 8"))               # another spec
    rc.results(spec)
    assert len(calls) == 3


def _results_in_a_process(folder, spec, out):
    import atoll.verify.cache as C
    rs = C.ResultCache(folder, C.Budget(games=3)).results(spec)
    Path(out).write_text(json.dumps([r.to_json() for r in rs], default=str))


def test_processes_sharing_a_cache_compute_a_result_once(tmp_path, monkeypatch):
    """Two processes asking for the same missing result (two docs builds, the
    suite's workers): one computes it, the other waits and reads it."""
    import multiprocessing
    import time
    import atoll.verify.cache as C
    real, log = C.run, tmp_path / "computed"

    def slow_counting(*args, **kwargs):
        with open(log, "a") as f:
            f.write("run\n")
        time.sleep(1.0)   # long enough for the other process to reach the lock
        return real(*args, **kwargs)
    monkeypatch.setattr(C, "run", slow_counting)
    spec = ROOT / "tests" / "good" / "nim.atoll"
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_results_in_a_process, args=(tmp_path / "cache", spec, tmp_path / f"out{i}"))
             for i in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0, 0]
    assert log.read_text() == "run\n"   # computed once
    assert (tmp_path / "out0").read_text() == (tmp_path / "out1").read_text()


def test_the_matrix_is_computed_once_with_shared_checks_and_cached_per_configuration(tmp_path, monkeypatch):
    """The docs' dashboard computes a matrix as `verify --matrix` does (each
    check once), in one run, and every configuration is then read back."""
    import atoll.verify.cache as C
    from test_matrix_sharing import SPEC as SMALL
    real, calls = C.run, []

    def counting(*args, **kwargs):
        calls.append(args[:4])
        return real(*args, **kwargs)
    monkeypatch.setattr(C, "run", counting)
    spec = tmp_path / "g.atoll"
    spec.write_text(SMALL)
    rc = C.ResultCache(tmp_path / "cache", C.Budget(games=3))
    found = rc.matrix(spec, jobs=1)
    assert len(calls) == 1 and calls[0][3] is True and len(found) == 4   # one matrix run
    methods = [r.method for _, _, rs in found for r in rs if r.property == "pure"]
    assert sum("(shared)" in m for m in methods) == 3
    again = C.ResultCache(tmp_path / "cache", C.Budget(games=3))
    assert [[r.to_json() for r in rs] for *_, rs in again.matrix(spec)] == \
           [[r.to_json() for r in rs] for *_, rs in found]
    one = again.results(spec, 3, {"fast": True}, via_matrix=True)
    assert len(calls) == 1 and again.misses == 0
    assert [r.to_json() for r in one] == [r.to_json() for r in found[3][2]]


# ---------------------------------------------------------------- the command

def test_docs_without_sphinx_says_what_to_install(monkeypatch, capsys):
    import importlib.util
    from atoll.cli import main
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "sphinx" else real(name, *a))
    assert main(["docs", str(ROOT / "docs")]) == 2
    err = capsys.readouterr().err
    assert "needs Sphinx" in err and 'pip install "atoll[docs]"' in err and "Traceback" not in err


def test_docs_refuses_what_it_cannot_build(tmp_path, capsys):
    pytest.importorskip("sphinx", reason="the docs extra is not installed")
    from atoll.cli import main
    assert main(["docs", str(tmp_path / "missing")]) == 2
    (tmp_path / "notes.txt").write_text("x")
    assert main(["docs", str(tmp_path / "notes.txt")]) == 2
    err = capsys.readouterr().err
    assert "does not exist" in err and "neither a Sphinx project" in err


def test_pages_read_in_parallel_are_the_pages_read_one_by_one(tmp_path):
    """`atoll docs -j 2` (Sphinx reads the pages in forked processes, whose
    findings are merged) writes the same site as `-j 1`."""
    pytest.importorskip("sphinx", reason="the docs extra is not installed")
    import subprocess
    import sys
    specs = tmp_path / "specs"
    specs.mkdir()
    for name in ("nim", "countdown", "dice_race"):
        src = ROOT / "tests" / ("golden" if name == "countdown" else "good") / f"{name}.atoll"
        (specs / f"{name}.atoll").write_text(src.read_text())
    sites = {}
    for j in (1, 2):
        r = subprocess.run([sys.executable, "-m", "atoll.cli", "docs", str(specs), "-o", str(tmp_path / f"j{j}"),
                            "--no-verify", "-j", str(j)], cwd=tmp_path, capture_output=True, text=True,
                           timeout=600)
        assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
        assert "parallel reading" not in r.stdout + r.stderr   # Sphinx would read one by one, and say so
        sites[j] = {p.relative_to(tmp_path / f"j{j}"): p.read_bytes()
                    for p in (tmp_path / f"j{j}").rglob("*.html")}
    assert len(sites[1]) >= 8 and sites[1] == sites[2]


def _mark_warnings(folder, key, out):
    from types import SimpleNamespace
    from atoll import sphinx as S
    env = SimpleNamespace(doctreedir=str(folder))
    Path(out).write_text(str([S._first_warning(env, key) for _ in range(3)]))


def test_a_verdict_is_warned_of_once_per_build_whichever_process_reads_its_pages(tmp_path):
    pytest.importorskip("sphinx", reason="the docs extra is not installed")
    import multiprocessing
    from types import SimpleNamespace
    from atoll import sphinx as S
    key = ("spec.atoll", 2, (), "never_empty")
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_mark_warnings, args=(tmp_path, key, tmp_path / f"out{i}")) for i in range(2)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    said = sorted((tmp_path / f"out{i}").read_text() for i in range(2))
    assert said == ["[False, False, False]", "[True, False, False]"]   # one warning in all
    env = SimpleNamespace(doctreedir=str(tmp_path))
    assert not S._first_warning(env, key)
    assert S._first_warning(env, key[:3] + ("another",))
    S._forget_warnings(None, env, [])          # the next build warns again
    assert S._first_warning(env, key)


def test_docs_readers_share_the_cores_with_the_matrices_they_compute(tmp_path, monkeypatch):
    """`atoll docs -j N` runs N page readers, each computing its pages'
    matrices in its own processes: the cores are shared among them, not
    multiplied (N readers x one process per core each)."""
    pytest.importorskip("sphinx", reason="the docs extra is not installed")
    import os
    import atoll.verify.cache as C
    from atoll.cli import main
    from atoll.docgen import site
    seen = []
    monkeypatch.setattr(site, "build", lambda src, out, dt, settings, strict=False, jobs=1:
                        seen.append((jobs, settings.get("atoll_matrix_jobs"))) or 0)
    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    spec = tmp_path / "nim.atoll"
    spec.write_text((ROOT / "tests" / "good" / "nim.atoll").read_text())
    assert main(["docs", str(spec), "-o", str(tmp_path / "site"), "-j", "4"]) == 0
    assert main(["docs", str(spec), "-o", str(tmp_path / "site")]) == 0
    assert main(["docs", str(spec), "-o", str(tmp_path / "site"), "-j", "1"]) == 0
    assert seen == [(4, 2), (8, 1), (1, 8)]
    ran = []
    monkeypatch.setattr(C, "run", lambda *a, **k: ran.append(k["jobs"]))
    C.ResultCache(tmp_path / "cache", C.Budget(games=3), jobs=2).matrix(spec)
    assert ran == [2]


def test_docs_readers_are_forked_from_a_frozen_main_process(tmp_path, monkeypatch):
    """The pages are read (and the matrices computed, by the pool before
    the read) while the main process's objects are frozen out of the
    collector's reach: a reader or a process of the pool forked from it
    does not copy them all by collecting; after the read, they are unfrozen."""
    pytest.importorskip("sphinx", reason="the docs extra is not installed")
    import gc
    import atoll.verify.cache as C
    from atoll.cli import main
    marks = tmp_path / "frozen"
    marks.mkdir()
    real_matrix, real_task = C.ResultCache.matrix, C._run_task

    def mark(kind):   # (in a reader or a process of the pool, forked: it leaves a mark)
        (marks / f"{kind}-{os.getpid()}-{len(list(marks.iterdir()))}").write_text(str(gc.get_freeze_count()))

    def matrix(*a, **k):   # a page reader reads a matrix
        mark("reader")
        return real_matrix(*a, **k)

    def task(*a, **k):   # the pool computes a configuration, before the pages are read
        mark("pool")
        return real_task(*a, **k)
    monkeypatch.setattr(C.ResultCache, "matrix", matrix)
    monkeypatch.setattr(C, "_run_task", task)
    spec = tmp_path / "nim.atoll"
    spec.write_text((ROOT / "tests" / "good" / "nim.atoll").read_text())
    assert gc.get_freeze_count() == 0
    assert main(["docs", str(spec), "-o", str(tmp_path / "site"), "-j", "2", "--games", "2"]) == 0
    seen = {m.name.split("-")[0]: int(m.read_text()) for m in marks.iterdir()}
    assert set(seen) == {"reader", "pool"} and all(n > 0 for n in seen.values())
    assert gc.get_freeze_count() == 0


def test_a_docs_matrix_is_computed_on_a_fresh_stack(tmp_path, monkeypatch):
    """The docs' verification runs in a thread of its own (an empty Python
    stack, whatever the depth of the Sphinx reader that asks), the caller
    waiting; its results and its errors come back to the caller."""
    import threading
    import atoll.verify.cache as C
    spec = tmp_path / "nim.atoll"
    spec.write_text((ROOT / "tests" / "good" / "nim.atoll").read_text())
    where = []
    real = C.run
    monkeypatch.setattr(C, "run", lambda *a, **k: where.append(threading.current_thread()) or real(*a, **k))
    assert len(C.ResultCache(tmp_path / "cache", C.Budget(games=2), jobs=1).matrix(spec)) == 2
    assert C.ResultCache(tmp_path / "cache1", C.Budget(games=2), jobs=1).results(spec, 3, {}) == []
    assert len(where) == 2 and all(t is not threading.current_thread() for t in where)

    def fails(*a, **k):
        raise ValueError("in the verifier")
    monkeypatch.setattr(C, "run", fails)
    with pytest.raises(ValueError, match="in the verifier"):
        C.ResultCache(tmp_path / "cache2", C.Budget(games=2), jobs=1).matrix(spec)


# ---------------------------------------------------------------- the pool of a docs build

def _entries(folder):
    """The results a cache folder holds, by file, without their times."""
    out = {}
    for p in Path(folder).glob("*.json"):
        if p.name == "timings.json":
            continue
        data = json.loads(p.read_text())
        for r in data["results"]:
            r.pop("seconds")
        out[p.name] = data
    return out


def _pool_specs(tmp_path):
    from test_matrix_sharing import SPEC as SMALL
    g = tmp_path / "g.atoll"
    g.write_text(SMALL)
    return [g, ROOT / "tests" / "good" / "sealed_bids.atoll"]   # sealed_bids has an example


def test_the_docs_pool_stores_what_the_readers_computed(tmp_path):
    """``ResultCache.fill`` (every configuration of several specs, one task
    each, in one pool, the longest first) stores the very entries that
    ``ResultCache.matrix`` (a page reader, each spec's configurations in
    order in one process) stores: the same keys, the same results (shared
    checks, examples, counterexamples...)."""
    import atoll.verify.cache as C
    specs = _pool_specs(tmp_path)
    said = []
    pool = C.ResultCache(tmp_path / "pool", C.Budget(games=3))
    assert pool.fill(specs, 1, said.append) == {str(s): "stored" for s in specs}
    readers = C.ResultCache(tmp_path / "readers", C.Budget(games=3), jobs=1)
    for s in specs:
        readers.matrix(s)
    assert len(_entries(tmp_path / "pool")) == 4 + 3
    assert _entries(tmp_path / "pool") == _entries(tmp_path / "readers")
    done = [line for line in said if line.startswith("[")]
    assert len(done) == 4 + 3 + 1 and done[-1].startswith("[8/8]")   # the examples: a task
    assert [line.split("] ")[1].split(" (")[0] for line in done].index("sealed_bids.atoll: 4 players") < \
        [line.split("] ")[1].split(" (")[0] for line in done].index("sealed_bids.atoll: 2 players")


def test_the_docs_pool_hands_out_the_longest_tasks_first(tmp_path):
    """The order of the tasks: by their CPU time at the last run (kept in
    the cache folder) when there is one, else by a static guess (the
    actions of the configuration's first random game, times its spec's CPU
    time per action), the timed ones first; with one process, the order
    they run in. The results do not depend on the order: each task runs in
    a process of its own (in one long-lived process, the z3 model of sealed
    bids' `order_free` induction attempt, shown in its detail, came out
    otherwise after other checks)."""
    import atoll.verify.cache as C
    specs = _pool_specs(tmp_path)
    said = []
    C.ResultCache(tmp_path / "first", C.Budget(games=3)).fill(specs, 1, said.append)
    names = [line.split("] ")[1].split(" (")[0] for line in said if line.startswith("[")]
    g = [n for n in names if n.startswith("g.atoll")]
    sealed = [n for n in names if n.startswith("sealed_bids")]
    # first games of 6, 6, 3, 3 actions (two at a time when fast), and of 12, 9, 6 (a bid each)
    assert g == ["g.atoll: 2 players, fast=False", "g.atoll: 3 players, fast=False",
                 "g.atoll: 2 players, fast=True", "g.atoll: 3 players, fast=True"]
    assert sealed == ["sealed_bids.atoll: 4 players", "sealed_bids.atoll: 3 players",
                      "sealed_bids.atoll: 2 players", "sealed_bids.atoll: examples"]
    assert names[-1] == "sealed_bids.atoll: examples"
    timings = json.loads((tmp_path / "first" / "timings.json").read_text())
    assert len(timings) == 8 and all(v >= 0 for v in timings.values())
    # the last run's times, made up: g's configurations first, the fast ones first of all
    slow = {k: (100.0 if "g.atoll" in k else 1.0) + (50.0 if '"fast": true' in k else 0.0)
            for k in timings}
    (tmp_path / "second").mkdir()
    (tmp_path / "second" / "timings.json").write_text(json.dumps(slow))
    said = []
    C.ResultCache(tmp_path / "second", C.Budget(games=3)).fill(specs, 1, said.append)
    names = [line.split("] ")[1].split(" (")[0] for line in said if line.startswith("[")]
    assert names[:4] == ["g.atoll: 2 players, fast=True", "g.atoll: 3 players, fast=True",
                         "g.atoll: 2 players, fast=False", "g.atoll: 3 players, fast=False"]
    assert _entries(tmp_path / "first") == _entries(tmp_path / "second")


def test_the_docs_pool_starts_nothing_when_everything_is_cached(tmp_path, monkeypatch):
    """A rebuild: no process started, nothing planned, and not even a spec
    compiled (a spec's complete matrix is noted with the digest of the
    files it read); a changed spec, or a missing entry, is computed again."""
    import atoll.verify.cache as C
    specs = _pool_specs(tmp_path)
    rc = C.ResultCache(tmp_path / "cache", C.Budget(games=3))
    rc.fill(specs, 2)
    done = []
    real_compile = C.pipeline.compile_spec
    monkeypatch.setattr(C, "each_in_a_fork", lambda *a, **k: done.append("forked"))
    monkeypatch.setattr(C.runner, "plan_checks", lambda *a, **k: done.append("planned"))
    monkeypatch.setattr(C.pipeline, "compile_spec", lambda *a, **k: done.append("compiled"))
    assert C.ResultCache(tmp_path / "cache", C.Budget(games=3)).fill(specs, 2) == \
        {str(s): "cached" for s in specs}
    assert done == []
    monkeypatch.setattr(C.pipeline, "compile_spec", real_compile)
    (tmp_path / "cache" / next(iter(_entries(tmp_path / "cache")))).unlink()   # one missing
    with pytest.raises(TypeError):   # planned again (the fake plan_checks returns nothing)
        C.ResultCache(tmp_path / "cache", C.Budget(games=3)).fill(specs, 2)
    assert done == ["planned"]
    monkeypatch.undo()
    rc = C.ResultCache(tmp_path / "cache", C.Budget(games=3))
    assert sorted(rc.fill(specs, 2).values()) == ["cached", "stored"]   # the missing one
    specs[0].write_text(specs[0].read_text().replace("reads nothing of the matrix", "reads nothing"))
    assert rc.fill(specs, 2) == {str(specs[0]): "stored", str(specs[1]): "cached"}   # a changed spec


def test_a_spec_whose_task_fails_in_the_pool_is_left_to_its_pages(tmp_path, monkeypatch):
    """An error in one spec's task: nothing of that spec is stored (its
    pages compute it and report the error as they always did), the other
    specs are stored, and the build goes on."""
    import atoll.verify.cache as C
    specs = _pool_specs(tmp_path)
    real = C.runner._run_config

    def fails_for_g(spec_path, *a, **k):   # in the forked process
        if spec_path.endswith("g.atoll") and a[4] == 3:
            raise ValueError("in the verifier")
        return real(spec_path, *a, **k)
    monkeypatch.setattr(C.runner, "_run_config", fails_for_g)
    said = []
    rc = C.ResultCache(tmp_path / "cache", C.Budget(games=3))
    assert rc.fill(specs, 2, said.append) == {str(specs[0]): "failed", str(specs[1]): "stored"}
    assert any("g.atoll: ValueError: in the verifier" in line for line in said)
    assert {d["spec"] for d in _entries(tmp_path / "cache").values()} == {str(specs[1])}
    with pytest.raises(ValueError, match="in the verifier"):
        rc.matrix(specs[0], jobs=1)   # as a page reader meets it


def test_the_docs_pool_has_the_processes_the_readers_had(monkeypatch):
    """`atoll docs -j N`: N readers x ``atoll_matrix_jobs`` processes each
    (0: the cores shared among the readers), now in one pool."""
    pytest.importorskip("sphinx", reason="the docs extra is not installed")
    from types import SimpleNamespace
    from atoll import sphinx as S
    monkeypatch.setattr(os, "cpu_count", lambda: 8)
    app = lambda parallel, each: SimpleNamespace(parallel=parallel,
                                                 config=SimpleNamespace(atoll_matrix_jobs=each))
    assert [S.pool_size(app(*a)) for a in ((4, 2), (8, 1), (1, 8), (0, 0), (1, 0), (2, 0), (16, 0))] == \
        [8, 8, 8, 8, 8, 8, 16]
