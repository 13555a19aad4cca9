"""Saved games: the format ``atoll-state/1``, written by ``State.to_json``
and read by ``Game.state_from_json``.

A save is one JSON object with exactly these fields: ``format``, ``game``,
``players``, ``options``, ``values`` (the state variables, then the phase
variables, as ``ValueCodec.to_json`` writes them), ``control`` (where the
flow is), ``outcome``, ``rng`` (the seed and the number of draws made),
``chance`` (``"auto"`` or ``"explicit"``), ``history`` (every action applied
since the start, chance outcomes included), ``pending`` (the chance event a
state of ``chance="explicit"`` waits for: the action, the outcomes the step
has taken so far, the bag and its item type, and ``outcome_types`` when an
earlier draw of the step took items of another type) and ``checksum``.

What loading promises: a save either loads as a state the rules reach, equal
to the one saved, or is refused with ``CorruptState`` whose ``field`` names
the first bad field (``values.hand[0][2].value``, ``control[4]``,
``history[17]``) and whose message gives the reason. It works in three
steps:

1. the text must be one JSON object, each key once, with every field above
   and no other, of this game, player count and options;
2. every field is checked for its type and range (the values against their
   declared types, one per player where the variable is per player, every
   int within ``INT_BOUND``);
3. the checksum must match (it catches accidental damage), and then the
   history is replayed from the seed and the result must equal the save in
   every field. This last step is the defence against a save edited on
   purpose: a position no sequence of legal actions reaches cannot load,
   whatever its checksum.

A save always holds its complete history (a state changes only through
``apply_action``, which records it), so the replay always applies; the one
part the history does not fix is the number of calls of ``sample_chance()``
of a state with explicit chance, which may be any natural number. Loading
never changes the caller's text, and what loads saves again to the same JSON.
"""
from __future__ import annotations

import hashlib
import json
from typing import Optional

from atoll.compiler.values import INT_BOUND, BadValue, shown

FORMAT = "atoll-state/1"
FIELDS = ("format", "game", "players", "options", "values", "control", "outcome", "rng", "chance",
          "history", "pending", "checksum")
PENDING_FIELDS = ("action", "bag", "outcomes", "type")
_MASK = (1 << 64) - 1
#: Action ids longer than this many bits are written as hexadecimal strings
#: (``"0x..."``): a JSON int past 4,300 digits is more than Python writes.
HEX_BITS = 12_000
#: Integers of more digits than this are refused while parsing (Python's own
#: limit is 4,300); the field they are in is named after parsing.
_DIGITS = 4_000


class CorruptState(ValueError):
    """A saved game that cannot be loaded. ``field`` names the first bad
    field (None when the text is no saved game at all); the message gives
    it and the reason."""

    def __init__(self, reason: str, field: Optional[str] = None):
        self.field, self.reason = field, reason
        super().__init__(f"saved game, field `{field}`: {reason}" if field is not None
                         else f"not a saved game: {reason}")


class _TooLong:
    """An integer of the text with too many digits to convert."""
    __slots__ = ("digits",)

    def __init__(self, digits: int):
        self.digits = digits

    def __repr__(self) -> str:
        return f"an integer of {self.digits} digits"


class _TwiceKey(Exception):
    pass


def _parse_int(text: str):
    digits = len(text.lstrip("-"))
    return int(text) if digits <= _DIGITS else _TooLong(digits)


def _pairs(pairs):
    d = {}
    for k, v in pairs:
        if k in d:
            raise _TwiceKey(k)
        d[k] = v
    return d


def _no_constant(name):
    raise ValueError(f"{name} is not a JSON number")


def checksum(body: dict) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:16]


def id_to_json(aid):
    return aid if aid is None or aid.bit_length() <= HEX_BITS else hex(aid)


def type_to_json(t):
    return t if isinstance(t, str) else [type_to_json(x) for x in t]


# ------------------------------------------------------------------ writing

