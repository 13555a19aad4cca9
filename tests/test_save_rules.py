"""One corrupt save per validation rule of ``state_from_json``, each refused
by the rule itself, before the history is replayed.

tests/test_saves.py checks that a damaged save is refused with the right
field named; but a save refused by one check is often refused by a later one
too (replaying the history finds a hand of the wrong length as surely as the
type check does), so a lost check would go unseen there. Here each case is
decoded without the replay (``savegame.parse`` and ``savegame.decode``) and
must give its rule's own reason; ``test_every_rule_has_a_case`` reads the
rules from the code, so a new rule needs its case.
"""
from __future__ import annotations

import inspect
import json
import re
from pathlib import Path

import pytest

import atoll
from atoll.compiler import savegame, values
from test_saves import game, save, setv, slot

TUPLES = Path(__file__).parent / "good" / "tuples.atoll"
_tuples = {}


def tuples_save() -> dict:
    if not _tuples:
        g = atoll.load(TUPLES, players=2)
        s = g.new_initial_state(seed=2)
        s.apply_action(s.legal_actions()[0])
        _tuples["game"], _tuples["save"] = g, s.to_json()
    return json.loads(_tuples["save"])


def _hand0(d):
    return d["values"][slot("mi", "hand")][0]


def _no_players(d):
    d["control"][2] = 0      # the first slot, so that the slot is in range whatever the players
    d["control"][4] = []


def _pending(**kw):
    return lambda d: d.update(pending={**{"action": None, "outcomes": [], "bag": [], "type": "int"}, **kw})


def text(damage):
    """A damage that gives the text to load instead of changing the save."""
    damage.gives_text = True
    return damage


def damaged_text(kind, damage):
    d = tuples_save() if kind == "tu" else save(kind)
    out = damage(d)
    return out if getattr(damage, "gives_text", False) else json.dumps(d)


# (save, the rule's reason (regex), the field it names (regex; None: the whole text), damage).
# The damage changes the save in place, or (``text``) gives the text to load instead.
RULES = [
    ("mi", r"expected the text of a saved game", None, text(lambda d: 5)),
    ("mi", r"the key appears twice in one object", "format",
     text(lambda d: '{"format": "atoll-state/1", "format": "atoll-state/1"}')),
    ("mi", r"the JSON is nested too deeply", None, text(lambda d: "[" * 100_000 + "]" * 100_000)),
    ("mi", r"not valid JSON", None, text(lambda d: json.dumps(d)[:-3])),
    ("mi", r"expected a JSON object, found list", None, text(lambda d: "[]")),
    ("mi", r"expected 'atoll-state/1', found", "format", lambda d: d.update(format="atoll-state/0")),
    ("mi", r"not a field of the format", "extra", lambda d: d.update(extra=1)),
    ("mi", r"missing \(every field", "rng", lambda d: d.pop("rng")),
    ("mi", r"expected 16 hexadecimal digits", "checksum", lambda d: d.update(checksum="XYZ")),
    ("mi", r"this save is of the game", "game", lambda d: d.update(game="Other")),
    ("mi", r"this save is of a game with 3 players", "players", lambda d: d.update(players=3)),
    ("mi", r"this save was played with the options", "options", lambda d: d["options"].update(mode="corsair")),
    ("mi", r"expected a list of \d+ items, found", "values", lambda d: d["values"].pop()),
    ("mi", r"expected a list, found", "control", lambda d: d.update(control=7)),
    ("mi", r"expected an int \(a seat\), found", r"control\[4\]\[0\]", lambda d: d["control"][4].__setitem__(0, "0")),
    ("mi", r"is out of range \(a round of the flow\)", r"control\[0\]", lambda d: d["control"].__setitem__(0, 99)),
    ("mi", r"expected true or false, found", r"control\[5\]", lambda d: d["control"].__setitem__(5, 0)),
    ("mi", r"no player is in the stage", r"control\[4\]", _no_players),
    ("mi", r"a state variable always has a value", r"values\.board", setv("mi", "board", None)),
    ("mi", r"is not an ending of this game", r"outcome\[0\]", lambda d: d.update(outcome=["nowhere", []])),
    ("mi", r"the winners must be distinct seats", r"outcome\[1\]", lambda d: d.update(outcome=["stalled", [1, 0]])),
    ("mi", r"is out of range \(a seat\)", r"outcome\[1\]\[0\]", lambda d: d.update(outcome=["stalled", [7]])),
    ("mi", r"is out of range \(the seed\)", r"rng\[0\]", lambda d: d["rng"].__setitem__(0, -1)),
    ("mi", r"expected \"auto\" or \"explicit\"", "chance", lambda d: d.update(chance="sometimes")),
    ("mi", r"expected an action id \(a natural number\)", r"history\[1\]", lambda d: d["history"].__setitem__(1, -5)),
    ("mi", r"only a game with explicit chance waits", "pending", _pending()),
    ("mi_chance", r"a finished game waits for no chance outcome", "pending",
     lambda d: d.update(outcome=["stalled", [0]])),
    ("mi_chance", r"expected an object, found", "pending", lambda d: d.update(pending="soon")),
    ("mi_chance", r"not a field of a pending chance event", r"pending\.when", lambda d: d["pending"].update(when=1)),
    ("mi_chance", r"^.*missing", r"pending\.type", lambda d: d["pending"].pop("type")),
    ("mi_chance", r"this game has no enum", r"pending\.type", lambda d: d["pending"].update(type=["enum", "Nope"])),
    ("mi_chance", r"expected a value type", r"pending\.type", lambda d: d["pending"].update(type=5)),
    ("mi_chance", r"a maybe cannot hold a maybe", r"pending\.type",
     lambda d: d["pending"].update(type=["maybe", ["maybe", "int"]])),
    ("mi_chance", r"expected one type per outcome \(\d+\), found \d+", r"pending\.outcome_types",
     lambda d: d["pending"].update(outcome_types=[d["pending"]["type"]] * (len(d["pending"]["outcomes"]) + 1))),
    ("mi_chance", r"a chance event draws from a bag that is not empty", r"pending\.bag",
     lambda d: d["pending"].update(bag=[])),
    ("mi_chance", r"expected one type per outcome", r"pending\.outcome_types",
     lambda d: d["pending"].update(outcome_types=[d["pending"]["type"]] * (len(d["pending"]["outcomes"]) + 1))),
    ("mi_chance", r"a maybe cannot hold a maybe", r"pending\.type",
     lambda d: d["pending"].update(type=["maybe", ["maybe", "int"]])),
    ("ka_setup", r"no action can wait for chance while the setup", r"pending\.action",
     lambda d: d["pending"].update(action=d["history"][0])),
    # the values, by type (atoll.compiler.values.ValueCodec.from_json)
    ("mi", r"expected one value per player \(2\), found 1", r"values\.hand", setv("mi", "hand", lambda h: h[:1])),
    ("mi", r"expected one value per player \(2\), found 3", r"values\.hand", setv("mi", "hand", lambda h: h + [[]])),
    ("mi", r"expected an int, found", r"values\.idle", setv("mi", "idle", True)),
    ("mi", r"is past the bound of ints", r"values\.hand\[0\]\[0\]\.value",
     lambda d: _hand0(d)[0].update(value=10**30)),
    ("mi", r"is not a member of Colour", r"values\.hand\[0\]\[0\]\.colour",
     lambda d: _hand0(d)[0].update(colour="mauve")),
    ("mi", r"expected a Card with fields", r"values\.hand\[0\]\[0\]", lambda d: _hand0(d)[0].pop("value")),
    ("mi", r"expected a list of \[key, value\] pairs", r"values\.board", setv("mi", "board", [[1]])),
    ("mi", r"expected a list, found dict", r"values\.pile", setv("mi", "pile", {})),
    ("ka", r"expected a string, found", r"values\.display\[0\]", setv("ka", "display", lambda x: [3] + x[1:])),
    ("ka", r"expected true or false, found", r"values\.choosing", setv("ka", "choosing", 1)),
    ("tu", r"expected a tuple: a list of 2 items", r"values\.at\[0\]",
     lambda d: d["values"][_tuples["game"].layout.names.index("at")].__setitem__(0, [1, 2, 3])),
]


