"""The pipeline, one phase a line: read, parse, merge variants, collect,
check, lower; then instantiate for a player count and options.

    text --parse--> AST --collect--> Program --check--> typed Program
         --lower--> Python module --instantiate--> Game

Every phase reports all its problems before the pipeline stops.
"""
from __future__ import annotations

import gc
from collections import OrderedDict
from contextlib import contextmanager

from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from atoll.compiler import files, limits, runtime, stdlib
from atoll.compiler import names as N
from atoll.compiler import types as T
from atoll.compiler.check import Checker, check_types
from atoll.compiler.consts import Budget, OverBudget, const_order, too_large
from atoll.compiler.flow import check_flow
from atoll.compiler.lower import Layout
from atoll.compiler.lower_flow import lower
from atoll.compiler.events import desugar as desugar_events
from atoll.compiler.modifiers import apply as apply_modifiers
from atoll.compiler.procs import link as link_procs
from atoll.compiler.pycode import compile_module
from atoll.compiler.symbols import Program, collect
from atoll.compiler import intbound
from atoll.compiler.teams import problem as teams_problem
from atoll.compiler.values import BadValue, ValueCodec, sort_values
from atoll.diagnostics import Diagnostic, Reporter, SpecError, did_you_mean
from atoll.grammar import ast as A
from atoll.grammar.parse import parse

SAFE_BUILTINS = {"sorted": sorted, "sum": sum, "min": min, "max": max, "any": any, "all": all,
                 "len": len, "range": range, "tuple": tuple, "list": list, "frozenset": frozenset, "dict": dict,
                 "abs": abs}


@contextmanager
def gc_paused():
    """Python's full collections paused for the duration, the thresholds
    back as they were after.

    A compile builds tens of thousands of small objects (tokens, syntax
    nodes, types, generated text) and keeps most of them to its end; the
    full collections its allocations trigger walk every object the process
    holds (the imported toolchain included) and free almost nothing: about a
    fifth of a first compile's time. The young collections go on, so what a
    compile drops in a cycle is still freed during it; a full collection may
    come after, at the thresholds the process had. The size of what a compile
    can allocate is bounded by the spec's limits (``compiler/limits.py``)."""
    before = gc.get_threshold()
    gc.set_threshold(before[0], before[1], _NO_FULL_COLLECTION)
    try:
        yield
    finally:
        gc.set_threshold(*before)


# A third threshold no compile reaches: young collections counted before a full one.
_NO_FULL_COLLECTION = 1 << 30


@dataclass
class Compiled:
    """A checked and lowered spec, ready to instantiate."""
    program: Program
    source: str
    layout: Layout
    data: dict
    diagnostics: list[Diagnostic]
    # compiled modules: None for the general one, else by the values folded into it
    _code: dict = field(default_factory=dict, repr=False, compare=False)
    # what every configuration needs and the program alone decides (the
    # program is not changed after the compile), computed once
    _kept: dict = field(default_factory=dict, repr=False, compare=False)

    def kept(self, what: str, compute):
        if what not in self._kept:
            self._kept[what] = compute()
        return self._kept[what]

    def code(self, statics: Optional[dict] = None):
        """The compiled module, general or for one game (see ``lower``)."""
        key = None if statics is None else tuple(sorted(statics.items(), key=repr))
        if key not in self._code:
            prog = self.program
            with gc_paused():
                source = self.source if statics is None else _lowered(prog, statics)[0]
                self._code[key] = (source, _compile(source, prog))
        return self._code[key]


def _too_complex(prog: Program, what: str, span=None) -> SpecError:
    span = span or (prog.game.span if prog.game else A.Span(prog.file, 1, 1, 1, 2))
    return SpecError([Diagnostic(
        "A0005", f"the spec is too complex for the compiler ({what})", span,
        "split the rule that is too big or too deeply nested into smaller ones "
        "(`let`, a `def`, a `const`); the limits are in docs/language.md")], prog.sources)


def _lowered(prog: Program, statics: Optional[dict] = None):
    try:
        return lower(prog, statics)
    except RecursionError:
        raise _too_complex(prog, "Python's recursion limit was reached while generating its code") from None


