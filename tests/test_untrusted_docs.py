"""A spec is untrusted input for the documentation too: every text it gives
(titles, summaries, cites, assumptions, names, strings, data values, file
names) reaches the generated reST escaped, and generated reST is parsed
with raw HTML and file insertion switched off, so that even a missed escape
cannot put a script into a page or a local file's content into the site.

* the escaper, with hypothesis: escaped text parsed by docutils is the same
  plain text, with no markup at all;
* a hostile spec built into a real Sphinx site (one small spec, no
  verification): no script of the spec's, no content of a file it names;
* a directive that renders text without escaping it (a missed escape, on
  purpose) and a page marked as generated: raw and include do nothing.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
import unicodedata
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("sphinx", reason="the docs extra (Sphinx) is not installed")

from docutils import nodes                     # noqa: E402
from docutils.core import publish_doctree      # noqa: E402
from docutils.parsers.rst import roles         # noqa: E402

from atoll.docgen import rst, site             # noqa: E402
from atoll.sphinx import atoll_code_role       # noqa: E402

roles.register_local_role("atoll", atoll_code_role)

QUIET = {"report_level": 5, "halt_level": 5, "file_insertion_enabled": True, "raw_enabled": True}
MARKUP = list("`*_|\\:.-+#=<>[](){}!'\"@/^~ \n\t\x00\x0c\u2028\u2022") + ["..", "::", "``", "]]>", "a", "1"]
TEXTS = st.lists(st.one_of(st.sampled_from(MARKUP), st.text(max_size=4)), max_size=12).map("".join)


def plain(text: str) -> str:
    """What a reader must see: the text without control characters, on one
    line (each run of whitespace one space)."""
    kept = "".join(c for c in text if c.isspace() or unicodedata.category(c) not in ("Cc", "Cs"))
    return " ".join(kept.split())


def doctree(source: str):
    return publish_doctree(source, settings_overrides=QUIET)


def only_text(tree, allowed) -> None:
    for node in tree.findall(include_self=False):
        assert isinstance(node, (nodes.Text,) + allowed), f"markup {node.tagname}:\n{tree.pformat()}"


ALLOWED = (nodes.section, nodes.title, nodes.paragraph, nodes.literal, nodes.table, nodes.tgroup,
           nodes.colspec, nodes.thead, nodes.tbody, nodes.row, nodes.entry)


@settings(max_examples=80, deadline=None)
@given(TEXTS, TEXTS)
def test_escaped_text_reads_back_as_itself(a, b):
    """In every place the pages put a spec's text (a heading, a paragraph,
    a table cell, inline code), docutils reads back the same plain text and
    no markup: one parse a case, every place at once."""
    assert "\n" not in rst.esc(a) + rst.code(a) + rst.lit(a)
    source = "\n".join(rst.heading(a, "=") + [rst.esc(b), "", f"see {rst.code(a)}, {rst.lit(b)}.", ""]
                       + rst.table([rst.esc(a)], [[rst.esc(b)]])) + "\n"
    tree = doctree(source)
    only_text(tree, ALLOWED)
    assert tree.next_node(nodes.title).astext() == (plain(a) or "(untitled)")
    paragraphs = [p.astext() for p in tree.findall(nodes.paragraph) if not isinstance(p.parent, nodes.entry)]
    assert paragraphs[-1] == f"see {plain(a) or '(empty)'}, {plain(b) or '(empty)'}."
    if plain(b):
        assert paragraphs[0] == plain(b)
    assert [x.astext() for x in tree.findall(nodes.literal)] == [plain(a) or "(empty)", plain(b) or "(empty)"]
    assert [e.astext() for e in tree.findall(nodes.entry)] == [plain(a), plain(b)]


def test_slugs_and_labels_are_plain():
    for name in ["a b", "x\n.. raw:: html", "`|_*", "..", ""]:
        s = rst.slug(name)
        assert re.fullmatch(r"[A-Za-z0-9_-]+", s), s
        assert re.fullmatch(r"[a-z0-9-]*", rst.label(name, "phase", "p_1"))


# ---------------------------------------------------------------- a hostile spec, built

SCRIPT = '<script>alert("atoll-pwned")</script>'


def _atoll_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def hostile_spec(folder: Path, secret: Path) -> Path:
    """A spec whose every text tries markup: ``A`` starts a line with an
    include, ``B`` has raw HTML, roles, substitutions and the rest."""
    a = _atoll_string(f".. include:: {secret}")
    b = _atoll_string(f"`x` |s| _t_ [1]_ :raw:`<b>` javascript:alert(1) ]]> {SCRIPT}\n\n"
                      f".. raw:: html\n\n   {SCRIPT}\n\n.. include:: {secret}\n   :literal:\n\n"
                      "Heading\n=======\n\n- * #. :field: end")
    text = f"""
