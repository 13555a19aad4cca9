"""Diagnostics: problems found in a spec, as data, and their rendering.

Every diagnostic has a stable code from ``CODES`` (the one registry; the docs
page of codes is generated from it), a severity, a message, a span and an
optional hint. ``render`` turns one into the text users read.
"""
from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, field
from typing import Iterable, Optional

from atoll.grammar.ast import Span

# code -> (severity, title, explanation). Append only: codes are never reused.
CODES: dict[str, tuple[str, str, str]] = {
    "A0001": ("error", "syntax error",
              "The text does not follow the grammar of the language at this point."),
    "A0002": ("error", "unexpected character",
              "A character that cannot start any token of the language, or a string left open."),
    "A0003": ("error", "cannot read file",
              "The spec file, a file it extends, or a data file it loads cannot be read."),
    "A0005": ("error", "over a limit",
              "The spec goes past one of the toolchain's limits (nesting depth, nested loops, the "
              "choices of an action, the digits of a number, the size of the generated code). The "
              "limits are listed in docs/language.md, section Limits."),
    "A0101": ("error", "unknown name",
              "A name is used that no declaration, parameter or local binding defines."),
    "A0102": ("error", "duplicate definition",
              "Two declarations of the same kind of thing share a name."),
    "A0103": ("error", "type mismatch",
              "An expression has a type other than the one its place requires."),
    "A0104": ("error", "wrong number of arguments",
              "A function, record or action is called with more or fewer arguments than it takes."),
    "A0105": ("error", "unknown field",
              "A record has no field of this name."),
    "A0106": ("error", "not assignable",
              "Only state variables (and their entries) can be assigned in effects."),
    "A0107": ("error", "misplaced statement",
              "A statement is used where it has no meaning, such as `end phase` in setup."),
    "A0108": ("error", "bad metadata",
              "The game block lacks a required entry, has one of the wrong kind, or gives one twice."),
    "A0109": ("error", "bad tuple use",
              "A `let` or `for` takes a value apart into more or fewer names than its tuple has items, "
              "takes apart a value that is not a tuple, or a tuple's item is read with a position that is "
              "not a number written out within its items."),
    "A0110": ("error", "bad shapes picture",
              "The game block's `pictures` names a function returning a list that cannot be drawn as "
              "shapes: it must take no parameter or one player, return records with `shape` (an enum "
              "whose members are among sector, dot, box, text), optional `fill` (an enum) and "
              "`seat` (a player), int coordinates and an optional label, and read only state variables "
              "every player sees."),
    "A0201": ("error", "unreachable phase",
              "A phase is declared but no stage of the flow ever enters it, so its actions can never be taken."),
    "A0202": ("error", "phase without a way out",
              "A decision phase has no `done when`, no `end phase` in any action, and is not automatic: it could never end."),
    "A0203": ("warning", "unused option",
              "An option or house rule is declared but no rule reads it, so choosing it changes nothing."),
    "A0204": ("error", "missing declaration",
              "A spec needs a game block and a flow."),
    "A0301": ("error", "bad data file",
              "A data file cannot be read as JSON (broken, a key given twice in one object, text that "
              "is not valid Unicode) or does not match its declared type."),
    "A0302": ("error", "bad option value",
              "An option given on load is unknown or has a value of the wrong type."),
    "A0303": ("error", "requirement not met",
              "A `require` declaration is false for the chosen player count and options."),
    "A0304": ("error", "evaluation error",
              "Evaluating a constant or rule failed (for example a map has no entry for a key)."),
    "A0305": ("error", "evaluation over budget",
              "Evaluating the options, constants, requirements or teams of a game took more steps "
              "than the budget allows, or built a number longer than the limit (docs/language.md, "
              "section Limits)."),
    "A0306": ("error", "bad teams",
              "The `teams` of a game name a seat the player count does not have, put a seat in two "
              "teams, or hold an empty team."),
    "A0401": ("error", "bad variant",
              "A variant's `override` names nothing in the base game, or it extends a file that is not a game."),
    "A0501": ("error", "file outside the spec's folder",
              "A spec reads only files inside its own folder and the folders below it (symbolic links "
              "resolved), so that a spec from elsewhere cannot read the machine's other files. A file it "
              "extends or loads as data lies outside; another folder can be trusted explicitly "
              "(--allow-path DIR, or allow=[DIR] in atoll.load and compile_spec)."),
    "A0502": ("error", "not a regular file",
              "A spec, a file it extends or a data file is a device, a FIFO, a socket or a folder. Only "
              "regular files are read: a device such as /dev/zero never ends and a FIFO would block."),
    "A0503": ("error", "file too large",
              "A spec file holds more than 1 MiB or a data file more than 16 MiB; no more than that is "
              "read."),
    "A0504": ("error", "data nested too deeply",
              "A data file nests arrays and objects more than 100 deep; such JSON is refused before it "
              "is read (tables of records need a few levels only)."),
    "A0601": ("error", "example outside the game",
              "An `example` asks for what the game cannot be: a player count outside the game's range, "
              "an option set to a value that is not written out (a number, `true`, `false` or a member "
              "of the option's enum), or a position in a phase where no player decides (an automatic "
              "phase)."),
    "A0602": ("error", "refusal names no rule",
              "An `expect illegal ACTION because ...` must name a rule of that action: one of its "
              "`when` or `ensures` conditions, written as in the action, or one of its parameters "
              "(whose choices leave the value out)."),
    "A0701": ("error", "procedure calls itself",
              "A procedure reaches itself through its calls (directly or through other procedures). "
              "Procedures are run by expanding their calls, so the call graph must be acyclic: every "
              "effect is then a finite tree of statements that the analyses can follow."),
    "A0702": ("error", "choice that cannot be asked",
              "A `choose` inside an effect that is run before anyone may choose: an action with an "
              "`ensures` (tested on its effect before it is taken) asks a player to choose, or the setup "
              "(before the flow has any player to ask) does."),
    "A0703": ("error", "event that sets off itself",
              "The triggers of an event emit it again, directly or through other events (or procedures). "
              "Events resolve at their `emit`, depth first, so the event graph must be acyclic for every "
              "cascade of triggers to end."),
    "A0704": ("error", "optional trigger without a player",
              "An `optional` trigger asks a player whether to use it: the event has no `Player` "
              "parameter and the trigger names nobody with `optional by PLAYER`."),
    "A0705": ("warning", "modifiers that may not commute",
              "Two modifiers of one `def` might give another result if applied in the other order. They "
              "apply in declaration order; the check knows that modifiers of the forms `value + c`, "
              "`min2(value, c)` and `max2(value, c)` (whose test does not read `value`) commute with "
              "their own kind, and warns about any other pair."),
    "A0706": ("error", "bad modifier",
              "A modifier must name the parameters of its `def` as the def declares them (the same "
              "names, in order), and the def may not have a parameter named `value`, the name of the "
              "result so far."),
}


