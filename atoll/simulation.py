"""Random-play simulation, independent of where the games run.

Two steps, shared by every engine (the local loop in ``atoll simulate`` and
the Dask path in :mod:`atoll.dask_sim`), so that both compute the same thing:

* :func:`play_games` plays games by seed and returns one :class:`Record`
  per game. Game ``i`` of a run with base seed ``s`` always gets seed
  ``s + i``, whoever plays it.
* :func:`summarize` merges records (in any order, from any number of
  chunks) into the summary that ``atoll simulate`` prints and ``--json``
  writes.

A worker that cannot share the client's Python objects rebuilds the game
from a :class:`SpecBundle`: the text of every file the spec reads, compiled
again on the worker (:func:`game_from_bundle`).
"""
from __future__ import annotations

import hashlib
import json
import os
import random
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, NamedTuple, Optional

from atoll.compiler import names as N
from atoll.compiler import pipeline
from atoll.compiler.runtime import ModelError
from atoll.compiler.playout import Moves, move_kind

# Keys of a summary that depend on the machine and the engine, not on the games.
RUN_KEYS = ("seconds", "games_per_s", "actions_per_s", "engine")


class Record(NamedTuple):
    """The outcome of one game. ``problem`` is None for a game that ended
    normally; otherwise ``length`` is the number of actions played before the
    problem and the other fields are empty."""
    seed: int
    length: int
    ending: Optional[str]
    winners: tuple
    scores: tuple
    problem: Optional[str]


def invariants(game) -> list[tuple[str, Callable]]:
    """The spec's `invariant` properties that apply to this player count and
    these options, as (name, test of a state)."""
    out = []
    for name in game.info.get("invariants", ()):
        when = game.ns.get(N.prop_when(name))
        if when is None or when():
            fn = game.ns[N.prop(name)]
            out.append((name, lambda st, fn=fn: bool(fn(st.S))))
    for name, action in game.info.get("action_invariants", ()):   # over every legal action of its kind
        when = game.ns.get(N.prop_when(name))
        if when is None or when():
            fn = game.ns[N.prop(name)]
            out.append((name, lambda st, fn=fn, action=action: st.is_chance_node() or all(
                fn(st.S, a.player, *a.params) for a in st.legal_actions() if a.kind == action)))
    return out


def _broken(checks, st) -> Optional[str]:
    for name, holds in checks:
        if not holds(st):
            return name
    return None


def play_random_game(game, seed: int, max_steps: int = 100_000, check: bool = False):
    """One game by uniformly random agents; returns (state, steps, error).
    With ``check``, every invariant of the spec is tested after setup and
    after every action; the first that fails is the game's error. Played
    on the lean path (``State.legal_moves``/``apply_move``: no Action
    objects), which gives the same game as choosing among ``legal_actions()``."""
    st = game.new_initial_state(seed=seed)
    rng = random.Random(seed)
    checks = invariants(game) if check else []
    steps = 0
    if checks and (bad := _broken(checks, st)):
        return st, steps, f"invariant `{bad}` is false after setup"
    while not st.is_terminal():
        legal = st.legal_moves()
        if not legal:
            return st, steps, "deadlock: a non-terminal state has no legal action"
        i = rng.randrange(len(legal))
        move = legal[i]
        if checks:   # its label, in case an invariant fails after it
            label = str(move) if legal.__class__ is not Moves else game._label(
                game.actions[move_kind(legal, i)].name, move)
        try:
            st.apply_move(i)
        except ModelError as e:   # the state before it, for a replay (atoll.web.traces)
            e.state, e.action = st, st.legal_actions()[i]
            raise
        steps += 1
        if checks and (bad := _broken(checks, st)):
            return st, steps, f"invariant `{bad}` is false after action {steps}, {label}"
        if steps >= max_steps:
            return st, steps, f"no end after {max_steps} actions"
    return st, steps, None


