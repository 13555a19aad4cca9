"""A worked example gives the choices made inside an effect: `play act(),
choose x = v` (a `choose` of the rules, or an optional trigger by its
name). A wrong value, a missing choice, a choice nobody waits for and an
unknown choice name each fail or are diagnosed."""
from __future__ import annotations

import pytest

from atoll.compiler import pipeline
from atoll.verify.examples import run_example
from helpers import ROOT

GOOD = ROOT / "tests" / "good"

BASE = (GOOD / "harvest_procs.atoll").read_text()


def _spec(tmp_path, example: str):
    p = tmp_path / "harvest.atoll"
    p.write_text(BASE + "\n" + example)
    return p


def _run(tmp_path, example: str):
    comp = pipeline.compile_spec(_spec(tmp_path, example))
    ex = next(iter(comp.program.examples.values()))
    return run_example(comp, ex)


GOOD_EXAMPLE = """
example watered "A harvest waits for two choices: the player waters, the next player sends the crow."
  with 2 players
{
  given player 0 in work { fields[0] = {wheat: 1, corn: 0, beet: 0} }
  play harvest(), choose w = wheat, choose eaten = wheat by 1
  expect points[0] == 2
  expect compost[0] == [wheat]
}
"""


def test_an_example_makes_the_choices_inside_an_effect(tmp_path):
    run = _run(tmp_path, GOOD_EXAMPLE)
    assert run.failure is None, run.failure
    assert run.ok


def test_a_wrong_choice_a_wrong_chooser_and_a_missing_choice_fail(tmp_path):
    wrong_player = GOOD_EXAMPLE.replace("choose eaten = wheat by 1", "choose eaten = wheat by 0")
    run = _run(tmp_path, wrong_player)
    assert run.failure and "not player 0" in run.failure["actual"]
    missing = GOOD_EXAMPLE.replace(", choose eaten = wheat by 1", "")
    run = _run(tmp_path, missing)
    assert run.failure and "waits for player 1 to choose `eaten`" in run.failure["actual"]
    assert "choose eaten = VALUE" in run.failure["actual"]
    order = GOOD_EXAMPLE.replace("choose w = wheat, choose eaten", "choose eaten = wheat by 1, choose w")
    run = _run(tmp_path, order)
    assert run.failure and "is choosing `w`, not `eaten`" in run.failure["actual"]
    early = GOOD_EXAMPLE.replace("play harvest(), choose w", "play choose w")
    run = _run(tmp_path, early)
    assert run.failure and "no choice is awaited now" in run.failure["actual"]
    expected = GOOD_EXAMPLE.replace("expect points[0] == 2", "expect points[0] == 3")
    assert not _run(tmp_path, expected).ok


def test_an_unknown_choice_or_a_value_of_another_type_is_diagnosed(tmp_path):
    from atoll.compiler.pipeline import SpecError
    for bad, code, says in [("choose eatn = wheat by 1", "A0101", "did you mean"),
                            ("choose eaten = 3 by 1", "A0103", "choice `eaten`")]:
        with pytest.raises(SpecError) as e:
            pipeline.compile_spec(_spec(tmp_path, GOOD_EXAMPLE.replace("choose eaten = wheat by 1", bad)))
        d = e.value.diagnostics[0]
        assert d.code == code
        assert says in (d.message + " " + (d.hint or "")).lower()


TWO_CHOICES = """
game two { players: 2 }
state { player n: int = 0 visible all }
phase go {
  action left() { choose a: int in [1, 2] by me  n[me] = n[me] + a  end turn }
  action right() { choose b: int in [3, 4] by me  n[me] = n[me] + b  end turn }
}
flow { round { turns in players: go } }
ending over after_round when current_round >= 3 => rank p by n[p]
"""


def test_a_choice_has_the_same_action_id_whichever_choice_a_game_met_first(tmp_path):
    """The rule of a choice is indexed by its place in the spec, not by the
    order in which one game object happened to meet the choices (seeded
    play, digests and saves would otherwise depend on what ran before)."""
    import atoll
    p = tmp_path / "two.atoll"
    p.write_text(TWO_CHOICES)

    def ids(first: str) -> dict:
        g = atoll.load(p, players=2)
        st = g.new_initial_state(seed=0)
        out = {}
        for kind in (first, "left" if first == "right" else "right"):
            st.apply_action(next(a for a in st.legal_actions() if a.kind == kind))
            out.update({(a.kind, a.params): a.id for a in st.legal_actions()})
            st.apply_action(st.legal_actions()[0])
        return out
    assert ids("left") == ids("right")