# What to do, for a diagnostic that brings no more specific hint.
DEFAULT_HINTS: dict[str, str] = {
    "A0001": "compare the line with the grammar in docs/language.md",
    "A0002": "remove the character, or close the string",
    "A0003": "check the path and that the file is readable UTF-8 text",
    "A0005": "split the construct: name a part with `let`, a `def` or a `const`",
    "A0101": "declare the name, or fix its spelling",
    "A0102": "rename one of the two, or announce the second with `override`",
    "A0103": "change the expression, or the declared type, so that they agree",
    "A0104": "give exactly the arguments the declaration lists",
    "A0105": "use one of the record's declared fields",
    "A0106": "assign state variables (or their entries) only",
    "A0107": "move the statement or rule where it has a meaning",
    "A0108": "fix the entry of the game block",
    "A0109": "give one name per item of the tuple, and read items as `t[0]`, `t[1]`, ...",
    "A0110": "return a list of shape records from a function of no parameter or of a player, "
             "reading only visible state",
    "A0201": "add the phase to a stage of the flow, or remove it",
    "A0202": "give the phase `done when`, an action with `end phase`, or `auto`",
    "A0203": "read the option in a rule, or remove it",
    "A0204": "add the missing declaration",
    "A0301": "make the data file match the declared type",
    "A0302": "choose a player count and options the game declares",
    "A0303": "choose options and a player count that meet the requirement",
    "A0304": "check the constant's expression for a cycle or a missing entry",
    "A0305": "compute less in constants: smaller ranges, fewer nested loops, smaller numbers",
    "A0306": "name each seat 0 to player_count - 1 in one team at most, and leave no team empty",
    "A0401": "name a declaration of the base game, and follow `override` with it",
    "A0501": "keep the files in the spec's folder, or trust their folder with --allow-path DIR",
    "A0502": "name a regular file",
    "A0503": "split the file, or keep only what the rules need",
    "A0504": "flatten the data",
    "A0601": "choose what the game declares: its player range, its options' values, a phase where a player decides",
    "A0701": "repeat with `for` over a collection instead of a call, or split the procedure",
    "A0702": "state the condition as a `when`, or move the choice into an action of its own",
    "A0703": "split the event, or do the repeated part with `for` over a collection",
    "A0704": "name who decides: `optional by PLAYER`",
    "A0705": "keep modifiers of one kind, or state in their summaries which applies first",
    "A0706": "name the parameters as the def declares them",
    "A0602": "copy the condition from the action's `when` (or `ensures`), or name one of its parameters",
}