game g {{
  title: {b}
  players: 2..2
  designer: {b}
  rulebook: {a}
}}

record Node {{ id: str, name: str, next: list[str] }} {a} cites {b}
data nodes: list[Node] from "nodes.json" {b} assumption {a}
record Card {{ colour: str, label: str }} {b}
data cards: list[Card] from "cards.json" {a}

option loud: bool = false {a}
house volume: int = 2 {b} cites {a}
require volume > 0 or loud {b}

const words: list[str] = [{b}, {a}, "plain"] {b}
const motto: str = {b} {a}
const board: map[Pos, str] = {{pos(0, 0): {b}, pos(1, 0): {a}}} {b}

state {{ player said: list[str] = [] visible all {a} }}

flow {b} {{ round {{ turns in seats: talk }} }}

phase talk {a} {{
  action say(w: str in words) {b} cites {a}, {b}
    when size(said[me]) < 3 {b}
  {{
    said[me] = said[me] + [w]
    end phase
  }}
}}

ending over after_round when size(said[0]) >= 2 {a} => tie
unmodelled chat {b}
property says_little {b} invariant size(said[0]) <= 3
"""
    evil = json.loads(b)
    (folder / "nodes.json").write_text(json.dumps(
        [{"id": "a", "name": evil, "next": ["b"]}, {"id": "b", "name": f"b {SCRIPT}", "next": ["a"]}]))
    (folder / "cards.json").write_text(json.dumps(
        [{"colour": evil, "label": evil}, {"colour": "red", "label": SCRIPT}]))
    path = folder / "ho`st |s| _x_.atoll"
    path.write_text(text, encoding="utf-8")
    return path


LEAK_EXT = '''
from atoll.sphinx import _AtollDirective


class Leak(_AtollDirective):
    """Renders its content as it is: a missed escape, on purpose."""
    has_content = True

    def run(self):
        return self.render("\\n".join(self.content) + "\\n")


def setup(app):
    app.add_directive("leak", Leak)
'''


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile")
    secret = root / "secret.txt"
    secret.write_text("TOPSECRET-7f3a\n")
    specs = root / "specs"
    specs.mkdir()
    hostile_spec(specs, secret)
    proj = root / "docs"
    proj.mkdir()
    (proj / "conf.py").write_text(
        "import sys, os\nsys.path.insert(0, os.path.dirname(__file__))\n"
        "project = 'hostile'\nextensions = ['atoll.sphinx', 'leak_ext']\n"
        "atoll_specs = ['../specs']\natoll_verify = False\natoll_diagnostics = ''\n")
    (proj / "leak_ext.py").write_text(LEAK_EXT)
    payload = [".. raw:: html", "", f"   {SCRIPT}", "", f".. include:: {secret}", "   :literal:", ""]
    (proj / "index.rst").write_text("\n".join(
        ["Hostile", "=======", "", ".. toctree::", "", "   games/index", "   switched", "",
         ".. leak::", ""] + ["   " + l if l else "" for l in payload]))
    (proj / "switched.rst").write_text("\n".join(
        [site.MARK, "", ".. atoll-generated::", "", "Switched off", "============", ""] + payload))
    out = root / "out"
    r = subprocess.run([sys.executable, "-m", "atoll.cli", "docs", str(proj), "-o", str(out),
                        "--no-verify"], cwd=root, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return out, r.stdout + r.stderr


def _published(out: Path):
    """The pages and pictures a browser renders (the search index is data:
    Sphinx's search escapes what it shows from it)."""
    for f in out.rglob("*"):
        if f.is_file() and f.suffix in (".html", ".svg") and ".doctrees" not in f.parts:
            yield f


def test_hostile_spec_runs_no_script_and_reads_no_file(hostile_site):
    out, log = hostile_site
    pages = list(_published(out))
    assert any(p.name == "designer.html" for p in pages), log
    for f in pages:
        text = f.read_text(encoding="utf-8", errors="replace")
        assert "<script>alert" not in text, f"{f}: a script of the spec's"
        assert "javascript:alert" not in re.sub(r"&[a-z]+;", "", "".join(re.findall(r'href="[^"]*"', text)))
    for f in out.rglob("*"):
        if f.is_file():
            assert b"TOPSECRET" not in f.read_bytes(), f"{f}: a file the spec names was read"


def test_hostile_text_is_shown_as_text(hostile_site):
    import html as html_mod
    out, _ = hostile_site
    pages = {p.name: p for p in _published(out)}
    designer = html_mod.unescape(pages["designer.html"].read_text(encoding="utf-8"))
    for shown in (SCRIPT, "|s|", "_t_", "[1]_", ":raw:", ".. include::", ":field: end"):
        assert shown in designer, shown
    for svg in (p for p in _published(out) if p.suffix == ".svg"):
        ET.fromstring(svg.read_text(encoding="utf-8"))   # well-formed, `]]>` and all


def test_generated_rest_has_raw_and_include_off(hostile_site):
    """A missed escape (the ``leak`` directive) and a page marked as
    generated: the raw HTML and the included file are not in the site."""
    out, log = hostile_site
    for name in ("index.html", "switched.html"):
        text = (out / name).read_text(encoding="utf-8")
        assert "<script>alert" not in text and "TOPSECRET" not in text, name
    assert "disabled" in log   # docutils says so


def test_standalone_project_is_escaped_and_switched_off(tmp_path, monkeypatch):
    spec = tmp_path / "x`|s|_ .. raw:: html.atoll"
    spec.write_text("")
    src = site.standalone_source([spec], tmp_path / "src")
    conf = (src / "docutils.conf").read_text()
    assert re.search(r"raw_enabled:\s*(no|false|0)", conf)
    assert re.search(r"file_insertion_enabled:\s*(no|false|0)", conf)
    tree = doctree((src / "index.rst").read_text())
    assert tree.next_node(nodes.title).astext() == f"Rules: {spec.stem}"
    assert not list(tree.findall(nodes.raw))
    monkeypatch.setenv("DOCUTILSCONFIG", str(src / "docutils.conf"))   # as Sphinx reads it
    tree = publish_doctree(".. raw:: html\n\n   <b>raw</b>\n", settings_overrides={"report_level": 5})
    assert not list(tree.findall(nodes.raw)), tree.pformat()


def test_balance_report_markdown_escapes_the_spec():
    """The balance report's Markdown carries the game's title and endings:
    no HTML and no link of the spec's gets through."""
    from atoll import report
    blocks = [("h1", f"Balance report: {SCRIPT}\n\n[click](javascript:alert(1)) `x` |"),
              ("p", f"ending {SCRIPT}"), ("table", ["ending", "games"], [[f"{SCRIPT} | [a](b)", "3"]])]
    md = report.to_markdown(blocks)
    assert "<script" not in md and not re.search(r"(?<!\\)\]\(", md) and "`x`" not in md
    row = next(l for l in md.splitlines() if l.startswith("| &lt;script"))
    assert len(re.findall(r"(?<!\\)\|", row)) == 3   # two cells: the spec's `|` is escaped
    assert "&lt;script&gt;" in md
