"""The players' edition: complete (every ending, every win inside an action)
and in words (no spec notation), for every shipped spec and variant and the
getting-started game."""
import re

import pytest

from atoll.docgen import editions, rulebook
from atoll.diagnostics import Reporter
from atoll.grammar.parse import parse
from helpers import MASTERISLANDS, KANALOA, ROOT, SPEC

SHIPPED = sorted(SPEC.rglob("*.atoll"))

# What spec notation looks like on a generated page.
_NOTATION = [
    (re.compile(r":atoll:`"), "an expression in the spec's notation"),
    (re.compile(r"\.\. code-block::"), "a block of spec text"),
    (re.compile(r"==|!=|<=|>=|=>"), "a comparison operator"),
    (re.compile(r"\band not \("), "`and not (`"),
    (re.compile(r"\[\s*\w+\s+for\s|\bfor \w+ in \w"), "a comprehension"),
    (re.compile(r"\b[a-z_]+\.(?!atoll\b|json\b)[a-z_]+\b"), "a dotted slot name"),
    (re.compile(r"[A-Za-z_]\\?\([a-z_0-9]"), "a call"),
    (re.compile(r"\bNone\b"), "Python's None (an absent optional value reads `none`)"),
]
_LITERAL = re.compile(r"(?<!\\)``(.+?)``")


def notation(text: str) -> list[str]:
    """Every place in a players' edition that shows the spec's notation."""
    found = []
    for n, line in enumerate(text.splitlines(), start=1):
        for pat, what in _NOTATION:
            m = pat.search(line)
            if m:
                found.append(f"line {n}: {what}: {line.strip()[:160]}")
        for lit in _LITERAL.findall(line):
            if lit.startswith(("--", "atoll ")):
                continue        # a command to type
            if re.search(r"[=<>!\[\]{}]|\w\(|\s(and|or|not|for|in)\s", lit):
                found.append(f"line {n}: an expression in backticks: ``{lit}``")
    return found


def last_stone(tmp_path):
    """The getting-started game, as the guide gives it."""
    text = (ROOT / "docs" / "getting-started.md").read_text()
    src = re.search(r"```atoll\n(# Last Stone.*?)```", text, re.S).group(1)
    path = tmp_path / "last_stone.atoll"
    path.write_text(src)
    return path


def players(path) -> str:
    return editions.players_edition(rulebook.load(path), editions.Context())


def section(text: str, title: str) -> str:
    lines = text.splitlines()
    i = lines.index(title)
    j = next((k for k in range(i + 2, len(lines)) if set(lines[k]) == {"-"} and lines[k - 1]),
             len(lines))
    return "\n".join(lines[i:j - 1])


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_the_players_edition_shows_no_notation(path):
    assert notation(players(path)) == []


def test_the_check_finds_notation():
    page = players(MASTERISLANDS)
    assert notation("Afterwards `moved or can(sail)` must hold; fleet.p; [p for p in seats]")
    assert notation(":atoll:`a == b`") and notation("``x and not (y)``")
    assert not notation(page)


def test_getting_started_game_says_how_it_is_won_and_has_no_empty_setup(tmp_path):
    page = players(last_stone(tmp_path))
    assert notation(page) == []
    assert "\nSetup\n" not in page
    end = section(page, "End of the game")
    assert "the player who made the move wins" in end
    assert "the players except the player who made the move win" in end
    assert "house rule ``misere`` is on" in end and "house rule ``misere`` is off" in end


def test_every_ending_of_masterislands_and_kanaloa_is_listed():
    mi = section(players(MASTERISLANDS), "End of the game")
    assert "By the action conquer" in mi
    assert "the team of the player who made the move wins" in mi
    for name in ("Pile empty", "Pile empty corsair", "Stalled", "Mission failed"):
        assert f"**{name}**" in mi
    page = players(KANALOA)
    assert "**ScoreRow**" not in page and "**Island**" in page   # a worked example's record: hidden
    assert "progress" not in page          # a function only the termination property reads
    ka = section(page, "End of the game")
    assert "By the action build" in ka and "By the action exchange" in ka
    assert "**Final scoring**" in ka


SMALL = '''
game g { players: 2 }
state { n: int = 3 visible all "Stones left." }
flow { round { turns in seats: take } }
def left(): bool = n > 0 "Stones are left."
def measure(): int = n
phase take "Take a stone." {
  took: bool = false
  done when took or n == 0 "the player took a stone, or none is left"
  action one() "Take one." when left() {
    n = n - 1
    took = true
    if n == 0 "the heap is empty" { win [me] }
  }
}
property ends "It ends." terminates by measure() per action
'''


def test_conditions_are_shown_by_their_phrase_and_verifier_terms_are_hidden(tmp_path):
    spec = tmp_path / "g.atoll"
    spec.write_text(SMALL)
    page = players(spec)
    assert notation(page) == []
    assert "The phase ends when the player took a stone\\, or none is left." in page
    assert "Only when stones are left." in page
    assert "when the heap is empty: the player who made the move wins" in page
    assert "measure" not in page        # read by a property only
    assert "took" not in page.replace("the player took", "")   # a phase's bookkeeping
    designer = editions.designer_edition(rulebook.load(spec), editions.Context())
    assert "measure" in designer and ":atoll:`n == 0`" in designer