@dataclass(frozen=True)
class Diagnostic:
    code: str
    message: str
    span: Optional[Span] = None
    hint: str = ""
    notes: tuple[str, ...] = ()

    @property
    def severity(self) -> str:
        return CODES[self.code][0]

    def to_json(self) -> dict:
        return {
            "code": self.code, "severity": self.severity, "message": self.message,
            "file": self.span.file if self.span else None,
            "line": self.span.line if self.span else None,
            "column": self.span.column if self.span else None,
            "hint": self.hint or None, "notes": list(self.notes),
        }


class SpecError(Exception):
    """Raised by ``atoll.load`` when a spec has errors; carries all of them."""

    def __init__(self, diagnostics: Iterable[Diagnostic], sources: Optional[dict] = None):
        self.diagnostics = list(diagnostics)
        self.sources = sources or {}
        super().__init__(render_all(self.diagnostics, self.sources))


@dataclass
class Reporter:
    """Collects the diagnostics of one phase of the pipeline."""
    items: list[Diagnostic] = field(default_factory=list)

    def add(self, code: str, message: str, span: Optional[Span] = None, hint: str = "",
            notes: tuple[str, ...] = ()) -> None:
        assert code in CODES, code
        d = Diagnostic(code, message, span, hint, notes)
        if d not in self.items:   # a rule checked twice (a trigger's body, see compiler/events) says it once
            self.items.append(d)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.items if d.severity == "error"]


def did_you_mean(name: str, candidates: Iterable[str]) -> str:
    """A hint naming the closest candidate by edit distance, or ''."""
    close = difflib.get_close_matches(name, sorted(set(candidates)), n=1, cutoff=0.6)
    return f"did you mean `{close[0]}`?" if close else ""


def render(d: Diagnostic, sources: Optional[dict] = None) -> str:
    """Text for one diagnostic: header, location, source line with a caret, hint."""
    sources = sources or {}
    out = [f"{d.severity}[{d.code}]: {d.message}"]
    if d.span is not None:
        out.append(f"  --> {d.span.file}:{d.span.line}:{d.span.column}")
        text = sources.get(d.span.file)
        if text is not None:
            lines = text.splitlines()
            if 1 <= d.span.line <= len(lines):
                src = lines[d.span.line - 1]
                gutter = str(d.span.line)
                pad = " " * len(gutter)
                width = 1
                if d.span.end_line == d.span.line and d.span.end_column > d.span.column:
                    width = d.span.end_column - d.span.column
                width = max(1, min(width, len(src) - d.span.column + 1))
                out.append(f"{pad} |")
                out.append(f"{gutter} | {src}")
                out.append(f"{pad} | {' ' * (d.span.column - 1)}{'^' * width}")
    for n in d.notes:
        out.append(f"  = note: {n}")
    out.append(f"  = help: {d.hint or DEFAULT_HINTS.get(d.code, '')}")
    return "\n".join(printable(line) for line in out)


# Control characters (ESC, BEL, NUL...) but the tab: a spec's text must not
# drive the terminal a diagnostic is printed on.
_CONTROL = {c: "?" for c in list(range(0x20)) + list(range(0x7F, 0xA0)) if c != 0x09}


def printable(text: str) -> str:
    """``text`` with each control character shown as ``?`` (one for one,
    so that a caret keeps its column)."""
    return text.translate(_CONTROL)


def render_all(diags: Iterable[Diagnostic], sources: Optional[dict] = None) -> str:
    return "\n\n".join(render(d, sources) for d in diags)


def to_json(diags: Iterable[Diagnostic]) -> str:
    return json.dumps([d.to_json() for d in diags], indent=2)