def play_games(game, seeds: Iterable[int], max_steps: int = 100_000,
               on_game: Optional[Callable[[int], None]] = None, check: bool = False) -> list[Record]:
    """Play one random game per seed; ``on_game(k)`` after the k-th game.
    ``check``: test the spec's invariants at every step (see play_random_game)."""
    out = []
    for k, s in enumerate(seeds, 1):
        try:
            st, steps, err = play_random_game(game, s, max_steps, check)
        except ModelError as e:
            out.append(Record(s, 0, None, (), (), f"model error: {e}"))
        else:
            if err:
                out.append(Record(s, steps, None, (), (), err))
            else:
                out.append(Record(s, steps, st.ending(), tuple(st.winners()), tuple(st.scores()), None))
        if on_game:
            on_game(k)
    return out


def chunks(seed: int, n: int, size: int) -> list[tuple[int, int]]:
    """Split seeds ``seed .. seed+n-1`` into (first seed, count) pieces."""
    size = max(1, size)
    return [(seed + i, min(size, n - i)) for i in range(0, n, size)]


def summarize(game, records: Iterable[Record], n: int, seed: int, seconds: float,
              engine: Optional[dict] = None) -> dict:
    """The summary of ``n`` games (seeds seed..seed+n-1) from their records,
    which may come in any order. Everything but :data:`RUN_KEYS` depends only
    on the records."""
    records = sorted(records, key=lambda r: r.seed)
    if [r.seed for r in records] != list(range(seed, seed + n)):
        raise ValueError(f"expected one record per seed {seed}..{seed + n - 1}, "
                         f"got {len(records)} records")
    np_ = game.num_players
    lengths, endings, problems = [], {}, []
    wins, draws = [0] * np_, 0
    scores = [[] for _ in range(np_)]
    for r in records:
        if r.problem is not None:
            problems.append({"seed": r.seed, "problem": r.problem})
            continue
        lengths.append(r.length)
        endings[r.ending] = endings.get(r.ending, 0) + 1
        if r.winners:
            for p in r.winners:
                wins[p] += 1
        else:
            draws += 1
        for p, sc in enumerate(r.scores):
            scores[p].append(sc)
    played = len(lengths)
    actions = sum(lengths)
    return {
        "game": game.title, "players": np_, "options": game.options, "games": n, "seed": seed,
        "finished": played, "problems": problems,
        "length": {"mean": actions / played if played else 0,
                   "min": min(lengths, default=0), "max": max(lengths, default=0),
                   "histogram": _histogram(lengths)},
        "endings": dict(sorted(endings.items(), key=lambda kv: str(kv[0]))),
        "wins_per_seat": wins, "win_rate_per_seat": [w / played if played else 0 for w in wins],
        "draws": draws,
        "scores_per_seat": [{"mean": sum(s) / len(s) if s else 0, "min": min(s, default=0),
                             "max": max(s, default=0), "histogram": _histogram(s)}
                            for s in scores],
        "seconds": seconds, "games_per_s": n / seconds if seconds else 0,
        "actions_per_s": actions / seconds if seconds else 0,
        "engine": engine or {"name": "local"},
    }


def _histogram(values: list) -> dict:
    counts: dict = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    return {str(v): counts[v] for v in sorted(counts)}


def outcome(summary: dict) -> dict:
    """A summary without the keys that depend on the machine or the engine:
    two runs of the same games have equal outcomes."""
    return {k: v for k, v in summary.items() if k not in RUN_KEYS}


def simulate(game, n: int, seed: int = 0, progress=None, max_steps: int = 100_000,
             check: bool = False) -> dict:
    """Play ``n`` random games here, in this process, and summarise them."""
    t0 = time.perf_counter()
    records = play_games(game, range(seed, seed + n), max_steps,
                         progress.update if progress else None, check)
    return summarize(game, records, n, seed, time.perf_counter() - t0, {"name": "local"})


# ---------------------------------------------------------------- replays

REPLAYS_KEPT = 20   # replays written by one run: the first games with a problem


