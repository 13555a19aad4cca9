"""Traces to step through: read from a file, replayed into frames.

A trace is a game from its seed: the ids of its actions, in order. Four
files hold one:

* ``atoll verify --json`` (one spec, or a folder of specs): a property's
  counterexample (its ``steps``) or witness (its detail's ``trace``); a
  counterexample of z3's (values of the inputs, no game) has nothing to
  step through and is refused with that reason;
* ``atoll simulate --replays DIR``: a replay (``atoll-replay/1``), one
  random game with the problem it ended on, if any;
* a saved game (``atoll-state/1``, from ``atoll play``'s ``save`` or the
  page of ``atoll serve``): its history.

Replaying checks every action against the rules (an action that is not
legal where the file puts it is refused, with the step), so a frame shows
a position the rules reach, never one the file merely claims. Frames are
plain data; :mod:`atoll.web.viewer` writes them as HTML.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Optional

from atoll import render
from atoll.compiler import names as N
from atoll.compiler.runtime import CHANCE, IllegalAction, ModelError

REPLAY_FORMAT = "atoll-replay/1"
MAX_TRACE_BYTES = 20_000_000   # a trace file is read whole; past this it is refused
MAX_STEPS = 5_000              # frames of one trace


class TraceError(ValueError):
    """A file that holds no trace this spec can replay; the message says why."""


@dataclass
class Source:
    """What a trace file says: the game's configuration and its actions."""
    kind: str                       # counterexample, witness, replay, save
    players: int
    options: dict
    seed: int
    ids: list
    chance: Optional[str] = None    # "auto", "explicit", or None: whichever replays
    prop: Optional[str] = None
    verdict: str = ""
    problem: str = ""
    failed: Optional[str] = None    # a last step that is no action (the verifier's "failed" step)
    spec: Optional[str] = None      # the spec the file names


@dataclass
class Frame:
    """The position after ``step`` actions (0: after setup)."""
    step: int
    who: str = ""                   # "player 1", "chance"; empty at the start
    action: str = ""                # the move in the game's notation
    rule: str = ""                  # the action's name
    rule_text: str = ""             # the action's description
    cites: list = field(default_factory=list)
    changes: list = field(default_factory=list)    # (variable, what it became)
    pictures: list = field(default_factory=list)   # (caption, index into Trace.svgs)
    values: list = field(default_factory=list)     # (variable, value): the whole state
    headline: str = ""
    holds: Optional[bool] = None    # the property's body at this position (invariant, reachable)
    problem: str = ""               # set where the property fails (or the witness is reached)


@dataclass
class Trace:
    title: str
    source: Source
    frames: list
    svgs: list                      # distinct pictures; frames name them by index
    at: int                         # the frame where the property fails (or is reached)


# ------------------------------------------------------------------ reading a file

def read(text, prop: Optional[str] = None, spec_name: Optional[str] = None) -> Source:
    """The trace in a file's text; ``prop`` picks a property of a verify
    report (default: the first with a trace), ``spec_name`` the spec of a
    report of a folder (by file name). Raises ``TraceError``."""
    if isinstance(text, bytes):
        if len(text) > MAX_TRACE_BYTES:
            raise TraceError(f"the file is larger than {MAX_TRACE_BYTES} bytes")
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise TraceError("the file is not UTF-8 text") from None
    try:
        d = json.loads(text)
    except (ValueError, RecursionError) as e:
        raise TraceError(f"the file is not JSON ({e})") from None
    if not isinstance(d, dict):
        raise TraceError("the file is not a JSON object")
    fmt = d.get("format")
    if fmt == REPLAY_FORMAT:
        return _replay(d)
    if fmt == "atoll-state/1":
        return _save(d)
    if "results" in d or "specs" in d:
        return _report(d, prop, spec_name)
    raise TraceError("the file is none of: a report of `atoll verify --json`, a replay of "
                     "`atoll simulate --replays`, a saved game")


def _ints(xs, what: str) -> list:
    if not isinstance(xs, list):
        raise TraceError(f"{what}: expected a list of action ids")
    out = []
    for x in xs:
        if isinstance(x, str) and x.startswith("0x"):
            try:
                x = int(x, 16)
            except ValueError:
                pass
        if not isinstance(x, int) or isinstance(x, bool):
            raise TraceError(f"{what}: {x!r} is not an action id")
        out.append(x)
    if len(out) > MAX_STEPS:
        raise TraceError(f"{what}: {len(out)} actions, more than the {MAX_STEPS} a trace may have")
    return out


def _config(d: dict, what: str) -> tuple[int, dict, int]:
    players, options, seed = d.get("players"), d.get("options", {}), d.get("seed", 0)
    if not isinstance(players, int) or isinstance(players, bool):
        raise TraceError(f"{what}: no player count")
    if not isinstance(options, dict):
        raise TraceError(f"{what}: the options are not a JSON object")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise TraceError(f"{what}: the seed is not an integer")
    return players, options, seed


