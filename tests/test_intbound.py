"""The bound on ints: a rule that makes an int of the state past 10**18
stops with ``ModelError`` naming the step (and its rulebook section), the
state unchanged; saving never fails. The run-time test is only where an int
can grow (``atoll.compiler.intbound``), so each way a computed int can reach
the state has a case here."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import atoll
from atoll.compiler import savegame, stdlib
from atoll.compiler.values import INT_BOUND

GROW = Path(__file__).parent / "runtime" / "int_growth.atoll"


@pytest.fixture(scope="module")
def grow():
    return atoll.load(GROW, players=2)


def _all_within(state) -> bool:
    g = state.game
    return all(state.S[i] is None or ok(state.S[i]) for i, ok in g._int_slots)


# (action played again and again, the step the error names, its citation, the variable)
CASES = [
    ("square", "action `square`", "Squaring", "n"),
    ("via_let", "action `via_let`", "Let", "n"),
    ("via_def", "action `via_def`", None, "n"),
    ("via_def_param", "action `via_def_param`", None, "n"),
    ("via_param", "action `via_param`", None, "n"),
    ("via_for", "action `via_for`", None, "n"),
    ("via_record", "action `via_record`", "Records", "spot"),
    ("via_map_key", "action `via_map_key`", None, "marks"),
    ("via_list", "action `via_list`", None, "xs"),
    ("via_sum", "action `via_sum`", None, "total"),
    ("via_if", "action `via_if`", None, "n"),
    ("via_pos", "action `via_pos`", None, "where"),
    ("via_player", "action `via_player`", None, "pts"),
    ("via_const", "action `via_const`", None, "n"),
    ("via_match", "action `via_match`", None, "n"),
    ("via_map_value", "action `via_map_value`", None, "counts"),
    ("via_enter", "entering phase `after`", "After", "n"),
]


@pytest.mark.parametrize("kind, step, cite, var", CASES, ids=[c[0] for c in CASES])
def test_a_rule_that_grows_an_int_past_the_bound_stops_with_its_name(grow, kind, step, cite, var):
    s = grow.new_initial_state(seed=0)
    for _ in range(200):
        legal = s.legal_actions()
        a = next((a for a in legal if a.kind == kind), None) or legal[0]
        before = s.to_json()
        try:
            s.apply_action(a)
        except atoll.ModelError as e:
            msg = str(e)
            assert msg.startswith(f"evaluating {step}") and f"`{var}` holds an int past the bound" in msg, msg
            assert (f"(rulebook: {cite})" in msg) if cite else "rulebook" not in msg, msg
            assert s.to_json() == before        # the state is unchanged
            return
        assert _all_within(s), "an int past the bound got into the state without an error"
        json.loads(s.to_json())
    pytest.fail(f"{kind} never passed the bound")


def test_the_setup_past_the_bound_is_named(tmp_path):
    p = tmp_path / "big_setup.atoll"
    p.write_text(GROW.read_text().replace("flow {", "setup { n = 1000000000 * 1000000000 }\n\nflow {"))
    g = atoll.load(p, players=2)
    with pytest.raises(atoll.ModelError, match=r"evaluating the setup: `n` holds an int past the bound"):
        g.new_initial_state(seed=0)


def test_only_what_can_grow_is_tested_after_an_action(grow):
    mi = atoll.load(Path(__file__).parent.parent / "spec" / "masterislands.atoll", players=2)
    names = [mi.layout.names[i] for i, _ in mi._int_watch]
    assert "pile" not in names and "hand" not in names and "board" not in names   # cards and places are copies
    assert "idle" in names                                                        # a counter
    assert {grow.layout.names[i] for i, _ in grow._int_watch} == {
        "n", "spot", "marks", "xs", "total", "where", "pts", "counts"}


def test_neighbours_of_a_position_at_the_edge_are_refused():
    edge = INT_BOUND - 1
    for f in (stdlib._orth, stdlib._around):
        with pytest.raises(stdlib.EvalError, match="past the bound"):
            f((edge, 0))
        assert f((3, -4))


def test_saving_a_state_past_the_bound_is_a_model_error_not_a_crash(grow):
    s = grow.new_initial_state(seed=0)
    s.S[grow.layout.names.index("n")] = 10 ** 5000      # only code that bypasses the rules can do this
    with pytest.raises(atoll.ModelError, match="`n` holds an int past the bound"):
        s.to_json()


def test_data_past_the_bound_is_refused(tmp_path):
    (tmp_path / "d.json").write_text('{"v": 10000000000000000000}')
    (tmp_path / "g.atoll").write_text(GROW.read_text().replace(
        "const huge", 'data big: int from "d.json" key "v"\n\nconst huge'))
    with pytest.raises(atoll.SpecError, match="past the bound"):
        atoll.load(tmp_path / "g.atoll", players=2)


def test_action_ids_too_long_for_a_json_int_are_saved_in_hexadecimal(tmp_path):
    long = "x" * 3000       # a parameter of 3,000 bytes: an id of about 7,000 digits
    p = tmp_path / "long.atoll"
    p.write_text(f'game talk {{ players: 2..2 }}\nconst line: str = "{long}"\n'
                 "state { said: int = 0 visible all }\n"
                 "flow { round { turns in seats: speak } }\n"
                 "phase speak { action say(s: str in [line]) { said = said + 1  end phase } }\n")
    g = atoll.load(p, players=2)
    s = g.new_initial_state(seed=0)
    s.apply_action(s.legal_actions()[0])
    assert s.history[0].bit_length() > savegame.HEX_BITS
    text = s.to_json()
    assert json.loads(text)["history"][0].startswith("0x")
    assert g.state_from_json(text) == s
