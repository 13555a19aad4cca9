"""Spec generators for the fuzz run (``fuzz_specs.py``).

Each generator takes a ``random.Random`` and returns a :class:`Case`: the
files of one small project (a spec and what it reads), the spec to compile,
tags naming the hostile feature it tries, and a note that says how it was
made (for a mutation: the edits, with their line numbers). The same seed
gives the same case, so any case of a run can be made again by its number.

Generators (the hostile ones from ``hostile_path`` on live in
``fuzz_hostile.py``; ``fuzz_specs.GENERATORS`` weighs them):

* ``grammar``: whole programs from the grammar (a random walk over its
  rules, small vocabularies so that they parse);
* ``framed``: declarations from the grammar put into a small valid game;
* ``mutate``: a shipped spec (``spec/``, ``tests/good``, the golden
  countdown) with one to three random edits;
* ``variant``: a variant of ``spec/variants`` or the game it extends, edited;
* ``hostile_text``: a small valid game with hostile strings in titles,
  notes, citations and string values (Python that would create the file
  ``SENTINEL`` in the working folder, quotes, newlines, unicode separators);
* ``hostile_name``: the same game with identifiers that are Python keywords,
  builtins or the prefixes of generated names;
* ``hostile_path``: a valid game under a hostile file or folder name;
* ``hostile_data``: data files that are hostile (deep nesting, duplicate
  keys, huge numbers, bad bytes) or paths that leave the folder or never end
  (absolute, ``..``, ``/dev/zero``, a FIFO, symlinks);
* ``hostile_extends``: the same for ``extends``, and long chains of variants;
* ``deep``: deep nesting (brackets, ``if``, ``not``, long sums);
* ``limits``: huge integer literals and folded constants, big player ranges;
* ``expensive``: constants that cost much to evaluate, many declarations;
* ``collide``: action names that may collide after mangling (``b_1`` and
  ``can(b)``), with an oracle: which actions are legal and what each does.

Text placeholders filled in by the worker: ``@WORKDIR@`` (its folder, where
``SENTINEL``, ``secret_ok.json``, ``secret_leak.json`` and ``secret.atoll``
live, outside the case's folder). File entries are text, bytes, or the
tuples ``("fifo",)``, ``("symlink", target)`` and ``("dir",)``.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Callable, Optional

import lark

ROOT = Path(__file__).resolve().parent.parent
SECRET = "TOPSECRET-5f1e"     # the content of the files outside the case's folder

# Python that creates the file SENTINEL in the working folder, even under
# restricted builtins; no slash, so that it fits in a file name too.
PAYLOAD = ("[g['close'](g['open']('SENTINEL',65)) for g in [[c for c in ().__class__.__base__"
           ".__subclasses__() if c.__name__=='_wrap_close'][0].__init__.__globals__]]")

# The payload in the contexts generated source may put a text into.
PAYLOADS = [
    "\n" + PAYLOAD + "\n#", "\r" + PAYLOAD + "\r#", "\r\n" + PAYLOAD + "\n#",
    "'+" + PAYLOAD + "+'", '"+' + PAYLOAD + '+"', "'''+" + PAYLOAD + "+'''",
    '"""+' + PAYLOAD + '+"""', '\n"""\n' + PAYLOAD + '\n"""\n', "\n'''\n" + PAYLOAD + "\n'''\n",
    "\\'+" + PAYLOAD + "+'", '\\"+' + PAYLOAD + '+"', "{" + PAYLOAD + "}", "{{" + PAYLOAD + "}}",
    "'\n" + PAYLOAD + "\n'", '"\n' + PAYLOAD + '\n"', ")\n" + PAYLOAD + "\n(", "]\n" + PAYLOAD + "\n[",
    "\u2028" + PAYLOAD + "\u2028#", "\u2029" + PAYLOAD, "\x85" + PAYLOAD, "\x0b" + PAYLOAD,
    "\x0c\n" + PAYLOAD + "\n#", "\\\n" + PAYLOAD + "\n#", "\n    " + PAYLOAD + "\n#",
]
ODD_TEXTS = [
    "", " ", "\\", "\\\\", '"', "'", '"""', "'''", "\n", "\r", "\r\n", "\t", "\x00", "\x1b[31m",
    "\u2028", "\u2029", "\x85", "\x0b\x0c", "\u202e", "\ufeff", "e\u0301", "\U0001f3b2", "%s%d%n",
    "{}", "{0}", "{x}", "$(touch SENTINEL)", "`touch SENTINEL`", "..", "../../etc/passwd",
    "\n\n.. raw:: html\n\n   <script>alert(1)</script>\n", ".. include:: /etc/passwd\n",
    "*", "|x|", "<b>", "&amp;", "# comment", "a" * 5000, "\n" * 50, "é" * 300,
]
PY_NAMES = ["None", "True", "False", "class", "def", "lambda", "import", "exec", "eval", "open",
            "print", "globals", "locals", "self", "type", "object", "len", "range", "sorted", "tuple",
            "list", "dict", "sum", "min", "max", "abs", "any", "all", "async", "await", "nonlocal",
            "yield", "del", "pass", "raise", "try", "except", "finally", "with", "as", "is",
            "global", "assert", "break", "continue", "while", "elif", "return", "case", "match",
            "S", "X", "ns", "NP", "PLAYERS", "SEATS", "TEAM_OF", "DRY", "teams", "score", "setup",
            "f_sum", "f_size", "k_x", "c_x", "l_x", "a_x", "d_x", "ph_x", "init_x", "req_0",
            "round_0", "stage_0_0", "endc_x", "endw_x", "endings_immediately", "prop_x", "propw_x",
            "can_x", "can_x_1", "x_1", "a", "b", "B", "b_1", "b_2", "b__1", "x__", "Game", "State",
            "me", "p", "q", "n", "pos", "orth", "value", "players", "seats", "player_count",
            "current_round", "can", "team_of", "bag", "int", "str", "bool", "Pos", "Player",
            "builtins", "breakpoint", "compile", "getattr", "setattr", "vars", "dir", "id", "hash",
            "A" * 300, "x" + "_" * 100]