def state_to_data(game, st) -> dict:
    from atoll.compiler.runtime import ModelError
    codec, names = game.codec, game.layout.names
    for i, ok in game._int_slots:
        if st.S[i] is not None and not ok(st.S[i]):
            raise ModelError(f"`{names[i]}` holds an int past the bound of ints (|n| < 10**18); "
                             "the state cannot be saved")
    body = {
        "format": FORMAT, "game": game.title, "players": game.num_players,
        "options": game.options,
        "values": [st.S[0]] + [None if st.S[i] is None else codec.to_json(game.slot_types[i], st.S[i])
                               for i in range(1, len(st.S))],
        "control": [st.ctl[0], st.ctl[1], st.ctl[2], st.ctl[3], list(st.ctl[4]), st.ctl[5], st.ctl[6]],
        "outcome": None if st.outcome is None else [st.outcome[0], list(st.outcome[1])],
        "rng": list(st.rng), "chance": st.chance_mode,
        "history": [id_to_json(h) for h in st.history],
        "pending": None if st.pending is None else {
            "action": id_to_json(st.pending[0]),
            "outcomes": [codec.to_json(t, o) for t, o in zip(st.pending[4], st.pending[1])],
            "bag": codec.to_json(("bag", st.pending[3]), st.pending[2]),
            "type": type_to_json(st.pending[3])},
    }
    if st.pending is not None and any(t != st.pending[3] for t in st.pending[4]):
        # earlier draws of the same step took items of other types
        body["pending"]["outcome_types"] = [type_to_json(t) for t in st.pending[4]]
    body["checksum"] = checksum(body)
    return body


# ------------------------------------------------------------------ reading

def load(game, text) -> "State":  # noqa: F821
    """``Game.state_from_json``: see the module documentation."""
    d = parse(game, text)
    decode(game, d)
    body = {k: v for k, v in d.items() if k != "checksum"}
    if d["checksum"] != checksum(body):
        raise CorruptState("the save was changed or damaged: its checksum does not match", "checksum")
    return replay(game, d)


def parse(game, text) -> dict:
    """Step 1: one JSON object with the fields of the format, of this game."""
    if not isinstance(text, (str, bytes, bytearray)):
        raise CorruptState(f"expected the text of a saved game, found {type(text).__name__}")
    try:
        d = json.loads(text, object_pairs_hook=_pairs, parse_int=_parse_int, parse_constant=_no_constant)
    except _TwiceKey as e:
        raise CorruptState("the key appears twice in one object", str(e.args[0])) from None
    except RecursionError:
        raise CorruptState("the JSON is nested too deeply") from None
    except ValueError as e:
        raise CorruptState(f"not valid JSON ({shown(str(e))})") from None
    if not isinstance(d, dict):
        raise CorruptState(f"expected a JSON object, found {type(d).__name__}")
    if d.get("format") != FORMAT:
        raise CorruptState(f"expected {FORMAT!r}, found {shown(d.get('format'))}", "format")
    for k in d:
        if k not in FIELDS:
            raise CorruptState(f"not a field of the format {FORMAT}", k)
    for k in FIELDS:
        if k not in d:
            raise CorruptState(f"missing (every field of {FORMAT} is required)", k)
    c = d["checksum"]
    if not (isinstance(c, str) and len(c) == 16 and all(ch in "0123456789abcdef" for ch in c)):
        raise CorruptState(f"expected 16 hexadecimal digits, found {shown(c)}", "checksum")
    if d["game"] != game.title:
        raise CorruptState(f"this save is of the game {shown(d['game'])}, not {game.title!r}", "game")
    if d["players"] != game.num_players or type(d["players"]) is not int:
        raise CorruptState(f"this save is of a game with {shown(d['players'])} players; this game has "
                           f"{game.num_players} players", "players")
    if d["options"] != game.options or not _same_json(d["options"], game.options):
        raise CorruptState(f"this save was played with the options {shown(d['options'])}, not "
                           f"{game.options}", "options")
    return d