def _compile(source: str, prog: Program):
    """Compile a generated module. The lowering keeps within Python's limits;
    should one still be reached, it is a diagnostic at the declaration whose
    function Python refused."""
    try:
        return compile_module(source, f"<atoll:{prog.file!r}>")
    except (SyntaxError, RecursionError, MemoryError) as e:
        if isinstance(e, SyntaxError) and not isinstance(e, IndentationError) and not any(
                w in str(e.msg) for w in ("too many", "too deep", "too complex", "Exceeds the limit")):
            raise   # pragma: no cover - a bug of the lowering, not a limit
        line = getattr(e, "lineno", None) or 0
        span = None
        for text in reversed(source.splitlines()[:line]):
            if text.startswith("def "):
                span = _origin_span(prog, text[4:].split("(", 1)[0])
                break
        raise _too_complex(prog, f"Python refused the generated code: {type(e).__name__}", span) from None


def _origin_span(prog: Program, pyname: str):
    """The declaration a generated function comes from (see ``names.origin``)."""
    kind, name = N.origin(pyname) or (None, None)
    table = {"const": prog.consts, "def": prog.defs, "proc": prog.procs, "state": prog.state, "phase": prog.phases,
             "ending": prog.endings, "property": prog.properties}
    if kind == "action" and name in prog.actions:
        return prog.actions[name][1].span
    decl = table.get(kind, {}).get(name)
    return decl.span if decl is not None else None


#: The ASTs of the files parsed lately, by (file, text): an AST is never
#: changed (its nodes are frozen), so the same text need not be parsed again
#: in this process (verify, docs and mutate compile the same spec many times).
_PARSED: "OrderedDict[tuple[str, str], A.Spec]" = OrderedDict()
_PARSED_KEPT = 32


def _parse_kept(text: str, key: str, rep: Reporter) -> Optional[A.Spec]:
    """``parse``, kept: a text that parsed without any diagnostic is parsed once."""
    k = (key, text)
    spec = _PARSED.get(k)
    if spec is not None:
        _PARSED.move_to_end(k)
        return spec
    before = len(rep.items)
    spec = parse(text, key, rep)
    if spec is not None and len(rep.items) == before:
        _PARSED[k] = spec
        if len(_PARSED) > _PARSED_KEPT:
            _PARSED.popitem(last=False)
    return spec


def read_items(path: Path, rep: Reporter, sources: dict, seen: tuple = (),
               via: Optional[A.Span] = None, access: Optional[files.Access] = None) -> Optional[list]:
    """Parse a file and, for a variant, the files it extends, merged.
    ``via`` is the `extends` that named this file, for error positions;
    ``access`` the folders the spec may read (see ``files``)."""
    key = str(path)
    access = access or files.Access(path)
    try:
        text = access.read_text(path, "spec")
    except files.Refused as e:
        rep.add(e.code, e.message, via, e.hint)
        return None
    except (OSError, UnicodeDecodeError) as e:
        why = e.strerror if isinstance(e, OSError) else str(e)
        rep.add("A0003", f"cannot read {path}: {why}", via,
                "paths in `extends` are relative to the file that says it" if via else "check the path")
        return None
    sources[key] = text
    spec = _parse_kept(text, key, rep)
    if spec is None:
        return None
    items = list(spec.items)
    ext = [i for i in items if isinstance(i, A.ExtendsDecl)]
    if not ext:
        return [i for i in items if not isinstance(i, A.OverrideDecl)]
    if len(ext) > 1:
        rep.add("A0401", "a variant extends one game", ext[1].span)
    base_path = path.parent / ext[0].path
    try:
        base_path = base_path.resolve()
    except ValueError:   # no path at all (a null byte): reading it says so
        pass
    if base_path in seen:
        rep.add("A0401", f"{ext[0].path} extends itself in a cycle", ext[0].span)
        return None
    if len(seen) >= limits.MAX_EXTENDS:
        rep.add("A0401", f"a chain of more than {limits.MAX_EXTENDS} variants, each extending the next",
                ext[0].span, "extend the base game, or a variant of it, directly")
        return None
    base = read_items(base_path, rep, sources, seen + (base_path,), ext[0].span, access)
    if base is None:
        if not rep.errors:
            rep.add("A0401", f"cannot extend {ext[0].path}", ext[0].span)
        return None
    return merge(base, items, rep)


def _key(item) -> Optional[tuple]:
    if isinstance(item, (A.SetupDecl, A.FlowDecl, A.TeamsDecl, A.ScoreDecl, A.GameDecl)):
        return (type(item).__name__,)
    name = getattr(item, "name", None)
    return (type(item).__name__, name) if name else None