def _replay(d: dict) -> Source:
    players, options, seed = _config(d, "the replay")
    chance = d.get("chance", "auto")
    if chance not in ("auto", "explicit"):
        raise TraceError("the replay: `chance` is neither auto nor explicit")
    return Source("replay", players, options, seed, _ints(d.get("actions"), "the replay's actions"),
                  chance=chance, problem=str(d.get("problem") or ""), spec=d.get("spec"),
                  prop=d.get("property") if isinstance(d.get("property"), str) else None,
                  verdict=str(d.get("problem") or d.get("ending") or ""))


def _save(d: dict) -> Source:
    rng = d.get("rng")
    if not (isinstance(rng, list) and rng and isinstance(rng[0], int)):
        raise TraceError("the saved game has no seed (`rng`)")
    chance = d.get("chance")
    if chance not in ("auto", "explicit"):
        raise TraceError("the saved game: `chance` is neither auto nor explicit")
    players, options, _ = _config(d, "the saved game")
    return Source("save", players, options, rng[0], _ints(d.get("history"), "the saved game's history"),
                  chance=chance, verdict="a saved game")


def _report(d: dict, prop: Optional[str], spec_name: Optional[str]) -> Source:
    if "specs" in d:   # a report of a folder: the entry of this spec
        entries = [e for e in d["specs"] if isinstance(e, dict)] if isinstance(d["specs"], list) else []
        names = [str(e.get("spec", "")) for e in entries]
        hit = [e for e, n in zip(entries, names)
               if spec_name is not None and n.replace("\\", "/").rsplit("/", 1)[-1] == spec_name]
        if not hit:
            raise TraceError(f"the report has no results for {spec_name}; it has: "
                             + (", ".join(names) or "none"))
        d = hit[0]
    results = d.get("results")
    if not isinstance(results, list):
        raise TraceError("the report has no list of results")
    results = [r for r in results if isinstance(r, dict)]
    if prop is not None:
        mine = [r for r in results if r.get("property") == prop]
        if not mine:
            raise TraceError(f"the report has no property {prop}; it has: "
                             + ", ".join(str(r.get("property")) for r in results))
        return from_result(mine[0], loud=True)
    for r in results:
        found = from_result(r, loud=False)
        if found is not None:
            return found
    raise TraceError("no property of the report has a trace (only a counterexample or a witness "
                     "found by play or search has one): "
                     + ", ".join(f"{r.get('property')} {r.get('verdict')}" for r in results))


def from_result(r: dict, loud: bool = True) -> Optional[Source]:
    """The trace of one result of a verify report (``Result.to_json()``);
    None (``loud``: ``TraceError``) when it has none."""
    name, verdict = str(r.get("property")), str(r.get("verdict", ""))
    cx, detail = r.get("counterexample"), r.get("detail") or {}
    try:
        players, options, _ = _config(r, f"property {name}")
    except TraceError:
        if loud:
            raise
        return None
    if isinstance(cx, dict) and isinstance(cx.get("steps"), list):
        steps = [s for s in cx["steps"] if isinstance(s, dict)]
        ids = _ints([s.get("id") for s in steps if s.get("id") is not None], f"property {name}")
        last = steps[-1] if steps else {}
        failed = str(last.get("action")) if last and last.get("id") is None else None
        seed = cx.get("seed", 0)
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise TraceError(f"property {name}: the seed is not an integer")
        return Source("counterexample", players, options, seed, ids, chance=cx.get("chance"),
                      prop=name, verdict=verdict, problem=str(cx.get("problem") or ""), failed=failed)
    if isinstance(detail, dict) and isinstance(detail.get("trace"), list):
        steps = [s for s in detail["trace"] if isinstance(s, dict)]
        ids = _ints([s.get("id") for s in steps if s.get("id") is not None], f"property {name}")
        seed = detail.get("seed", 0)
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise TraceError(f"property {name}: the seed is not an integer")
        return Source("witness", players, options, seed, ids, chance=detail.get("chance"),
                      prop=name, verdict=verdict, problem=str(r.get("description") or ""))
    if loud:
        why = ("its counterexample is values of the inputs (z3), not a game"
               if isinstance(cx, dict) else "it has neither a counterexample nor a witness game")
        raise TraceError(f"property {name} ({verdict}): nothing to step through: {why}")
    return None


# ------------------------------------------------------------------ replaying