def _same_json(a, b) -> bool:
    """Equal as JSON: 1 and true (and 1 and 1.0) differ."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same_json(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same_json(x, y) for x, y in zip(a, b))
    return a == b


def _int(j, field: str, low: int, high: int, what: str = "") -> int:
    if type(j) is not int:
        raise CorruptState(f"expected an int{what}, found {shown(j)}", field)
    if not low <= j < high:
        raise CorruptState(f"{j} is out of range{what}: expected {low} to {high - 1}", field)
    return j


def _bool(j, field: str) -> bool:
    if type(j) is not bool:
        raise CorruptState(f"expected true or false, found {shown(j)}", field)
    return j


def _list(j, field: str, length: Optional[int] = None) -> list:
    if not isinstance(j, list):
        raise CorruptState(f"expected a list, found {shown(j)}", field)
    if length is not None and len(j) != length:
        raise CorruptState(f"expected a list of {length} items, found {len(j)}", field)
    return j


def _action_id(j, field: str) -> int:
    """An action id: a natural number, written in hexadecimal when long."""
    if isinstance(j, str) and j.startswith("0x") and len(j) > 2 \
            and all(ch in "0123456789abcdef" for ch in j[2:]):
        v = int(j, 16)
        if v.bit_length() > HEX_BITS and hex(v) == j:
            return v
    if type(j) is not int or j < 0 or (j.bit_length() > HEX_BITS):
        raise CorruptState(f"expected an action id (a natural number), found {shown(j)}", field)
    return j


def _type(game, j, field: str):
    """A value type as the save writes it, known to this game."""
    codec = game.codec
    if j in ("int", "bool", "str"):
        return j
    if isinstance(j, list) and len(j) == 2 and j[0] in ("enum", "record") and isinstance(j[1], str):
        if j[1] in (codec.enums if j[0] == "enum" else codec.records):
            return (j[0], j[1])
        raise CorruptState(f"this game has no {j[0]} {shown(j[1])}", field)
    if isinstance(j, list) and len(j) == 2 and j[0] in ("list", "set", "bag"):
        return (j[0], _type(game, j[1], field))
    if isinstance(j, list) and len(j) == 2 and j[0] == "maybe":
        inner = _type(game, j[1], field)
        if isinstance(inner, tuple) and inner[0] == "maybe":
            raise CorruptState("a maybe cannot hold a maybe", field)
        return ("maybe", inner)
    if isinstance(j, list) and len(j) == 3 and j[0] == "map":
        return ("map", _type(game, j[1], field), _type(game, j[2], field))
    if isinstance(j, list) and len(j) >= 3 and j[0] == "tuple":
        return ("tuple",) + tuple(_type(game, x, field) for x in j[1:])
    raise CorruptState(f"expected a value type, found {shown(j)}", field)


def _value(game, t, j, field: str):
    try:
        return game.codec.from_json(t, j, field, players=game.num_players)
    except BadValue as e:
        raise CorruptState(e.reason, e.where) from None


def decode(game, d: dict):
    """Step 2: every field checked for its type and range; the state they
    describe (not replayed: it may be one the rules never reach)."""
    from atoll.compiler.runtime import State
    st = State(game)
    n = game.num_players
    names = game.layout.names
    vals = _list(d["values"], "values", len(game.slot_types))
    first_phase_slot = 1 + len(game.info["state_vars"])
    S = [_int(vals[0], f"values.{names[0]}", 0, INT_BOUND)]
    for i in range(1, len(vals)):
        if vals[i] is None:
            if i < first_phase_slot:
                raise CorruptState("a state variable always has a value (null is only for the "
                                   "variables of a phase the game is not in)", f"values.{names[i]}")
            S.append(None)
        else:
            S.append(_value(game, game.slot_types[i], vals[i], f"values.{names[i]}"))
    st.S = S

    pend = d["pending"]
    waits = pend is not None
    over = d["outcome"] is not None
    c = _list(d["control"], "control", 7)
    rounds = game.rounds
    rd = _int(c[0], "control[0]", 0, len(rounds), " (a round of the flow)")
    stages = rounds[rd]
    stage = _int(c[1], "control[1]", 0, len(stages) + over, " (a stage of the round)")
    players = _list(c[4], "control[4]")
    for k, p in enumerate(players):
        _int(p, f"control[4][{k}]", 0, n, " (a seat)")
    # a `turns round` stage counts the turns taken in it, any number (and a
    # game that ended after its round leaves the count of the last stage)
    if stages[min(stage, len(stages) - 1)][2] == "around":
        slot = _int(c[2], "control[2]", 0, INT_BOUND, " (turns taken in the stage)")
    else:
        slot = _int(c[2], "control[2]", 0, max(1, len(players)) + over, " (whose turn in the stage)")
    phases = stages[min(stage, len(stages) - 1)][1]
    ph = _int(c[3], "control[3]", 0, len(phases) + over, " (a phase of the stage)")
    fresh, acted = _bool(c[5], "control[5]"), _bool(c[6], "control[6]")
    if not players and not over and not waits and not game.info.get("chooses"):
        raise CorruptState("no player is in the stage: only a game still dealing its setup "
                           "has none", "control[4]")
    st.ctl = [rd, stage, slot, ph, tuple(players), fresh, acted]

    o = d["outcome"]
    if o is not None:
        _list(o, "outcome", 2)
        if not isinstance(o[0], str) or o[0] not in game._outcome_names:
            raise CorruptState(f"{shown(o[0])} is not an ending of this game", "outcome[0]")
        winners = _list(o[1], "outcome[1]")
        for k, p in enumerate(winners):
            _int(p, f"outcome[1][{k}]", 0, n, " (a seat)")
        if winners != sorted(set(winners)):
            raise CorruptState("the winners must be distinct seats in increasing order", "outcome[1]")
        st.outcome = (o[0], tuple(winners))

    rng = _list(d["rng"], "rng", 2)
    st.rng = [_int(rng[0], "rng[0]", 0, _MASK + 1, " (the seed)"),
              _int(rng[1], "rng[1]", 0, _MASK + 1, " (the number of draws)")]
    if d["chance"] not in ("auto", "explicit"):
        raise CorruptState(f"expected \"auto\" or \"explicit\", found {shown(d['chance'])}", "chance")
    st.chance_mode = d["chance"]
    hist = _list(d["history"], "history")
    st._hist = [_action_id(h, f"history[{k}]") for k, h in enumerate(hist)]

    if waits:
        if st.chance_mode != "explicit":
            raise CorruptState("only a game with explicit chance waits for a chance outcome", "pending")
        if over:
            raise CorruptState("a finished game waits for no chance outcome", "pending")
        if not isinstance(pend, dict):
            raise CorruptState(f"expected an object, found {shown(pend)}", "pending")
        for k in pend:
            if k not in PENDING_FIELDS + ("outcome_types",):
                raise CorruptState("not a field of a pending chance event", f"pending.{k}")
        for k in PENDING_FIELDS:
            if k not in pend:
                raise CorruptState("missing", f"pending.{k}")
        aid = None if pend["action"] is None else _action_id(pend["action"], "pending.action")
        if aid is not None and not players:
            raise CorruptState("no action can wait for chance while the setup is being dealt (no player "
                               "is in a stage yet)", "pending.action")
        et = _type(game, pend["type"], "pending.type")
        given = _list(pend["outcomes"], "pending.outcomes")
        types = [et] * len(given)
        if "outcome_types" in pend:   # the outcomes' own types, when some differ from the pending draw's
            types = [_type(game, t, f"pending.outcome_types[{k}]")
                     for k, t in enumerate(_list(pend["outcome_types"], "pending.outcome_types"))]
            if len(types) != len(given):
                raise CorruptState(f"expected one type per outcome ({len(given)}), found {len(types)}",
                                   "pending.outcome_types")
        outcomes = [_value(game, t, x, f"pending.outcomes[{k}]") for k, (t, x) in enumerate(zip(types, given))]
        bag = _value(game, ("bag", et), pend["bag"], "pending.bag")
        if not bag:
            raise CorruptState("a chance event draws from a bag that is not empty", "pending.bag")
        st.pending = (aid, outcomes, bag, et, types)
    return st


def replay(game, d: dict):
    """Step 3: the state the history leads to from the seed, which must be
    the saved one in every field."""
    from atoll.compiler.runtime import IllegalAction, ModelError
    try:
        st = game.new_initial_state(seed=d["rng"][0], chance=d["chance"])
    except ModelError as e:
        raise CorruptState(f"the game cannot start from this seed: {e}", "rng[0]") from None
    for k, h in enumerate(d["history"]):
        try:
            st.apply_action(_action_id(h, f"history[{k}]"))
        except (IllegalAction, ModelError) as e:
            raise CorruptState(f"replaying the history from the seed, this action cannot be "
                               f"applied: {e}", f"history[{k}]") from None
    if st.chance_mode == "explicit":
        st.rng[1] = d["rng"][1]     # the calls of sample_chance(): not part of the history
    mine = state_to_data(game, st)
    for key in FIELDS[:-1]:
        if key == "values":
            for i, (a, b) in enumerate(zip(d["values"], mine["values"])):
                _compare(a, b, f"values.{game.layout.names[i]}")
        else:
            _compare(d[key], mine[key], key)
    return st


def _compare(saved, replayed, field: str) -> None:
    if isinstance(saved, dict) and isinstance(replayed, dict) and saved.keys() == replayed.keys():
        for k in sorted(saved):
            _compare(saved[k], replayed[k], f"{field}.{k}")
        return
    if isinstance(saved, list) and isinstance(replayed, list) and len(saved) == len(replayed):
        for k, (a, b) in enumerate(zip(saved, replayed)):
            _compare(a, b, f"{field}[{k}]")
        return
    if type(saved) is type(replayed) and saved == replayed:
        return
    if isinstance(saved, list) and isinstance(replayed, list):
        raise CorruptState(f"the save has {len(saved)} items here where replaying its history from the "
                           f"seed gives {len(replayed)}: not a position the rules reach this way", field)
    raise CorruptState(f"the save holds {shown(saved)} where replaying its history from the seed gives "
                       f"{shown(replayed)}: not a position the rules reach this way", field)