_SINGLE = {"setup": "SetupDecl", "flow": "FlowDecl", "teams": "TeamsDecl", "score": "ScoreDecl",
           "game": "GameDecl"}


def merge(base: list, variant: list, rep: Reporter) -> list:
    """A variant's declarations add to the base; one marked `override NAME`
    (or `override setup/flow/teams/score/game`) replaces the base's."""
    out = list(base)
    pending: Optional[A.OverrideDecl] = None
    for it in variant:
        if isinstance(it, A.ExtendsDecl):
            continue
        if isinstance(it, A.OverrideDecl):
            pending = it
            continue
        if pending is not None:
            want = pending.name
            k = _key(it)
            matches = (k is not None and (k[-1] == want or (len(k) == 1 and _SINGLE.get(want) == k[0])))
            if not matches:
                rep.add("A0401", f"`override {want}` must be followed by the declaration of `{want}`",
                        pending.span)
            else:
                idx = [i for i, b in enumerate(out) if _key(b) == k]
                if not idx:
                    rep.add("A0401", f"`override {want}`: the base game has no `{want}` to replace",
                            pending.span, did_you_mean(want, [str(_key(b)[-1]) for b in out if _key(b)]))
                else:
                    out[idx[0]] = it
                    pending = None
                    continue
            pending = None
        out.append(it)
    if pending is not None:
        rep.add("A0401", f"`override {pending.name}` is not followed by a declaration", pending.span,
                f"write the new declaration of `{pending.name}` right after it")
    return out


def _load_data(prog: Program, codec: ValueCodec, checker: Checker, rep: Reporter,
               access: Optional[files.Access] = None) -> dict:
    out = {}
    access = access or files.Access(prog.file)
    for d in prog.data.values():
        path = Path(d.span.file).parent / d.path   # relative to the file that declares it
        try:
            raw = files.parse_json(access.read_text(path, "data", d.path), d.path)
            if d.key is not None:
                if not isinstance(raw, dict) or d.key not in raw:
                    raise ValueError(f"it has no top-level key {d.key!r}")
                raw = raw[d.key]
            out[d.name] = codec.from_json(checker.resolve(d.type), raw, d.name)
        except files.Refused as e:
            rep.add(e.code, f"data file {e.message}", d.span, e.hint)
        except OSError as e:
            rep.add("A0301", f"cannot read data file {d.path}: {e.strerror}", d.span,
                    "data paths are relative to the spec file")
        except (ValueError, KeyError, TypeError) as e:
            rep.add("A0301", f"data file {d.path} does not match `{d.name}: {d.type}`: {e}", d.span)
        except RecursionError:
            rep.add("A0301", f"data file {d.path} is nested too deeply to read", d.span,
                    "a data file's lists and objects nest as deep as its declared type")
    return out


def compile_spec(path, allow=()) -> Compiled:
    """Parse, check and lower a spec; raise SpecError with every problem found.
    The spec reads files in its own folder tree only, and in the folders of
    ``allow`` (see ``atoll.compiler.files``)."""
    with gc_paused():
        return _compile_spec(path, allow)


def _compile_spec(path, allow) -> Compiled:
    path = Path(path)
    access = files.Access(path, allow)
    sources: dict[str, str] = {}
    rep = Reporter()
    items = read_items(path, rep, sources, access=access)
    if items is None or rep.errors:
        raise SpecError(rep.items, sources)
    items = link_procs(desugar_events(apply_modifiers(items, rep), rep), rep)
    prog = collect(items, str(path), sources, rep)
    if rep.errors:
        raise SpecError(rep.items, sources)
    try:
        check_types(prog, rep)
        if rep.errors:
            raise SpecError(rep.items, sources)
        check_flow(prog, rep)
    except RecursionError:   # the parser's limits should make this impossible
        raise _too_complex(prog, "Python's recursion limit was reached while checking it") from None
    if rep.errors:
        raise SpecError(rep.items, sources)
    checker = Checker(prog, Reporter())
    data = _load_data(prog, codec_of(prog, checker), checker, rep, access)
    if rep.errors:
        raise SpecError(rep.items, sources)
    source, layout = _lowered(prog)
    comp = Compiled(prog, source, layout, data, list(rep.items))
    comp.code()   # compiled now: a limit of Python is reported with the spec's other problems
    return comp