def _game(kind):
    return _tuples["game"] if kind == "tu" else game({"mi_chance": "mi", "ka_setup": "ka"}.get(kind, kind))


def refuse(kind, damage) -> atoll.CorruptState:
    text = damaged_text(kind, damage)
    g = _game(kind)
    with pytest.raises(atoll.CorruptState) as e:
        savegame.decode(g, savegame.parse(g, text))
    return e.value


@pytest.mark.parametrize("kind,reason,field,damage", RULES, ids=[f"{r[0]}: {r[1]}" for r in RULES])
def test_each_rule_refuses_its_damage(kind, reason, field, damage):
    e = refuse(kind, damage)
    assert re.search(reason, str(e)), f"refused for another reason: {e}"
    if field is None:
        assert e.field is None, e.field
    else:
        assert e.field is not None and re.fullmatch(field, e.field), (e.field, str(e))
    # and state_from_json, which runs the same checks first, refuses it the same way
    with pytest.raises(atoll.CorruptState) as full:
        _game(kind).state_from_json(damaged_text(kind, damage))
    assert full.value.field == e.field and str(full.value) == str(e)


def _rules_in_code() -> list[str]:
    """The fixed words of each reason a save is refused for before replaying it."""
    fns = [savegame.parse, savegame.decode, savegame._int, savegame._bool, savegame._list,
           savegame._action_id, savegame._type, values.ValueCodec.from_json]
    out = []
    for fn in fns:
        for m in re.finditer(r'(?:CorruptState|bad)\(\s*f?"((?:[^"\\]|\\.)*)"', inspect.getsource(fn)):
            words = max(re.split(r"\{[^}]*\}", m.group(1)), key=len).strip()
            if words.startswith("no value has the type"):   # types come from the game, never the save
                continue
            out.append(words.replace('\\"', '"'))
    return out


def test_every_rule_has_a_case():
    rules = _rules_in_code()
    assert len(rules) >= 35, rules
    messages = [str(refuse(kind, damage)) for kind, _, _, damage in RULES]
    missing = [r for r in rules if not any(r in m for m in messages)]
    assert not missing, f"validation rules of state_from_json without a case here: {missing}"