def replay(game, src: Source):
    """The states of the trace, from setup: (first state, [(action, state
    after)]). Raises ``TraceError`` naming the first step that does not apply."""
    modes = [src.chance] if src.chance in ("auto", "explicit") else ["auto", "explicit"]
    last_error = None
    for mode in modes:
        st = game.new_initial_state(seed=src.seed, chance=mode)
        start, out = st.clone(), []
        try:
            for k, aid in enumerate(src.ids, 1):
                a = next((x for x in st.legal_actions() if x.id == aid), None)
                if a is None:
                    raise TraceError(f"step {k}: action id {aid} is not legal there "
                                     f"({'the game is over' if st.is_terminal() else 'player ' + str(st.current_player()) + ' to play'})")
                before = st.clone()
                st.apply_action(a)
                out.append((before, a, st.clone()))
        except TraceError as e:
            last_error = e
            continue
        except (IllegalAction, ModelError) as e:
            last_error = TraceError(f"step {len(out) + 1}: {e}")
            continue
        return start, out
    raise last_error or TraceError("the trace does not replay")


def build(doc, game, src: Source, title: str = "", first: int = 0) -> Trace:
    """The frames of a trace: the position at each step, drawn as the
    mover sees it, with the action, its rule and what it changed; the
    property's body is evaluated at every frame (an invariant's first
    false frame, a witness's first true one, is where it is marked).
    ``first``: the frames from the position after that many steps only
    (an example turn in the middle of a game)."""
    from atoll.docgen import figures
    from atoll.verify.runs import change_text
    start, steps = replay(game, src)
    view = render.view_types(game)
    pr = doc.prog.properties.get(src.prop) if src.prop else None
    body = game.ns.get(N.prop(src.prop)) if src.prop else None
    svgs: list = []

    def pictures(st, viewer: int) -> list:
        out = []
        for key, svg, shown, graph in figures.position_svgs(doc, game, st, viewer, "the position"):
            if svg not in svgs:
                svgs.append(svg)
            what = ", ".join(shown) + (f" on the graph {graph}" if graph else "")
            out.append((what, svgs.index(svg)))
        return out

    def frame(k: int, st, mover: int) -> Frame:
        viewer = mover if 0 <= mover < game.num_players else 0
        f = Frame(k, pictures=pictures(st, viewer), values=_values(game, view, st),
                  headline=_headline(game, st))
        if body is not None and pr is not None and pr.kind in ("invariant", "reachable"):
            try:
                f.holds = bool(body(st.S))
            except Exception:   # the body cannot be evaluated here: no mark
                f.holds = None
        return f

    first = max(0, min(first, len(steps)))
    if first == 0:
        frames = [frame(0, start, start.current_player())]
    else:
        before, a, after = steps[first - 1]
        frames = [frame(first, after, a.player)]
    for k, (before, a, after) in enumerate(steps, 1):
        if k <= first:
            continue
        f = frame(k, after, a.player)
        f.who = "chance" if a.player == CHANCE or a.kind == "chance" else f"player {a.player}"
        f.action = render.action_text(game, before, a)
        spec = game.action_by_name.get(a.kind)
        if spec is not None:
            f.rule, f.rule_text = spec.name, spec.summary
            f.cites = list(spec.cites or game.phases[spec.phase].cites)
        f.changes = [(name, change_text(game.codec, view[name], before.S[j], after.S[j]))
                     for j, name in enumerate(game.layout.names)
                     if j and before.S[j] != after.S[j] and after.S[j] is not None]
        frames.append(f)
    if src.failed:
        last = frames[-1]
        frames.append(Frame(last.step + 1, who="", action=src.failed, pictures=last.pictures,
                            values=last.values, headline=last.headline))
    at = _mark(frames, pr, src)
    return Trace(title or game.title, src, frames, svgs, at)


def _mark(frames: list, pr, src: Source) -> int:
    """Where the trace's point is: the first frame where an invariant is
    false or a witness's condition true, else the last frame."""
    at = len(frames) - 1
    if pr is not None and pr.kind == "invariant":
        at = next((i for i, f in enumerate(frames) if f.holds is False), at)
    elif pr is not None and pr.kind == "reachable":
        at = next((i for i, f in enumerate(frames) if f.holds is True), at)
    if src.kind == "counterexample":
        what = f"here `{src.prop}` fails" + (f": {src.problem}" if src.problem else "")
    elif src.kind == "witness":
        what = f"here `{src.prop}` is reached" + (f" ({src.problem})" if src.problem else "")
    elif src.problem:
        what = f"the game stopped here: {src.problem}"
    else:
        what = ""
    frames[at].problem = what
    return at


def _headline(game, st) -> str:
    if st.is_terminal():
        w = st.winners()
        return (f"game over ({st.ending()}): "
                + (", ".join(f"player {p}" for p in w) + " won" if w else "nobody wins"))
    cp = st.current_player()
    who = {CHANCE: "chance to resolve", -2: "players choosing at once"}.get(cp, f"player {cp} to play")
    return f"round {st.round}, phase {st.phase()}, {who}"


def _values(game, view, st) -> list:
    """Every state variable and phase variable, hidden ones included (a
    trace is the designer's view)."""
    out = []
    for j, name in enumerate(game.layout.names):
        if j and st.S[j] is not None:
            out.append((name, render.label(game.codec, view[name], st.S[j])))
    return out
