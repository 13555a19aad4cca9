"""`atoll play`: a game in the terminal against random players.

The view comes from atoll.render; this module reads the player's commands
(see HELP) and announces each move with the rule it follows and what it
changed. Nothing here knows a game.
"""
from __future__ import annotations

import random
import re
from pathlib import Path

from atoll import render
from atoll.compiler.runtime import CHANCE, SIMULTANEOUS, Action, IllegalAction, ModelError
from atoll.compiler.savegame import CorruptState
from atoll.compiler.values import sort_values

HELP = """commands:
  N             play move number N of the list
  help          this list
  why N         the rule behind move N: its text, its conditions, its rulebook section
  rules N       the same as why N
  why not MOVE  why a move that is not listed is not allowed; MOVE as the list writes
                moves, e.g. why not place(c=red 3, at=(2,0)) (or just its values in order)
  undo          take back your last move (and the others' moves after it)
  save FILE     save the game to FILE (a JSON file)
  load FILE     load a game saved with save (of this game, players and options)
  state         everything the view folds away (phase variables, flags, counters)
  moves         list your moves again
  q, quit       stop playing"""


class Session:
    def __init__(self, game, seat: int, seed: int, stdin, out, auto: bool = False):
        self.game, self.me, self.stdin, self.out, self.auto = game, seat, stdin, out, auto
        self.st = game.new_initial_state(seed=seed)
        self.rng = random.Random(seed)
        self.undo_stack: list = []

    def say(self, text: str = "") -> None:
        print(text, file=self.out)

    # ------------------------------------------------------------ the game loop
    def run(self) -> int:
        g = self.game
        self.say(f"{g.title}: you are player {self.me}; the others play at random. "
                 "Type a move's number, `help` for the commands, `q` to quit.")
        while not self.st.is_terminal():
            st = self.st
            legal = st.legal_actions()
            if not legal:
                self.say("No legal action: the rules are stuck here (a deadlock).")
                return 1
            sim = st.current_player() == SIMULTANEOUS
            mine = st.legal_actions(self.me) if sim else (legal if st.current_player() == self.me else [])
            if not mine:   # another player's move, or theirs at a simultaneous node
                a = legal[self.rng.randrange(len(legal))]
                secret = sim or g._sim_stage(st)
                who = "chance" if st.current_player() == CHANCE else f"player {a.player}"
                self.play(a, f"{who}: " + ("(a secret choice)" if secret else
                                           render.action_text(g, st, a)), secret)
                continue
            if self.auto and len(mine) == 1:
                self.undo_stack.append((st.clone(), self.rng.getstate()))
                self.play(mine[0], "you (your only move): " + render.action_text(g, st, mine[0]))
                continue
            if self.turn(mine) == "quit":
                self.say("bye")
                return 0
        self.say()
        self.say(render.view_text(g, self.st, self.me))
        self.say(self.ending_text())
        return 0

    def label(self, st, a) -> str:
        text = render.action_text(self.game, st, a)
        return text if st.current_player() != SIMULTANEOUS else f"player {a.player}: {text}"

    def show(self, mine) -> None:
        self.say()
        self.say(render.view_text(self.game, self.st, self.me))
        for i, a in enumerate(mine):
            self.say(f"  {i:>3}) {self.label(self.st, a)}")

    def turn(self, mine):
        """Read commands until a move is played; 'quit' at the end of input or on q."""
        self.show(mine)
        while True:
            self.out.write("your move> ")
            self.out.flush()
            line = self.stdin.readline()
            if not line:
                return "quit"
            cmd = line.strip()
            word, _, rest = cmd.partition(" ")
            rest = rest.strip()
            if cmd in ("q", "quit"):
                return "quit"
            if cmd in ("help", "h", "?"):
                self.say(HELP)
            elif cmd == "moves":
                self.show(mine)
            elif cmd == "state":
                self.say(render.view_text(self.game, self.st, self.me, everything=True))
            elif cmd == "undo":
                if not self.undo_stack:
                    self.say("nothing to undo: you have not moved yet")
                    continue
                self.st, rng = self.undo_stack.pop()
                self.rng.setstate(rng)
                self.say("undone: back to before your last move")
                return "again"
            elif word == "save":
                self.save(rest)
            elif word == "load":
                if self.load(rest):
                    return "again"
            elif word in ("why", "rules") and (rest.startswith("not ") or rest == "not"):
                self.say(self.why_not(rest[3:].strip(), mine))
            elif word in ("why", "rules"):
                k = self.number(rest, mine)
                if k is not None:
                    self.say(self.why(mine[k]))
            else:
                k = self.number(cmd, mine)
                if k is None:
                    continue
                self.undo_stack.append((self.st.clone(), self.rng.getstate()))
                self.play(mine[k], "you: " + render.action_text(self.game, self.st, mine[k]))
                return "moved"

    def number(self, text: str, mine):
        try:
            k = int(text)
            if 0 <= k < len(mine):
                return k
        except ValueError:
            pass
        self.say(f"type a number from 0 to {len(mine) - 1}, or `help`")
        return None

    # ------------------------------------------------------------ moves and news
    def play(self, a, text: str, secret: bool = False) -> None:
        g, st = self.game, self.st
        before = render.snapshot(g, st, self.me)
        spec = g.action_by_name.get(a.kind)
        st.apply_action(a)
        cite = f" [{'; '.join(spec.cites)}]" if spec is not None and spec.cites else ""
        self.say(f"{text}{cite}")
        # a roll, a branch described in words (not after a secret choice: the branch could tell it)
        shown = [] if secret else st.events(viewer=self.me, actor=a.player,
                                             show=lambda t, v: render.label(g.codec, t, v))
        for ev in shown:
            self.say(f"    » {ev}")
        for line in render.changes(g, before, render.snapshot(g, st, self.me)):
            self.say(f"    {line}")

    def ending_text(self) -> str:
        return ending_text(self.game, self.st, self.me)

    # ------------------------------------------------------------ why
    def why(self, a) -> str:
        return why(self.game, self.st, a)

    def why_not(self, text: str, mine) -> str:
        return why_not(self.game, self.st, text, mine)

    # ------------------------------------------------------------ saving
    def save(self, name: str) -> None:
        if not name:
            self.say("save FILE: name the file")
            return
        try:
            Path(name).write_text(self.st.to_json())
        except OSError as e:
            self.say(f"cannot save to {name}: {e.strerror or e}")
            return
        self.say(f"saved to {name}")

    def load(self, name: str) -> bool:
        if not name:
            self.say("load FILE: name the file")
            return False
        try:
            text = Path(name).read_text()
            st = self.game.state_from_json(text)
        except OSError as e:
            self.say(f"cannot load {name}: {e.strerror or e}; the game is unchanged")
            return False
        except (CorruptState, UnicodeDecodeError, ValueError) as e:
            self.say(f"cannot load {name}: {e}; the game is unchanged")
            return False
        self.undo_stack.append((self.st, self.rng.getstate()))
        self.st = st
        self.say(f"loaded {name} (`undo` goes back to the game before it)")
        return True