def test_a_phrase_after_a_condition_does_not_change_the_rules():
    plain = SMALL.replace(' "the player took a stone, or none is left"', "") \
        .replace(' "the heap is empty"', "")
    a = parse(SMALL, "g.atoll", Reporter())
    b = parse(plain, "g.atoll", Reporter())
    assert a is not None and b is not None
    assert a.items == b.items      # the phrase is a note: it takes no part in comparing rules
    ph = next(i for i in a.items if type(i).__name__ == "PhaseDecl")
    assert ph.done_notes.summary == "the player took a stone, or none is left"


# ---------------------------------------------------------------- pages and verdicts

def test_variants_get_their_own_two_editions(tmp_path):
    from atoll.docgen import site
    files = site.pages(site.discover(["spec"], ROOT), tmp_path, "games", True)
    games = site.discover(["spec"], ROOT)
    assert sum(bool(e.variants) for e in games) >= 2    # (a game need not have variants)
    for e in games:
        for v in e.variants:
            stem = f"games/{e.slug}/variants/{v.stem}"
            assert f"{v.stem}-players" in files[f"{stem}.rst"]
            assert ".. atoll-players::" in files[f"{stem}-players.rst"]
            assert ".. atoll-designer::" in files[f"{stem}-designer.rst"]
    page = players(SPEC / "variants" / "masterislands_quick.atoll")
    assert "This is the players' rulebook of the variant ``masterislands_quick``" in page
    assert notation(page) == []


def _result(prop, verdict, expected, players=2, options=None):
    from atoll.verify.verdicts import Result
    options = options or {}
    return Result(prop, "invariant", "play", players, options, verdict, expected,
                  axes=tuple(options))


def test_the_dashboard_names_its_columns_option_equals_value():
    from atoll.docgen import verdicts
    doc = rulebook.load(MASTERISLANDS)
    configs = [(2, {"mode": "standard"}, [_result("no_deadlock", "PROVED", "holds")]),
               (3, {"mode": "corsair"}, [_result("no_deadlock", "VIOLATED", "holds", 3)])]
    text = re.sub(r"\\(.)", r"\1", "\n".join(verdicts.dashboard([(doc, configs)], editions.Context())))
    assert "players=2, mode=standard" in text and "players=3, mode=corsair" in text
    assert "1 not" in text


def test_an_expected_violation_looks_different_from_an_unexpected_one():
    from atoll.sphinx import verdict_role
    [expected], _ = verdict_role("atoll-verdict", "", "VIOLATED <ok>", 0, None)
    [unexpected], _ = verdict_role("atoll-verdict", "", "VIOLATED <unexpected>", 0, None)
    [fine], _ = verdict_role("atoll-verdict", "", "PROVED <ok>", 0, None)
    assert "atoll-expected-violation" in expected["classes"]
    assert "atoll-unexpected" in unexpected["classes"]
    assert expected.astext() == "VIOLATED (as expected)"
    assert unexpected.astext() == "VIOLATED (not as expected)"
    assert fine.astext() == "PROVED" and "atoll-expected-violation" not in fine["classes"]
    css = (ROOT / "atoll" / "sphinx_static" / "atoll.css").read_text()
    assert ".atoll-expected-violation" in css and "overflow-x: auto" in css


WRONG = '''
game wrong { players: 2 }
state { n: int = 2 visible all "Stones left." }
flow { round { turns in seats: take } }
phase take "Take a stone." {
  action one() "Take one." { n = n - 1  if n == 0 { win [me] }  end phase }
}
property never_empty "The heap is never empty (it is)." invariant n > 0
'''


def test_atoll_docs_reports_an_unexpected_verdict_and_strict_fails(tmp_path):
    import subprocess
    import sys
    pytest.importorskip("sphinx")
    spec = tmp_path / "wrong.atoll"
    spec.write_text(WRONG)
    run = lambda *a: subprocess.run([sys.executable, "-m", "atoll.cli", "docs", str(spec), "-o",
                                     str(tmp_path / "site"), "--games", "3", *a],
                                    cwd=tmp_path, capture_output=True, text=True, timeout=120)
    first = run("--strict")
    said = first.stdout + first.stderr
    assert first.returncode != 0
    assert "property never_empty (2 players): VIOLATED, but the spec expects holds" in said
    again = run("--strict")      # the pages are read again: the verdict is reported again
    assert again.returncode != 0 and "never_empty" in again.stdout + again.stderr
    plain = run("--no-verify")
    assert plain.returncode == 0
    dash = re.sub(r"<[^>]+>", "", (tmp_path / "site" / "games" / "dashboard.html").read_text())
    assert "run atoll docs without --no-verify" in " ".join(dash.split())
    assert "atoll_verify" not in dash


def test_an_example_that_starts_at_a_simultaneous_choice():
    """A worked example whose position is a simultaneous choice (several
    players to act) is shown as the first of them sees it (before, the page
    asked for the view of player -2 and failed)."""
    text = players(ROOT / "tests" / "good" / "sealed_bids.atoll")
    assert "The players choose at once" in text and "Lone top bid" in text