def replay_data(game, spec: str, seed: int, max_steps: int = 100_000, check: bool = False) -> dict:
    """Game ``seed`` played again (it is the same game: the seed fixes
    every choice) as a replay, format ``atoll-replay/1``: its configuration,
    its actions and the problem it ended on, if any (a model error's
    failing action is the last one, not applied). ``atoll serve SPEC
    --trace FILE`` steps through it."""
    from atoll.compiler.savegame import id_to_json
    failed = None
    try:
        st, steps, problem = play_random_game(game, seed, max_steps, check)
    except ModelError as e:
        st, problem, failed = e.state, f"model error: {e}", e.action
    broken = next((name for name in game.info.get("invariants", ())
                   if problem and problem.startswith(f"invariant `{name}` is false")), None)
    return {"format": "atoll-replay/1", "spec": spec, "game": game.title, "property": broken,
            "players": game.num_players, "options": game.options, "seed": seed, "chance": "auto",
            "actions": [id_to_json(a) for a in st.history] + ([id_to_json(failed.id)] if failed else []),
            "problem": problem, "ending": st.ending(), "winners": list(st.winners())}


def write_replays(game, spec: str, summary: dict, folder, max_steps: int = 100_000,
                  check: bool = False) -> list[Path]:
    """A replay of every game of the run that ended on a problem (the first
    :data:`REPLAYS_KEPT`), or of its first game when none did, into
    ``folder`` as ``seed-N.json``."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    seeds = [p["seed"] for p in summary["problems"][:REPLAYS_KEPT]] or [summary["seed"]]
    out = []
    for s in seeds:
        path = folder / f"seed-{s}.json"
        path.write_text(json.dumps(replay_data(game, spec, s, max_steps, check), indent=1) + "\n",
                        encoding="utf-8")
        out.append(path)
    return out


# ---------------------------------------------------------------- specs as text

@dataclass(frozen=True)
class SpecBundle:
    """The text of every file a spec reads (the spec, the files it extends,
    its data files), by path relative to a common folder, and which of them
    is the spec. ``digest`` identifies the contents."""
    root: str
    files: tuple   # ((relative path, text), ...)
    digest: str


def spec_bundle(path, allow=()) -> SpecBundle:
    """Read a spec and everything it reads into a :class:`SpecBundle`
    (``allow``: folders it may read besides its own, as for ``compile_spec``).
    Raises SpecError when the spec does not compile."""
    path = Path(path)
    comp = pipeline.compile_spec(path, allow)
    names = [Path(f).resolve() for f in comp.program.sources]
    names += [(Path(d.span.file).parent / d.path).resolve() for d in comp.program.data.values()]
    names = sorted(set(names))
    base = Path(os.path.commonpath([str(p.parent) for p in names]))
    files = tuple((p.relative_to(base).as_posix(), p.read_text(encoding="utf-8")) for p in names)
    root = path.resolve().relative_to(base).as_posix()
    digest = hashlib.sha256(json.dumps([root, files]).encode()).hexdigest()
    return SpecBundle(root, files, digest)


_LOCAL = threading.local()


def game_from_bundle(bundle: SpecBundle, players: Optional[int], options: Optional[dict]):
    """Compile a bundled spec and instantiate it; cached per thread, so a
    worker compiles each spec once however many chunks it plays."""
    key = (bundle.digest, players, json.dumps(options or {}, sort_keys=True))
    cache = getattr(_LOCAL, "games", None)
    if cache is None:
        cache = _LOCAL.games = {}
    if key not in cache:
        with tempfile.TemporaryDirectory(prefix="atoll-spec-") as d:
            for rel, text in bundle.files:
                f = Path(d, rel)
                f.parent.mkdir(parents=True, exist_ok=True)
                f.write_text(text, encoding="utf-8")
            comp = pipeline.compile_spec(Path(d, bundle.root), allow=[d])   # reads every file now
        cache[key] = pipeline.instantiate(comp, players, options)
    return cache[key]


def play_chunk(bundle: SpecBundle, players: Optional[int], options: Optional[dict], first: int,
               count: int, max_steps: int, check: bool = False) -> list[Record]:
    """A worker's task: games with seeds first..first+count-1 of a bundled spec."""
    game = game_from_bundle(bundle, players, options)
    return play_games(game, range(first, first + count), max_steps, check=check)