# ------------------------------------------------------------------ the end, why and why not
# (shared with `atoll serve`, atoll.web.session)

def ending_info(game, st) -> dict:
    """How a finished game ended: the ending's ``name``, the ``winners``,
    the ``scores``, its ``note`` (the spec's words), its ``cites`` and
    ``how`` (the ending's name, or the move or phase that ended it)."""
    name, w = st.ending(), st.winners()
    en = next((e for e in game.endings if e.name == name), None)
    cites = en.cites if en is not None else game._cites.get(
        name.replace("action ", "action `").replace("phase ", "phase `") + "`", ())
    note = game.info.get("ending_notes", {}).get(name, "")
    how = (f"ending {name}" + (f": {note}" if note else "")) if en is not None else \
        f"in {name}".replace("in action ", "by the move ")
    return {"name": name, "winners": list(w), "scores": list(st.scores()), "note": note,
            "cites": list(cites), "how": how}


def winners_text(winners, me) -> str:
    """``nobody wins``, ``you win``, ``player 2 wins``, ``player 0, you win``;
    ``me`` None: no player is "you"."""
    names = ["you" if p == me else f"player {p}" for p in winners]
    if not winners:
        return "nobody wins"
    if len(winners) == 1:
        return f"{names[0]} win{'s' * (names[0] != 'you')}"
    return f"{', '.join(names)} win"


