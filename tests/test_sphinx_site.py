"""The documentation site, built as CI builds it: Sphinx with every warning
an error (-W) and every reference checked (-n). Every rule of every spec
must appear on its generated pages, and the pictures must show the model's
positions.

The pages show the verdicts of `atoll verify` (full budget), which
test_specs has computed into the session's cache by the time this file
runs (pytest runs the files in name order); the dashboard of every
configuration is left to `atoll docs` and tested on a small game instead."""
import html
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

pytest.importorskip("sphinx", reason="the docs extra (Sphinx) is not installed")
pytest.importorskip("myst_parser", reason="the docs extra (myst-parser) is not installed")

from atoll.docgen import rulebook, site   # noqa: E402
from helpers import ROOT                   # noqa: E402

GAMES = 100    # games per property checked by play: the budget of `atoll verify`
SEED = 4       # the seed of the example positions


@pytest.fixture(scope="module")
def built(tmp_path_factory, verify_cache):
    out = tmp_path_factory.mktemp("site")
    cmd = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-n", "-q", "-b", "html",
           "-d", str(out / "doctrees"), "-D", f"atoll_verify_games={GAMES}",
           "-D", f"atoll_example_seed={SEED}", "-D", "atoll_dashboard=0",
           "-D", f"atoll_cache_dir={verify_cache}", str(ROOT / "docs"), str(out / "html")]
    # cwd elsewhere: in the checkout, the folder atoll/ would shadow the package
    r = subprocess.run(cmd, cwd=out, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-6000:]
    return out / "html"


def text_of(path) -> str:
    """A page's words, as a reader sees them (Sphinx's curly quotes made straight)."""
    raw = path.read_text(encoding="utf-8")
    raw = re.sub(r"<(script|style)\b.*?</\1>", " ", raw, flags=re.S)
    text = html.unescape(re.sub(r"<[^>]+>", " ", raw))
    text = text.translate(str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"',
                                         "\u201d": '"', "\u2013": "--", "\u2014": "---",
                                         "\u2026": "..."}))
    return " ".join(text.split())


def words(s: str) -> str:
    return " ".join(s.split())


def rules(doc):
    """(what, name, text) of every rule a page must show."""
    p = doc.prog
    for ph in p.phases.values():
        yield "phase", ph.name, ph.notes.summary
        for a in ph.actions:
            yield "action", a.name, a.notes.summary
            for g in a.guards:
                yield "condition", "", g.notes.summary
    for en in p.endings.values():
        yield "ending", en.name, en.notes.summary
    for o in p.options.values():
        yield ("house rule" if o.kind == "house" else "option"), o.name, o.notes.summary
    for kind, name, notes in rulebook.assumptions(doc):
        yield "assumption", "", notes.assumption
    for u in p.unmodelled.values():
        yield "unmodelled", u.name, u.notes.summary


def test_every_rule_of_every_game_is_on_both_editions(built):
    entries = site.discover(["spec"], ROOT)
    assert entries
    for e in entries:
        doc = rulebook.load(e.path)
        for edition in ("players", "designer"):
            text = text_of(built / "games" / e.slug / f"{edition}.html")
            for what, name, summary in rules(doc):
                # the players' edition writes names as words (``pile_empty``: "pile empty")
                shown = name.replace("_", " ") if edition == "players" and what in (
                    "phase", "action", "ending") else name
                assert not name or shown.lower() in text.lower(), \
                    f"{e.slug} {edition}: {what} {name} is missing"
                assert words(summary) in text, f"{e.slug} {edition}: the text of {what} {name} is missing"
        designer = text_of(built / "games" / e.slug / "designer.html")
        for pr in doc.prog.properties.values():
            assert pr.name in designer and words(pr.notes.summary) in designer


def test_every_variant_page_shows_what_it_changes(built):
    from atoll.docgen import variants
    for e in site.discover(["spec"], ROOT):
        for v in e.variants:
            text = text_of(built / "games" / e.slug / "variants" / f"{v.stem}.html")
            found = variants.changes(rulebook.load(v))
            assert found
            for what, new, old in found:
                assert variants._name(new) in text
                notes = getattr(new, "notes", None)
                assert notes is None or words(notes.summary) in text