def codec_of(prog: Program, checker: Checker) -> ValueCodec:
    return ValueCodec({n: e.members for n, e in prog.enums.items()},
                      {n: checker.record_fields(n) for n in prog.records})


def _option_value(o: A.OptionDecl, t, raw, prog: Program):
    """Accept a Python value or its command-line text; return the checked value."""
    if t == T.BOOL:
        if isinstance(raw, bool):
            return raw
        if isinstance(raw, str) and raw.lower() in ("true", "false"):
            return raw.lower() == "true"
        raise ValueError("expected true or false")
    if t == T.INT:
        if isinstance(raw, int) and not isinstance(raw, bool):
            if too_large(raw):
                raise ValueError(f"a number has at most {limits.MAX_INT_DIGITS} digits")
            return raw
        if isinstance(raw, str):
            try:
                return int(raw)
            except ValueError:
                pass
        raise ValueError("expected an integer")
    members = prog.enums[t[1]].members
    if raw in members:
        return raw
    hint = did_you_mean(str(raw), members)
    raise ValueError(f"expected one of {', '.join(members)}" + (f"; {hint}" if hint else ""))


@dataclass
class Configuration:
    """A game's configuration before its rules are specialised: the values
    of its options, constants, teams and initial state, evaluated and checked
    (``ns`` holds them under their generated names), as ``instantiate``
    computes them first. Enough for what reads only values (a table of the
    constants per configuration), at a fraction of a game's cost."""
    ns: dict
    players: int
    options: dict
    teams: tuple
    checker: Checker


def instantiate(comp: Compiled, players: Optional[int] = None, options: Optional[dict] = None) -> runtime.Game:
    c = configure(comp, players, options)
    ns, players = c.ns, c.players
    # The rules again, with this game's options, constants and player count
    # folded in (the values already computed stay in the namespace).
    prog = comp.program
    statics = {("option", o.name): ns[N.value(o.name)] for o in prog.options.values()}
    statics.update({("const", k.name): ns[N.value(k.name)] for k in prog.consts.values()
                    if type(ns[N.value(k.name)]) in (int, bool, str)})
    statics[("builtin", "player_count")] = players
    source, code = comp.code(statics)
    exec(code, ns)
    return _build_game(comp, ns, players, c.options, c.teams, c.checker, source)