def ending_text(game, st, me) -> str:
    e = ending_info(game, st)
    lines = [f"Game over: {winners_text(e['winners'], me)} ({e['how']})"
             + (f" [{'; '.join(e['cites'])}]" if e["cites"] else "")]
    if any(e["scores"]):
        lines.append("scores: " + ", ".join(f"player {p} {s}" for p, s in enumerate(e["scores"])))
    return "\n".join(lines)


def why(game, st, a) -> str:
    """The rule behind a move: its text, its conditions, its rulebook section."""
    spec = game.action_by_name[a.kind]
    lines = [f"{render.action_text(game, st, a)}: {spec.summary or '(no description)'}"]
    ph = game.phases[spec.phase]
    lines.append(f"  an action of phase {spec.phase}")
    for (src, summary), k in zip(spec.clauses, range(len(spec.clauses))):
        if k < len(spec.params):
            lines.append(f"  {spec.params[k][0]} is chosen from {src}")
        else:
            lines.append(f"  condition: {summary} (`{src}`)" if summary else f"  condition: `{src}`")
    for src, summary in spec.ensures:
        lines.append(f"  afterwards: {summary} (`{src}` must hold)" if summary
                     else f"  afterwards `{src}` must hold")
    cites = spec.cites or ph.cites
    lines.append(f"  rulebook: {'; '.join(cites)}" if cites else "  (no rulebook section cited)")
    return "\n".join(lines)


def why_not(game, st, text: str, mine) -> str:
    """Why a move written as the move list writes it (``place(c=red 3,
    at=(2,0))``, or its values in order) is not allowed; ``mine``: the
    moves listed (a listed one is allowed)."""
    g = game
    m = re.match(r"\s*([A-Za-z_]\w*)\s*(.*)$", text, re.S)
    if not m:
        return "why not MOVE: name the move, e.g. `why not " + \
            (mine[0].kind if mine else "NAME") + " ...` with its values as the list writes them"
    kind, args = m.group(1), m.group(2).strip()
    spec = g.action_by_name.get(kind)
    if spec is None:
        return f"`{kind}` is not an action of this game; its actions: " + \
            ", ".join(a.name for a in g.actions)
    if args.startswith("(") and args.endswith(")") and _balanced(args[1:-1]):
        args = args[1:-1]
    try:
        params = parse_params(g, spec, args)
    except ValueError as e:
        return f"cannot read that move: {e}"
    a = Action(kind, params, None, st.current_player(), None, g)
    for i, b in enumerate(mine):
        if b.kind == kind and b.params == params:
            return f"it is allowed: move {i}"
    try:
        return "not allowed: " + g._explain(st, a)
    except (ModelError, IllegalAction) as e:
        return f"not allowed: {e}"
    except Exception as e:   # values the rules cannot evaluate (e.g. off the board)
        return f"not allowed: the rules cannot evaluate it with these values ({e})"


def _balanced(text: str) -> bool:
    depth = 0
    for c in text:
        depth += c in "([{"
        depth -= c in ")]}"
        if depth < 0:
            return False
    return depth == 0


# ------------------------------------------------------------------ reading a move

_TOKEN = re.compile(r'\s*(?:(-?\d+)|([A-Za-z_][\w\-]*)|"([^"]*)"|\'([^\']*)\'|([()\[\]{},=:]))')


def _tokens(text: str) -> list:
    out, i = [], 0
    text = text.rstrip()
    while i < len(text):
        m = _TOKEN.match(text, i)
        if not m or m.end() == i:
            raise ValueError(f"unexpected {text[i:].strip()[:10]!r}")
        i = m.end()
        if m.group(1) is not None:
            out.append(("int", int(m.group(1))))
        elif m.group(2) is not None:
            out.append(("name", m.group(2)))
        elif m.group(3) is not None or m.group(4) is not None:
            out.append(("name", m.group(3) if m.group(3) is not None else m.group(4)))
        else:
            out.append(("p", m.group(5)))
    return out


