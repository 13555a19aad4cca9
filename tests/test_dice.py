"""Dice and picks with replacement: `roll x from C` and `dice(n, f)` (issue 18, item 1).

A roll takes one item of a collection at random, each as likely as its
copies there, and leaves the collection as it was; the chance outcomes are
the distinct items, weighted."""
from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

import atoll
from atoll.compiler import stdlib

GOOD = Path(__file__).parent / "good" / "dice_race.atoll"

SMALL = """game d { title: "D" players: 2..2 }
state { got: list[int] = [] visible all  n: int = 0 visible all }
flow { round { turns in seats: p } }
phase p {
  action go() { roll r from ⟨SOURCE⟩  got = ⟨GOT⟩  n = n + 1  end phase }
}
ending over after_turn when n >= 6 => tie
"""


def game(tmp_path, source: str, got: str = "got + [r]"):
    path = tmp_path / "d.atoll"
    path.write_text(SMALL.replace("⟨SOURCE⟩", source).replace("⟨GOT⟩", got))
    return atoll.load(path, players=2)


def outcomes(state) -> dict:
    return {a.params if hasattr(a, "params") else str(a): Fraction(p).limit_denominator(10 ** 6)
            for a, p in state.chance_outcomes()}


def test_four_dice_are_126_rolls_weighted_by_their_orders(tmp_path):
    g = game(tmp_path, "dice(4, 6)", "r")
    st = g.new_initial_state(seed=1, chance="explicit")
    st.apply_action(st.legal_actions()[0])
    assert st.is_chance_node()
    outs = st.chance_outcomes()
    assert len(outs) == 126
    probs = {str(a): Fraction(p).limit_denominator(10 ** 6) for a, p in outs}
    assert sum(probs.values()) == 1
    assert probs["chance: draw [1, 1, 1, 1]"] == Fraction(1, 1296)
    assert probs["chance: draw [1, 1, 2, 2]"] == Fraction(6, 1296)
    assert probs["chance: draw [1, 2, 3, 4]"] == Fraction(24, 1296)
    # no split advances with 6-7-8 runners: the classic count, from the same bag
    bag = stdlib.FUNCTIONS["dice"][0](4, 6)
    advances = sum(1 for r in bag if any(r[i] + r[j] in (6, 7, 8) for i in range(4) for j in range(i + 1, 4)))
    assert (len(bag), 1296 - advances) == (1296, 104)


def test_a_roll_leaves_its_collection_and_weights_copies(tmp_path):
    """From [1, 1, 2]: 1 with probability 2/3; the list is not changed, so
    the same roll can come again and again."""
    g = game(tmp_path, "[1, 1, 2]")
    st = g.new_initial_state(seed=1, chance="explicit")
    st.apply_action(st.legal_actions()[0])
    probs = {str(a): p for a, p in st.chance_outcomes()}
    assert probs == pytest.approx({"chance: draw 1": 2 / 3, "chance: draw 2": 1 / 3})
    st = g.new_initial_state(seed=5)
    while not st.is_terminal():
        st.apply_action(st.legal_actions()[0])
    got = json.loads(st.to_json())["values"][1]
    assert len(got) == 6 and set(got) <= {1, 2}


def test_a_roll_from_a_set_is_uniform_over_its_items(tmp_path):
    g = game(tmp_path, "distinct([3, 3, 3, 4])")
    st = g.new_initial_state(seed=1, chance="explicit")
    st.apply_action(st.legal_actions()[0])
    assert [p for _, p in st.chance_outcomes()] == pytest.approx([0.5, 0.5])


def test_seeded_rolls_are_repeatable_and_advance(tmp_path):
    g = game(tmp_path, "dice(1, 6)", "got + r")
    runs = []
    for _ in range(2):
        st = g.new_initial_state(seed=11)
        while not st.is_terminal():
            st.apply_action(st.legal_actions()[0])
        runs.append(json.loads(st.to_json())["values"][1])
    assert runs[0] == runs[1] and len(set(runs[0])) > 1   # the same rolls, and not one face six times


def test_a_pending_roll_saves_and_loads(tmp_path):
    g = game(tmp_path, "dice(2, 6)", "r")
    st = g.new_initial_state(seed=1, chance="explicit")
    st.apply_action(st.legal_actions()[0])
    text = st.to_json()
    back = g.state_from_json(text)
    assert back.to_json() == text and len(back.chance_outcomes()) == 21


def test_too_many_dice_is_a_model_error(tmp_path):
    g = game(tmp_path, "dice(9, 6)", "r")
    st = g.new_initial_state(seed=1)
    with pytest.raises(atoll.ModelError, match="too long"):
        st.apply_action(st.legal_actions()[0])


def test_the_dice_game_plays_verifies_and_reads(capsys):
    from atoll.cli import main
    assert main(["verify", str(GOOD), "--json"]) == 0
    rs = {r["property"]: r for r in json.loads(capsys.readouterr().out)["results"]}
    assert rs["rolls_grouped"]["verdict"] == "PROVED" and rs["rolls_grouped"]["detail"]["enumerated"] == 21
    assert rs["busts"]["verdict"] == "PROVED"
    from atoll.pygments_lexer import AtollLexer
    from pygments.token import Keyword, Name
    toks = list(AtollLexer().get_tokens("roll r from dice(4, 6)"))
    assert (Keyword, "roll") in toks and (Name.Builtin, "dice") in toks


def test_str_of_a_state_shows_a_face_down_pile_by_its_size():
    """str(state) is what a person reads: a pile nobody sees is its size."""
    g = atoll.load(Path(__file__).parent.parent / "spec" / "kanaloa.atoll", players=3)
    text = str(g.new_initial_state(seed=1))
    assert "material = 35 items, face down" in text
    assert "Opodopo" in text   # the hands (the whole state, for the designer) still show