@dataclass
class Case:
    generator: str
    tags: tuple
    files: dict                 # relative path -> str | bytes | ("fifo",) | ("symlink", t) | ("dir",)
    main: str                   # the spec to compile, relative
    note: str = ""
    oracle: Optional[dict] = None
    cli: bool = False           # also run through the command line
    data: dict = field(default_factory=dict)   # anything else a generator wants to keep

    def size(self) -> int:
        m = self.files.get(self.main)
        return len(m) if isinstance(m, (str, bytes)) else 0


def loguniform(rng, lo: int, hi: int) -> int:
    return int(round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))


def atoll_string(text: str) -> str:
    """A string literal of the spec language holding ``text``."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def hostile_text(rng) -> str:
    r = rng.random()
    if r < 0.55:
        return rng.choice(PAYLOADS)
    if r < 0.9:
        return rng.choice(ODD_TEXTS)
    return rng.choice(ODD_TEXTS) + rng.choice(PAYLOADS) + rng.choice(ODD_TEXTS)


# ---------------------------------------------------------------- shipped specs

def _tree(folder: Path) -> dict:
    """Every spec and data file under a folder, as relative path -> text."""
    out = {}
    for p in sorted(folder.rglob("*")):
        if p.is_file() and p.suffix in (".atoll", ".json"):
            out[str(p.relative_to(folder))] = p.read_text(encoding="utf-8")
    return out


SPEC_TREE = _tree(ROOT / "spec")
GOOD_TREE = _tree(ROOT / "tests" / "good")
GOLDEN = {"countdown.atoll": (ROOT / "tests" / "golden" / "countdown.atoll").read_text(encoding="utf-8")}
BASES = ([(SPEC_TREE, k) for k in ("masterislands.atoll", "kanaloa.atoll")] * 3
         + [(GOOD_TREE, k) for k in GOOD_TREE if k.endswith(".atoll")] + [(GOLDEN, "countdown.atoll")])
VARIANTS = [k for k in SPEC_TREE if k.startswith("variants/")]

# ---------------------------------------------------------------- grammar walk

GRAMMAR_TEXT = resources.files("atoll.grammar").joinpath("atoll.lark").read_text()
_GRAMMAR = lark.Lark(GRAMMAR_TEXT, parser="lalr", lexer="basic")
_TERMINALS, _RULES, _ = _GRAMMAR.grammar.compile(["start"], ())
_NAME_RE = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")
KEYWORDS = sorted(t.pattern.value for t in _TERMINALS
                  if t.pattern.type == "str" and _NAME_RE.match(t.pattern.value))
_LITERAL = {t.name: t.pattern.value for t in _TERMINALS if t.pattern.type == "str"}
_BY_ORIGIN: dict = {}
for _r in _RULES:
    _BY_ORIGIN.setdefault(_r.origin.name, []).append(_r.expansion)

VOCAB = {
    "NAME": ["x", "y", "n", "p", "q", "hand", "pile", "Card", "Colour", "red", "blue", "value",
             "colour", "go", "me", "players", "seats", "player_count", "current_round", "int",
             "bool", "str", "list", "set", "bag", "map", "Pos", "Player", "size", "pos", "orth",
             "range", "sum", "count", "any", "remove", "can", "team_of", "main_phase", "main_act",
             "b", "b_1", "subsets", "lines", "keys", "values", "get", "reach", "abs", "between"],
    "INT": ["0", "1", "2", "3", "10", "100", "99999999999999999999"],
    "STRING": ['"a"', '""', '"two words"', '"data/masterislands_cards.json"', '"cards"',
               '"\\n"', '"\\""'],
    "CMP_OP": ["==", "!=", "<=", ">=", "<", ">"],
    "MUL_OP": ["*", "/", "%"],
}


def _min_cost() -> dict:
    """For each rule, the fewest tokens it can produce (a fixed point)."""
    cost = {k: math.inf for k in _BY_ORIGIN}
    changed = True
    while changed:
        changed = False
        for k, exps in _BY_ORIGIN.items():
            for e in exps:
                c = sum(1 if s.is_term else cost[s.name] for s in e)
                if c < cost[k]:
                    cost[k], changed = c, True
    return cost


_COST = _min_cost()


def grammar_text(rng, start: str = "start", budget: int = 400) -> str:
    """A random text of the grammar's rule ``start``; past ``budget`` tokens
    (or a depth of 25) it takes the shortest ways out."""
    out: list[str] = []
    stack = [(start, 0)]
    while stack:
        sym, depth = stack.pop()
        if sym in _BY_ORIGIN:
            exps = _BY_ORIGIN[sym]
            if len(out) > budget or depth > 25:
                best = min(sum(1 if s.is_term else _COST[s.name] for s in e) for e in exps)
                exps = [e for e in exps if sum(1 if s.is_term else _COST[s.name] for s in e) == best]
            e = rng.choice(exps)
            for s in reversed(e):
                stack.append((s.name, depth + 1))
        elif sym in VOCAB:
            out.append(rng.choice(VOCAB[sym]))
        elif sym in _LITERAL:
            out.append(_LITERAL[sym])
        else:   # pragma: no cover - a terminal the grammar gained
            out.append(" ")
    return " ".join(out) + "\n"


FRAME = ('game fuzz { title: "Fuzz" players: 2..3 }\n'
         "flow { round { turns in seats: main_phase } }\n"
         "phase main_phase { action main_act() { end phase } }\n")
DECLARATIONS = sorted({r.expansion[0].name for r in _RULES if r.origin.name == "item"}
                      - {"game_decl", "flow_decl", "extends_decl", "override_decl"})


def gen_grammar(rng) -> Case:
    return Case("grammar", ("grammar",), {"g.atoll": grammar_text(rng)}, "g.atoll")


def gen_framed(rng) -> Case:
    items = [grammar_text(rng, rng.choice(DECLARATIONS), budget=rng.choice([30, 80, 200]))
             for _ in range(rng.randint(1, 4))]
    return Case("framed", ("framed",), {"f.atoll": FRAME + "".join(items)}, "f.atoll")


# ---------------------------------------------------------------- mutations

_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|[A-Za-z][A-Za-z0-9_]*|[0-9]+|==|!=|<=|>=|=>|\.\.|\S')
_EDGE_INTS = ["0", "1", "2", "7", "100", "65536", "99999999999999999999", "1" + "0" * 400,
              "9" * 4301, "9" * 20000]


def _names_of(text: str) -> list:
    return sorted(set(re.findall(r"\b[A-Za-z][A-Za-z0-9_]*\b", re.sub(r'"[^"\n]*"|#[^\n]*', " ", text))))


def _short(s: str, n: int = 60) -> str:
    s = s.strip()
    return repr(s if len(s) <= n else s[:n] + "...")


def mutate(rng, text: str, count: int) -> tuple[str, list]:
    """``text`` with ``count`` random edits, and a description of each."""
    names = _names_of(text) + PY_NAMES[:40]
    notes = []
    for _ in range(count):
        lines = text.split("\n")
        toks = list(_TOKEN.finditer(text))
        if not toks:
            break
        op = rng.choice(["delete_char", "delete_line", "duplicate_line", "swap_tokens", "replace_name",
                         "insert_keyword", "replace_int", "replace_string", "delete_lines",
                         "duplicate_lines", "move_line", "insert_token"])
        line_of = lambda pos: text.count("\n", 0, pos) + 1   # noqa: E731
        if op == "delete_char":
            i = rng.randrange(len(text))
            notes.append(f"line {line_of(i)}: deleted {text[i]!r}")
            text = text[:i] + text[i + 1:]
        elif op in ("delete_line", "delete_lines"):
            i = rng.randrange(len(lines))
            j = i + (1 if op == "delete_line" else rng.randint(2, 12))
            notes.append(f"lines {i + 1}-{min(j, len(lines))}: deleted ({_short(lines[i])}...)")
            text = "\n".join(lines[:i] + lines[j:])
        elif op in ("duplicate_line", "duplicate_lines"):
            i = rng.randrange(len(lines))
            j = i + (1 if op == "duplicate_line" else rng.randint(2, 12))
            notes.append(f"lines {i + 1}-{min(j, len(lines))}: duplicated ({_short(lines[i])}...)")
            text = "\n".join(lines[:j] + lines[i:j] + lines[j:])
        elif op == "move_line":
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            notes.append(f"line {i + 1} ({_short(lines[i])}) moved to line {j + 1}")
            ln = lines.pop(i)
            lines.insert(j, ln)
            text = "\n".join(lines)
        elif op == "swap_tokens" and len(toks) > 1:
            i, j = sorted(rng.sample(range(len(toks)), 2))
            a, b = toks[i], toks[j]
            notes.append(f"line {line_of(a.start())}: swapped {a.group()!r} (line {line_of(a.start())})"
                         f" and {b.group()!r} (line {line_of(b.start())})")
            text = (text[:a.start()] + b.group() + text[a.end():b.start()] + a.group()
                    + text[b.end():])
        elif op == "replace_name":
            cands = [m for m in toks if _NAME_RE.match(m.group())]
            if cands:
                m = rng.choice(cands)
                new = rng.choice(names)
                notes.append(f"line {line_of(m.start())}: name {m.group()!r} -> {new!r}")
                text = text[:m.start()] + new + text[m.end():]
        elif op == "replace_int":
            cands = [m for m in toks if m.group().isdigit()]
            if cands:
                m = rng.choice(cands)
                new = rng.choice(_EDGE_INTS)
                notes.append(f"line {line_of(m.start())}: {m.group()} -> {_short(new, 20)} "
                             f"({len(new)} digits)")
                text = text[:m.start()] + new + text[m.end():]
        elif op == "replace_string":
            cands = [m for m in toks if m.group().startswith('"')]
            if cands:
                m = rng.choice(cands)
                new = atoll_string(hostile_text(rng))
                notes.append(f"line {line_of(m.start())}: string {_short(m.group(), 30)} -> {_short(new)}")
                text = text[:m.start()] + new + text[m.end():]
        elif op in ("insert_keyword", "insert_token"):
            m = rng.choice(toks)
            new = rng.choice(KEYWORDS) if op == "insert_keyword" else rng.choice(
                ["(", ")", "[", "]", "{", "}", ",", ":", "=", "-", "not", "..", "=>", "0", '""', "me"])
            notes.append(f"line {line_of(m.start())}: inserted {new!r} before {m.group()!r}")
            text = text[:m.start()] + new + " " + text[m.start():]
    return text, notes


def gen_mutate(rng) -> Case:
    tree, main = rng.choice(BASES)
    text, notes = mutate(rng, tree[main], rng.choice([1, 1, 2, 3]))
    files = dict(tree)
    files[main] = text
    return Case("mutate", ("mutate", main), files, main, f"{main} with: " + "; ".join(notes))


def gen_variant(rng) -> Case:
    main = rng.choice(VARIANTS)
    files = {k: v for k, v in SPEC_TREE.items()}
    target = main if rng.random() < 0.6 else rng.choice(["kanaloa.atoll", "masterislands.atoll"])
    text, notes = mutate(rng, files[target], rng.choice([1, 1, 2]))
    files[target] = text
    return Case("variant", ("variant", target), files, main,
                f"{main}; {target} with: " + "; ".join(notes))


# ---------------------------------------------------------------- a small valid game

# A game with a text in every place a spec may hold one (⟨S..⟩) and every
# kind of name (⟨N..⟩): each is a valid spec with its defaults.
TEMPLATE = """# a small game ⟨C1⟩
game ⟨Ngame⟩ {
  title: ⟨S1⟩
  designer: ⟨S2⟩
  players: ⟨PLAYERS⟩
  rulebook: ⟨S3⟩
}
enum ⟨NColour⟩ { ⟨Nred⟩, ⟨Nblue⟩ } ⟨S4⟩ cites ⟨S5⟩ assumption ⟨S6⟩
record ⟨NCard⟩ { ⟨Ncolour⟩: ⟨NColour⟩, ⟨Nvalue⟩: int } ⟨S7⟩
option ⟨Nbonus⟩: int = 1 ⟨S8⟩
house ⟨Nmode⟩: ⟨NColour⟩ = ⟨Nred⟩ ⟨S9⟩
const ⟨Ngreeting⟩: str = ⟨S10⟩ ⟨S11⟩
const ⟨Nwords⟩: list[str] = [⟨S12⟩, "b"] ⟨S13⟩
const ⟨Nfirst⟩: ⟨NCard⟩ = ⟨NCard⟩(⟨Ncolour⟩: ⟨Nmode⟩, ⟨Nvalue⟩: 1)
def ⟨Ntwice⟩(⟨Nn⟩: int): int = ⟨Nn⟩ + ⟨Nn⟩ ⟨S14⟩
state {
  ⟨Npile⟩: list[int] = [1, 2, 3] visible all ⟨S15⟩
  player ⟨Ngot⟩: int = 0 visible all
  ⟨Nlabel⟩: str = ⟨S16⟩ visible all
}
setup ⟨S17⟩ { ⟨Nlabel⟩ = ⟨Ngreeting⟩ }
flow ⟨S18⟩ { round { turns in seats: ⟨Nplay⟩ } }
phase ⟨Nplay⟩ ⟨S19⟩ cites ⟨S20⟩ {
  action ⟨Ntake⟩(⟨Nk⟩: int in ⟨Npile⟩) ⟨S21⟩ when ⟨Nk⟩ > 0 ⟨S22⟩ ensures ⟨Nlabel⟩ != ⟨S23⟩ ⟨S24⟩ {
    let ⟨Nt⟩ = ⟨Ntwice⟩(⟨Nk⟩)
    ⟨Ngot⟩[me] = ⟨Ngot⟩[me] + ⟨Nt⟩ + ⟨Nbonus⟩ + size(⟨Nwords⟩) - 2 + ⟨Nfirst⟩.⟨Nvalue⟩ - 1
    ⟨Npile⟩ = remove(⟨Npile⟩, ⟨Nk⟩)
    ⟨Nlabel⟩ = if ⟨Nlabel⟩ == ⟨S25⟩ then ⟨S26⟩ else ⟨Ngreeting⟩
    end phase
  }
}
ending ⟨Nempty⟩ after_turn when size(⟨Npile⟩) == 0 ⟨S27⟩ cites ⟨S28⟩ => win [⟨Np⟩ for ⟨Np⟩ in players if ⟨Ngot⟩[⟨Np⟩] == max(⟨Ngot⟩[⟨Nq⟩] for ⟨Nq⟩ in players)]
score ⟨Ns⟩ = ⟨Ngot⟩[⟨Ns⟩] ⟨S29⟩
property ⟨Npositive⟩ ⟨S30⟩ invariant all(⟨Ngot⟩[⟨Np⟩] >= 0 for ⟨Np⟩ in players)
property ⟨Nends⟩ ⟨S31⟩ terminates by size(⟨Npile⟩) per action
property ⟨Nlabelled⟩ ⟨S32⟩ theorem forall ⟨Nw⟩: str in ⟨Nwords⟩: size([⟨Nw⟩]) == 1
"""
_SLOT = re.compile(r"⟨([A-Z])([A-Za-z0-9]+)⟩")
TEMPLATE_STRINGS = sorted({m.group(2) for m in _SLOT.finditer(TEMPLATE) if m.group(1) == "S"})
TEMPLATE_NAMES = sorted({m.group(2) for m in _SLOT.finditer(TEMPLATE) if m.group(1) == "N"})


def template(strings: dict = None, names: dict = None, players: str = "2..3", comment: str = "") -> str:
    """The small game; ``strings`` (slot -> text) and ``names`` (slot ->
    identifier) replace the defaults."""
    strings, names = strings or {}, names or {}

    def fill(m):
        kind, key = m.group(1), m.group(2)
        if kind == "S":
            return atoll_string(strings.get(key, {"1": "Tiny", "10": "hello", "12": "a",
                                                   "16": "start"}.get(key, f"text {key}")))
        if kind == "N":
            return names.get(key, "tiny" if key == "game" else key)
        if kind == "P":
            return players
        return comment
    return _SLOT.sub(fill, TEMPLATE)


def gen_hostile_text(rng) -> Case:
    slots = rng.sample(TEMPLATE_STRINGS, rng.randint(1, 3))
    strings = {s: hostile_text(rng) for s in slots}
    comment = hostile_text(rng) if rng.random() < 0.2 else ""
    text = template(strings, comment=comment.replace("\n", " "))
    return Case("hostile_text", ("text",) + tuple(f"S{s}" for s in slots), {"t.atoll": text},
                "t.atoll", "strings: " + ", ".join(f"S{s}={v!r}"[:120] for s, v in strings.items()),
                cli=rng.random() < 0.1)


def gen_hostile_name(rng) -> Case:
    slots = rng.sample(TEMPLATE_NAMES, rng.randint(1, 4))
    names = {s: rng.choice(PY_NAMES) for s in slots}
    text = template(names=names)
    return Case("hostile_name", ("name",) + tuple(f"N{s}" for s in slots), {"t.atoll": text},
                "t.atoll", "names: " + ", ".join(f"{s}={v!r}" for s, v in names.items()))