def parse_params(game, spec, text: str) -> tuple:
    """The values of ``spec``'s parameters, written as the move list writes
    them (``c=red 3, at=(2,0)``) or just in order (``red 3 (2,0)``)."""
    toks = _tokens(text)
    names = {n for n, _ in spec.params}
    # `name=` before a value is optional
    toks = [t for i, t in enumerate(toks)
            if not (t[0] == "name" and t[1] in names and i + 1 < len(toks) and toks[i + 1] == ("p", "="))
            and t != ("p", "=")]
    r = _Reader(game.codec, toks)
    out = []
    for n, t in spec.params:
        r.skip(",")
        if r.done():
            raise ValueError(f"missing {n}: {spec.name} takes "
                             + ", ".join(f"{q} ({_type_name(ty)})" for q, ty in spec.params))
        out.append(r.value(t, n))
    r.skip(",")
    if not r.done():
        raise ValueError(f"more values than {spec.name} takes")
    return tuple(out)


def _type_name(t) -> str:
    if isinstance(t, tuple):
        return t[1] if t[0] in ("enum", "record") else f"{t[0]} of {_type_name(t[1])}"
    return t


class _Reader:
    def __init__(self, codec, toks):
        self.codec, self.toks, self.i = codec, toks, 0

    def done(self) -> bool:
        return self.i >= len(self.toks)

    def peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else (None, None)

    def take(self):
        if self.done():
            raise ValueError("the move ends too early")
        self.i += 1
        return self.toks[self.i - 1]

    def skip(self, p) -> bool:
        if self.peek() == ("p", p):
            self.i += 1
            return True
        return False

    def expect(self, p) -> None:
        if not self.skip(p):
            raise ValueError(f"expected `{p}`, found {self.peek()[1]!r}")

    def value(self, t, what: str):
        codec = self.codec
        if t == "int":
            k, v = self.take()
            if k != "int":
                raise ValueError(f"{what}: expected a number, found {v!r}")
            return v
        if t == "bool":
            k, v = self.take()
            if v not in ("true", "false", "yes", "no"):
                raise ValueError(f"{what}: expected yes or no, found {v!r}")
            return v in ("true", "yes")
        if t == "str":
            k, v = self.take()
            if k == "p":
                raise ValueError(f"{what}: expected a name, found {v!r}")
            return str(v)
        kind = t[0]
        if kind == "maybe":   # the word none, or the value
            if self.peek() == ("name", "none"):
                self.take()
                return None
            return self.value(t[1], what)
        if kind == "enum":
            k, v = self.take()
            if v not in codec.enums[t[1]]:
                raise ValueError(f"{what}: {v!r} is not one of {', '.join(codec.enums[t[1]])}")
            return codec.enums[t[1]].index(v)
        if kind == "record":
            if self.peek() == ("name", t[1]):   # Card(red, 3)
                self.take()
            paren = self.skip("(")
            vals = []
            for j, (f, ft) in enumerate(codec.records[t[1]]):
                if j:
                    self.skip(",")
                vals.append(self.value(ft, f"{what}.{f}"))
            if paren:
                self.expect(")")
            return tuple(vals)
        if kind == "tuple":
            self.expect("(")
            vals = []
            for j, it in enumerate(t[1:]):
                if j:
                    self.skip(",")
                vals.append(self.value(it, f"{what}[{j}]"))
            self.expect(")")
            return tuple(vals)
        if kind in ("list", "bag", "set"):
            close = {"[": "]", "{": "}", "(": ")"}.get(self.peek()[1])
            if self.peek()[0] != "p" or close is None:
                raise ValueError(f"{what}: expected a list in brackets [...]")
            self.take()
            vals = []
            while not self.skip(close):
                if vals:
                    self.expect(",")
                vals.append(self.value(t[1], f"{what}[{len(vals)}]"))
            if kind == "set":
                return frozenset(vals)
            return tuple(sort_values(vals)) if kind == "bag" else tuple(vals)
        raise ValueError(f"{what}: a value of this kind cannot be typed here")


def play(game, seat: int, seed: int, stdin, out, auto: bool = False) -> int:
    return Session(game, seat, seed, stdin, out, auto).run()