def configure(comp: Compiled, players: Optional[int] = None, options: Optional[dict] = None) -> Configuration:
    """The configuration (see ``Configuration``), or SpecError with every
    reason it is not one the game allows, as ``instantiate`` raises it."""
    prog = comp.program
    sources = prog.sources
    checker = Checker(prog, Reporter())
    lo, hi = prog.player_range
    players = lo if players is None else players
    errors = []
    if not isinstance(players, int) or not lo <= players <= hi:
        errors.append(Diagnostic("A0302", f"{prog.title} is played by {lo} to {hi} players, "
                                 f"not {_quote(players)}", None,
                                 f"give a whole number between {lo} and {hi} (--players on the command line)"))
    chosen = {}
    for name, raw in (options or {}).items():
        if name not in prog.options:
            errors.append(Diagnostic("A0302", f"unknown option `{name}`", None,
                                     did_you_mean(name, prog.options) or
                                     "options: " + ", ".join(prog.options)))
            continue
        o = prog.options[name]
        try:
            chosen[name] = _option_value(o, checker.resolve(o.type), raw, prog)
        except ValueError as e:
            errors.append(Diagnostic("A0302", f"option `{name}`: {_quote(raw)} is not valid: {e}", o.span))
    if errors:
        raise SpecError(errors, sources)

    ns = {"__builtins__": comp.kept("builtins", lambda: _builtins(prog, checker))}
    for name, (fn, _, _) in stdlib.FUNCTIONS.items():
        ns[N.stdlib(name)] = fn
    ns.update({N.stdlib(k): v for k, v in dict(
        set_in=_set_in, div=_div, mod=_mod, bag=stdlib._bag, bag_minus=_bag_minus, at=stdlib.at,
        unique=stdlib.unique, meets=stdlib.meets, failure=Exception, no_case=stdlib.no_case,
        too_many_choices=stdlib.too_many_choices, absent=stdlib.ABSENT).items()})
    checker_types = {o.name: checker.resolve(o.type) for o in prog.options.values()}

    def runtime_value(name, v):   # enum members run as their index
        t = checker_types[name]
        return prog.enums[t[1]].members.index(v) if isinstance(t, tuple) and t[0] == "enum" else v

    def display_value(name, v):
        t = checker_types[name]
        return prog.enums[t[1]].members[v] if isinstance(t, tuple) and t[0] == "enum" else v

    ns["NP"] = players
    ns["PLAYERS"] = tuple(range(players))
    ns["SEATS"] = tuple(range(players))
    exec(comp.code()[1], ns)   # our generated source only
    values = {}
    for o in prog.options.values():
        if o.name in chosen:
            values[o.name] = chosen[o.name]
    for name, v in comp.data.items():
        ns[N.value(name)] = v
    with Budget():   # every step below costs; past the budget: A0305
        for o in prog.options.values():
            if o.name not in values:
                values[o.name] = display_value(o.name, _evaluate(
                    lambda: _eval_static(o.default, prog, comp, ns), f"option `{o.name}`", o.span, sources))
            ns[N.value(o.name)] = runtime_value(o.name, values[o.name])
        _eval_consts(prog, ns, sources, comp.kept("const_order", lambda: const_order(prog)))
        for i, r in enumerate(prog.requires):
            if not _evaluate(ns[N.require_fn(i)], "a requirement", r.span, sources):
                raise SpecError([Diagnostic("A0303", r.notes.summary or "a requirement of the game is not met",
                                            r.span, f"this needs: {_src(sources, r.cond.span)}")], sources)
        teams = _evaluate(lambda: tuple(tuple(t) for t in ns["teams"]()), "the teams",
                          prog.teams.span if prog.teams else prog.game.span, sources)
    bad_teams = teams_problem(teams, players)
    if bad_teams:
        raise SpecError([Diagnostic("A0306", f"the teams of {players} players: {bad_teams}",
                                    prog.teams.span if prog.teams else None,
                                    "name each seat 0 to player_count - 1 in one team at most, "
                                    "and leave no team empty")], sources)
    ns["TEAM_OF"] = {p: t for t in teams for p in t}
    for p in range(players):
        ns["TEAM_OF"].setdefault(p, (p,))
    with Budget():   # initial values read only constants: each is evaluated once here, within the budget
        for v in prog.state.values():
            _evaluate(ns[N.init(v.name)], f"the initial value of `{v.name}`", v.span, sources)
    return Configuration(ns, players, values, teams, checker)


def _evaluate(fn, what: str, span, sources):
    """``fn()``, with a failure as a diagnostic at ``span`` (A0304, or A0305
    when the budget ran out)."""
    try:
        value = fn()
    except SpecError:
        raise
    except OverBudget as e:
        raise SpecError([Diagnostic("A0305", f"evaluating {what} is over the budget: {e}", span)],
                        sources) from None
    except RecursionError:
        raise SpecError([Diagnostic("A0304", f"evaluating {what} recursed too deeply", span,
                                    "a function that calls itself needs a case that stops")],
                        sources) from None
    except Exception as e:
        raise SpecError([Diagnostic("A0304", f"evaluating {what} failed: {_describe(e)}", span)],
                        sources) from None
    if too_large(value):
        raise SpecError([Diagnostic("A0305", f"{what} holds a number of more than "
                                    f"{limits.MAX_INT_DIGITS} digits", span)], sources)
    return value


def _quote(value) -> str:
    """A value given from outside, as a short text for a message."""
    if type(value) is int and value.bit_length() > limits.MAX_INT_BITS:
        return f"a number of about {int(value.bit_length() * 0.30103)} digits"
    try:
        text = repr(value)
    except Exception:   # pragma: no cover - a value that cannot be printed
        text = type(value).__name__
    return text if len(text) <= 80 else text[:77] + "..."


def _describe(e: Exception) -> str:
    """An exception as a short text (its message may hold any value)."""
    try:
        text = str(e)
    except Exception:   # e.g. a number too long to print
        text = ""
    text = text if len(text) <= 200 else text[:200] + "..."
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def _eval_consts(prog: Program, ns: dict, sources, order_cycle) -> None:
    """Evaluate the constants, each after those it reads (in any order of
    declaration): in the order ``const_order`` found from their references
    (``order_cycle``), each once."""
    order, cycle = order_cycle
    if cycle:
        k = prog.consts[cycle[0]]
        raise SpecError([Diagnostic(
            "A0304", f"constant `{k.name}` cannot be evaluated: it depends on itself in a cycle ("
            + " -> ".join(f"`{c}`" for c in cycle) + ")", k.span,
            "constants may not depend on each other in a cycle")], sources)
    for name in order:
        k = prog.consts[name]
        ns[N.value(name)] = _evaluate(ns[N.const_fn(name)], f"constant `{name}`", k.span, sources)


