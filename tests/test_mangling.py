"""Generated names are injective: no two things of a spec get one Python name.

Every family of generated names (the functions of actions, phases, endings,
properties, constants, defs, state initialisers; the variants of `can`; the
locals) is built by one function of ``atoll.compiler.names``, which the
lowering and every reader of the module use. A spec whose names are chosen to
collide under a naive scheme keeps its rules: an illegal move stays illegal.
"""
from __future__ import annotations

import ast
import re

import pytest

import atoll
from atoll.compiler import names as N


def _defs(source: str) -> list[str]:
    return [n.name for n in ast.parse(source).body if isinstance(n, ast.FunctionDef)]


def _unique(source: str) -> None:
    defs = _defs(source)
    dup = sorted({d for d in defs if defs.count(d) > 1})
    assert not dup, f"defined twice: {dup}"


# `can(b)` asked after an effect that sets `flag` is answered by a variant of
# can(b) where flag = true. Under the old naming (can_b and can_b_1 for the
# variant) it took the name of the test of action `b_1`, and the later
# definition won: `c`, which needs can(b_1), became legal though b_1 never is.
CAN_CLASH = """
game g { title: "G" players: 2..2 }
state { flag: bool = false  x: int = 0 }
flow { round { turns in seats: p } }
phase p {
  action a() when not flag ensures can(b) { flag = true }
  action b() when flag and x >= 0 { x = x + 1 }
  action b_1() when false { x = x + 1 }
  action c() when can(b_1) { x = x + 50 }
  action d() when flag { x = x + 1  end phase }
}
ending over immediately when x >= 3 => tie
"""


def test_can_variant_does_not_take_the_name_of_another_action(tmp_path):
    path = tmp_path / "g.atoll"
    path.write_text(CAN_CLASH)
    comp = atoll.compile_spec(path)
    _unique(comp.source)
    _unique(atoll.load(path, players=2).source)   # the module specialised for one game too
    game = atoll.load(path, players=2)
    state = game.new_initial_state(0)
    for _ in range(6):
        if state.is_terminal():
            break
        legal = {a.kind for a in state.legal_actions()}
        assert "c" not in legal and "b_1" not in legal, legal
        state.apply_action(state.legal_actions()[0])


# Names that collide under schemes of the form PREFIX_NAME_SUFFIX: the same
# text can be read as (name, suffix) in two ways.
TRICKY = ["b", "b_1", "b_2", "gen", "b_gen", "gen_b", "enter_p", "p_enter", "p", "post", "b_post",
          "b_post_1", "ok", "b_ok", "done_p", "p_done", "why", "b_why", "choices", "b_choices",
          "effect", "b_effect", "ensures_b", "b_ensures", "repeat_p", "p_repeat", "auto_p", "p_auto"]


def clash_spec(k: int) -> str:
    """Two phases and their actions, endings, properties, constants and defs,
    named from TRICKY from position ``k`` on; each action is legal once."""
    n = (TRICKY[k:] + TRICKY[:k])
    ph1, ph2 = n[0], n[1]
    acts = n[2:8]
    lines = ['game g { title: "G" players: 2..2 }',
             "state { x: int = 0  done_flags: set[int] = distinct([]) }",
             f"flow {{ round {{ turns in seats: {ph1}, {ph2} }} }}"]
    for i, (c, d) in enumerate(zip(n[8:11], n[11:14])):
        lines.append(f"const {c}: int = {i + 1}")
        lines.append(f"def {d}(v: int): int = v + {c}")
    for ph, group in ((ph1, acts[:3]), (ph2, acts[3:])):
        body = []
        for j, a in enumerate(group):
            tag = acts.index(a)
            guard = f"when not ({tag} in done_flags)"
            if j == 0:   # asks can() of its neighbours after setting the flag: variants of can
                guard += f" ensures can({group[1]}) or can({group[2]}) or true"
            body.append(f"  action {a}() {guard} {{ done_flags = done_flags + {{{tag}}}  x = x + 1 }}")
        body.append(f"  action {ph}_{'stop'}() when {n[11]}(0) > 0 {{ end phase }}")
        lines.append(f"phase {ph} {{\n" + "\n".join(body) + "\n}")
    for e in n[15:18]:
        lines.append(f"ending {e} immediately when x >= 99 => tie")
    lines.append(f"ending {n[18]} after_round when current_round >= 2 => tie")
    for q in n[19:22]:
        lines.append(f"property {q} invariant x <= 6")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("k", range(0, len(TRICKY), 3))
def test_tricky_names_keep_every_rule(tmp_path, k):
    path = tmp_path / "g.atoll"
    path.write_text(clash_spec(k))
    comp = atoll.compile_spec(path)
    _unique(comp.source)
    game = atoll.load(path, players=2)
    _unique(game.source)
    # every action is taken at most once per game: the guards are the spec's own
    state = game.new_initial_state(0)
    taken = []
    while not state.is_terminal() and len(taken) < 50:
        a = state.legal_actions()[0]
        taken.append(a.kind)
        state.apply_action(a)
    plain = [t for t in taken if not t.endswith("_stop")]
    assert len(plain) == len(set(plain)), taken
    assert state.is_terminal()


def test_each_family_is_injective():
    """Every spec name of every family gives a distinct Python name, and no
    generated name of a spec can be a fixed name of the module."""
    sample = ["a", "b", "a_1", "b_1", "a_b", "a__b", "b_", "gen_a", "a_gen", "post_1", "x1",
              "enter", "p_enter", "can_a", "k_a", "A", "S", "me", "l_x"]
    seen: dict[str, tuple] = {}
    families = [(k, f, (name,)) for k, f in N.SPEC_FAMILIES.items() for name in sample]
    families += [("can_variant", N.can_variant, (name, i)) for name in sample for i in (1, 2, 12)]
    families += [("post_variant", N.action_post_variant, (name, i)) for name in sample for i in (1, 2, 12)]
    for family, fn, args in families:
        py = fn(*args)
        assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", py), py
        key = (family, args)
        assert py not in seen or seen[py] == key, f"{py}: {seen.get(py)} and {key}"
        seen[py] = key
        assert py not in N.FIXED, py
        assert not any(py == f"{stem}{i}" for stem in ("_t", "_d", "_v", "_k", "_h") for i in range(50))


def test_the_emitter_refuses_a_second_definition_of_a_name(tmp_path):
    from atoll.compiler.lower import Lowerer
    path = tmp_path / "g.atoll"
    path.write_text(CAN_CLASH)
    lw = Lowerer(atoll.compile_spec(path).program)
    lw.define("can_x")
    with pytest.raises(AssertionError, match="can_x"):
        lw.define("can_x")


def test_names_are_read_back_through_the_same_functions(tmp_path):
    """The runtime finds each action's and phase's functions by the family functions."""
    path = tmp_path / "g.atoll"
    path.write_text(clash_spec(0))
    game = atoll.load(path, players=2)
    for a in game.actions:
        for role in N.ACTION_ROLES:
            assert N.action(role, a.name) in game.ns or role in N.OPTIONAL_ACTION_ROLES
    for ph in game.phases:
        for role in N.PHASE_ROLES:
            assert N.phase(role, ph) in game.ns or role in N.OPTIONAL_PHASE_ROLES