def test_verdicts_are_shown_with_their_budget(built):
    for e in site.discover(["spec"], ROOT):
        page = built / "games" / e.slug / "designer.html"
        assert f"Budget: {GAMES} random games per property" in text_of(page)
        raw = page.read_text(encoding="utf-8")
        badges = re.findall(r'class="atoll-verdict atoll-verdict-([\w-]+) atoll-(as-expected|unexpected)(?: [\w-]+)*"', raw)
        doc = rulebook.load(e.path)
        # one badge beside each property and each worked example, and one in the table of verdicts
        from atoll.verify.examples import applies
        examples = [x for x in doc.prog.examples.values() if applies(doc.prog, x)]
        assert len(badges) == 2 * len(doc.prog.properties) - _not_applied(doc) + 2 * len(examples)
        assert sum(kind == "passed" for kind, _ in badges) == 2 * len(examples)
        assert all(flag == "as-expected" for _, flag in badges)   # as test_specs requires


def _not_applied(doc) -> int:
    """2 per property whose `when` leaves the default configuration out."""
    game = doc.game()
    return 2 * sum(1 for pr in doc.prog.properties.values()
                   if pr.when is not None and not game.ns[f"propw_{pr.name}"]())


def test_pictures_show_the_position_the_model_deals(built):
    import atoll
    images = built / "_images"
    game = atoll.load(ROOT / "spec" / "masterislands.atoll", players=2)
    board = game.new_initial_state(seed=SEED).observation(0)["state"]["board"]
    setup = ET.parse(images / "masterislands-setup-board.svg").getroot()
    cells = [r for r in setup.iter("{http://www.w3.org/2000/svg}rect") if r.get("rx") == "6"]
    assert len(cells) == len(board) == 1
    example = ET.parse(images / "masterislands-const-example_board.svg").getroot()
    assert len([r for r in example.iter("{http://www.w3.org/2000/svg}rect") if r.get("rx") == "6"]) == 5
    for name in ("masterislands-example-before-board.svg", "masterislands-example-after-board.svg",
                 "pipeline.svg"):
        ET.parse(images / name)   # well-formed
    # a play counterexample is drawn where the property fails
    designer = (built / "games" / "masterislands" / "designer.html").read_text(encoding="utf-8")
    drawn_props = re.findall(r"Counterexample: (\w+)", designer)
    assert drawn_props, "the designer's edition shows no counterexample (the spec expects some to fail)"
    for prop in drawn_props:
        drawn = list(images.glob(f"masterislands-cx-{prop}-*.svg"))
        assert drawn, prop
        ET.parse(drawn[0])


def test_reference_pages_come_from_the_code(built):
    from atoll.diagnostics import CODES
    for code, (_, title, text) in CODES.items():
        page = text_of(built / "diagnostics" / f"{code}.html")
        assert title in page and words(text) in page
    cli = text_of(built / "cli.html")
    for cmd in ("check", "verify", "play", "simulate", "docs", "lower", "explain"):
        assert f"atoll {cmd}" in cli
    api = text_of(built / "api.html")
    for name in ("load", "new_initial_state", "legal_actions", "apply_action", "IllegalAction"):
        assert name in api


def test_atoll_docs_builds_a_site_for_a_spec_with_a_graph(tmp_path):
    r = subprocess.run([sys.executable, "-m", "atoll.cli", "docs", str(ROOT / "tests" / "docs" / "ferry.atoll"),
                        "-o", str(tmp_path / "site"), "--strict", "--games", "2"],
                       cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    out = tmp_path / "site"
    dash = text_of(out / "games" / "dashboard.html")
    assert "Budget: 2 random games per property" in dash
    assert "players=2" in dash and "players=3" in dash   # every player count of the game
    assert (out / "games" / "ferry" / "players.html").is_file()
    graphs = list((out / "_images").glob("ferry-graph-*.svg"))
    assert len(graphs) == 1
    players = text_of(out / "games" / "ferry" / "players.html")
    assert "Cross to a neighbour of the ferry's island." in players and "ferry-graph" in \
        (out / "games" / "ferry" / "players.html").read_text()