def _eval_static(expr, prog, comp, ns):
    """Evaluate an option's default (an expression of constants), in a copy of
    the namespace (with its own hoisted helpers, if any)."""
    from atoll.compiler.lower import Lowerer
    lw = Lowerer(prog)
    src = lw.ex(expr)
    scope = dict(ns)
    if lw.helpers:
        exec(_compile("\n".join(lw.helpers) + "\n", prog), scope)
    return eval(compile(src, "<option default>", "eval"), scope)


def _phase_initial(prog, ns: dict, layout) -> list:
    """The value each phase variable holds before its phase first starts: its
    declared initial value when that reads no state and no player (so that a
    property may read it in any position), else None (the value the phase
    gives it when it starts is then the first)."""
    from atoll.compiler.consts import Budget
    from atoll.compiler.lower import Lowerer
    names = layout.names
    first = len(names) - sum(len(ph.vars) for ph in prog.phases.values())
    out = [None] * (len(names) - first)
    for ph in prog.phases.values():
        for v in ph.vars:
            lw = Lowerer(prog)
            try:
                src = lw.ex(v.init)
                if lw.helpers:
                    continue
                scope = dict(ns)
                scope.update(S=None, me=None)
                with Budget():
                    out[names.index(f"{ph.name}.{v.name}") - first] = eval(
                        compile(src, "<phase variable>", "eval"), scope)
            except Exception:   # it reads the state or a player: no value before the phase starts
                continue
    return out


def _src(sources, span) -> str:
    text = sources.get(span.file, "")
    lines = text.splitlines()
    if span.line == span.end_line and 1 <= span.line <= len(lines):
        return lines[span.line - 1][span.column - 1:span.end_column - 1]
    if 1 <= span.line <= len(lines):
        return lines[span.line - 1][span.column - 1:].strip()
    return "?"


def _build_game(comp: Compiled, ns: dict, players: int, options: dict, teams, checker: Checker,
                source: str):
    prog = comp.program
    layout = comp.layout
    sources = prog.sources
    slot_types = [T.INT] + [None] * (len(layout.names) - 1)
    visibility = [("global", "all")] + [None] * (len(layout.names) - 1)
    for v in prog.state.values():
        i = layout.slots[("state", v.name)]
        t = checker.resolve(v.type)
        slot_types[i] = ("player", t) if v.scope == "player" else t
        visibility[i] = (v.scope, v.visibility)
    for ph in prog.phases.values():
        for v in ph.vars:
            i = layout.slots[("phase", ph.name, v.name)]
            slot_types[i] = checker.resolve(v.type)
            visibility[i] = ("phase", v.visibility)
    actions = []
    phases = {}
    for ph in prog.phases.values():
        idx = []
        for a in ph.actions:
            clauses = tuple((_src(sources, q.domain.span), "") for q in a.params) + tuple(
                (_src(sources, g.cond.span), g.notes.summary) for g in a.guards if g.kind == "when")
            ensures = tuple((_src(sources, g.cond.span), g.notes.summary)
                            for g in a.guards if g.kind == "ensures")
            spec = runtime.ActionSpec(len(actions), a.name, ph.name,
                                      tuple((q.name, checker.resolve(q.type)) for q in a.params),
                                      clauses, ensures, a.notes.cites, a.notes.summary)
            idx.append(spec.index)
            actions.append(spec)
        phases[ph.name] = runtime.PhaseSpec(ph.name, tuple(idx), bool(ph.auto), ph.notes.cites)
    rounds = [[(j, st.phases, st.kind, ns.get(N.until_fn(i, j)),
                None if st.keeper is None else layout.slots[("state", st.keeper)])
               for j, st in enumerate(rd.stages)] for i, rd in enumerate(prog.flow.rounds)]
    endings = []
    for en in prog.endings.values():
        o = en.outcome
        kind = "win" if isinstance(o, A.OutcomeWin) else "tie" if isinstance(o, A.OutcomeTie) else "rank"
        endings.append(runtime._Ending(en.name, en.time, en.notes.cites, kind,
                                       getattr(o, "tie", "tie")))
    codec = codec_of(prog, checker)
    info = {"reads_round": ("builtin", "current_round") in set(prog.refs.values()),
            "int_watch": intbound.watched_slots(prog, checker, ns, codec, layout.names),
            "state_vars": [(v.name, v.scope) for v in prog.state.values()],
            "phase_slots": sum(len(ph.vars) for ph in prog.phases.values()),
            "phase_initial": _phase_initial(prog, ns, layout),
            "invariants": [pr.name for pr in prog.properties.values() if pr.kind == "invariant"],
            "action_invariants": [(pr.name, pr.action) for pr in prog.properties.values()
                                  if pr.kind == "action_invariant"],
            # for the terminal view (atoll.render): the declared types (which
            # ints are players) and the descriptions of the state and endings
            "declared": {v.name: v.type for v in prog.state.values()},
            "notes": {v.name: v.notes.summary for v in prog.state.values()},
            "ending_notes": {en.name: en.notes.summary for en in prog.endings.values()},
            # the `if` branches described in words, by number (the events of traces and play)
            "branch_notes": tuple(words for _, words in prog.branch_notes()),
            # some effect asks a player to choose (the first phase's `on enter` may, while the
            # setup is still under way: a save may then wait with no player in a stage yet)
            "chooses": any(isinstance(n, A.Choose) for n in A.walk(tuple(prog.procs.values())
                                                                   + tuple(prog.phases.values()))),
            # every choice an effect can ask, (name, type) in the spec's order: the index of its
            # rule, so that a choice's action id does not depend on which choice a game met first
            "choice_keys": tuple(dict.fromkeys(
                (N.ident(n.name), prog.types.get(id(n), T.UNKNOWN))
                for n in A.walk(tuple(prog.procs.values()) + tuple(prog.phases.values()))
                if isinstance(n, A.Choose)))}
    return runtime.Game(title=prog.title, file=prog.file, ns=ns, layout=layout, num_players=players,
                        options=options, codec=codec, slot_types=slot_types,
                        visibility=visibility, actions=actions, phases=phases, rounds=rounds,
                        endings=endings, teams=teams, program_info=info, source=source)


def _set_in(container, keys, value):
    """Copy-on-write update of a nested tuple/dict at the path ``keys``."""
    k = keys[0]
    if not isinstance(container, dict) and not 0 <= k < len(container):
        raise stdlib.EvalError(f"index {k} is outside 0..{len(container) - 1}")
    if len(keys) > 1:
        value = _set_in(container[k], keys[1:], value)
    if isinstance(container, dict):
        out = dict(container)
        out[k] = value
        return out
    return container[:k] + (value,) + container[k + 1:]


def _builtins(prog: Program, checker) -> dict:
    """The builtins of a game's module: ``sorted`` orders ``none`` first
    (values.sort_values) when some value of the spec may hold one."""
    records = {r: [ft for _, ft in checker.record_fields(r)] for r in prog.records}
    if any(T.holds_maybe(t, records) for t in prog.types.values()):
        return {**SAFE_BUILTINS, "sorted": sort_values}
    return SAFE_BUILTINS


def _div(a, b):
    return 0 if b == 0 else a // b


def _mod(a, b):
    return a if b == 0 else a % b


def _bag_minus(a, b):
    out = list(a)
    for x in b:
        if x in out:
            out.remove(x)
    return tuple(out)


_CACHE: dict = {}


def load(path, players: Optional[int] = None, options: Optional[dict] = None,
         allow=()) -> runtime.Game:
    """Compile (cached by path, the folders it may read and the contents of
    every file it reads) and instantiate a spec. ``allow``: folders the spec
    may read besides its own (see ``compile_spec``)."""
    path = Path(path)
    key = (str(path.resolve()), files.Access(path, allow).key)
    hit = _CACHE.get(key)
    if hit is not None and _stamps(hit[0]) == hit[1]:
        comp = hit[2]
    else:
        comp = compile_spec(path, allow)
        read = list(comp.program.sources) + [str(Path(d.span.file).parent / d.path)
                                             for d in comp.program.data.values()]
        _CACHE[key] = (read, _stamps(read), comp)
    return instantiate(comp, players, options)


def _stamps(names) -> tuple:
    """Digests of the contents of every file a compiled spec came from
    (read as compiling reads them: regular files, within the size caps)."""
    return tuple(files.digest(f) for f in names)
