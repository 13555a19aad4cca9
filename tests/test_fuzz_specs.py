"""Two hundred cases of the fuzz run (``benchmarks/fuzz_specs.py``): the
same generators (grammar, mutations of the shipped specs, hostile texts,
names, paths, data files, `extends`, deep nesting, limits, expensive
constants, colliding names), each case in a worker process with a time
and a memory limit. None may run code from the spec, fail inside the
toolchain, hang, run out of memory, read outside its folder, miscompile or
load a damaged save as a state its history does not lead to.

Failures that are already reported are listed in ``KNOWN`` (a signature
pattern, most with a small case; ``benchmarks/fuzz_findings.md`` has a
reproducer for each): the run tolerates exactly those, and each case has a
strict-xfail test below that starts passing, that is failing, once the bug
is fixed; then delete its entry. Cases that carry a tag of a known
hang (``skip``) are left out of the run while the entry exists, as each
would cost the whole time limit. (The same style as ``test_fuzz.py``.)
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
import fuzz_gen as G   # noqa: E402
import fuzz_specs as F   # noqa: E402
from fuzz_worker import FAILURES, run_cases   # noqa: E402

SEED = 20261201
N = 200
ARGS = argparse.Namespace(steps=20, counts=2, cli_every=0, verify_every=0)
DEEP = 'game deep { title: "Deep" players: 2..2 }\n' \
       "state { n: int = 0 visible all }\n" \
       "flow { round { turns in seats: p } }\n" \
       "phase p { action go() { n = n + 1 end phase } }\n" \
       "ending e after_turn when n > 3 => tie\n"
COLLIDE = ('game c { title: "C" players: 2..2 }\n'
           "state { flag: int = 0 visible all  last: int = 0 visible all }\n"
           "flow { round { turns in seats: p } }\n"
           "phase p {\n"
           "  action b() when flag == 1 { last = 1  end phase }\n"
           "  action go() ensures can(b) { flag = 0  last = 2  end phase }\n"
           "  action b_1() when flag == 0 { last = 3  end phase }\n"
           "  action go2() when can(b_1) { last = 4  end phase }\n"
           "}\n"
           "ending e after_turn when last > 0 => tie\n")


def _case(text: str, files: dict = None, name: str = "k.atoll", oracle=None, gen="known",
          tags=()) -> G.Case:
    """A case as the generator ``gen`` makes it (its signatures name it)."""
    return G.Case(gen, tuple(tags), {name: text, **(files or {})}, name, oracle=oracle)


def _data_game(path: str, decl: str = 'cards: list[int] from {} key "cards"') -> str:
    return DEEP.replace("state {", f"data {decl.format(G.atoll_string(path))}\nstate {{")


# name -> (pattern of the signatures it covers, tags of cases the run leaves
# out while it is open, a small case that shows it)
FIXED: dict = {
    "path_in_generated_source": (
        r"^CODE_EXEC \[hostile_path|^INTERNAL (instantiate|cli [\w-]+): (SyntaxError|IndentationError): "
        r"(invalid syntax|unterminated|invalid non-printable|unexpected indent|unindent)",
        (), _case(G.template(), name="x\n" + G.PAYLOAD + "\n#.atoll", gen="hostile_path", tags=("path",))),
    "deep_nesting_in_the_parser_or_checker": (
        r"^INTERNAL (compile|cli [\w-]+): (RecursionError|RuntimeError: internal error building the AST: "
        r"RecursionError)",
        (), _case(DEEP.replace("n + 1", "size(" + "[" * 1000 + "1" + "]" * 1000 + ")"))),
    "deep_nesting_in_generated_python": (
        r"^INTERNAL (instantiate|cli [\w-]+): (SyntaxError|IndentationError): too many",
        (), _case(DEEP.replace("n + 1", " + ".join(["1"] * 250)))),
    "huge_integer_literal": (
        r"^INTERNAL (compile|cli [\w-]+): RuntimeError: internal error building the AST: ValueError",
        (), _case(DEEP.replace("n + 1", "9" * 5000))),
    "huge_folded_or_computed_integer": (
        r"^INTERNAL (instantiate|play|json|saved|cli [\w-]+): ValueError: Exceeds the limit",
        (), _case(DEEP.replace("n: int = 0", "n: int = " + " * ".join(["9" * 1000] * 5)))),
    "deep_json_data": (
        r"^INTERNAL (compile|cli [\w-]+): RecursionError: maximum recursion depth exceeded while decoding",
        (), _case(_data_game("d.json"), {"d.json": "[" * 100_000 + "]" * 100_000})),
    "nul_in_a_path": (
        r"^INTERNAL (compile|cli [\w-]+): ValueError: embedded null byte",
        (), _case('extends "a\x00b.atoll"\n')),
    "non_regular_files": (
        r"^(HANG|MEMORY) (compile|cli [\w-]+) \[hostile_(data|extends): (data|extends)/"
        r"(fifo|dev_zero|dev_urandom|link_zero)",
        ("fifo", "dev_urandom"), _case(_data_game("/dev/zero"), gen="hostile_data", tags=("data", "dev_zero"))),
    "reads_outside_the_folder": (
        r"^(ESCAPE|LEAK) (compile|cli [\w-]+) \[hostile_(data|extends)",
        (), _case(_data_game("../secret_ok.json"), gen="hostile_data", tags=("data", "up_secret", "escape"))),
    "expensive_constants": (
        r"^(HANG|MEMORY) (instantiate|play|verify) \[(expensive: expensive/(nested_sum|reverse_consts|subsets)"
        r"|limits: limits/big_list)",
        ("nested_sum", "reverse_consts", "subsets", "big_list"),
        _case(DEEP.replace("state {", "const k: int = sum(x * y for x in range(100000) "
                                      "for y in range(100000))\nstate {"),
              gen="expensive", tags=("expensive", "nested_sum"))),
    "huge_player_counts_and_action_spaces": (
        r"^HANG (play|instantiate|cli [\w-]+) \[(limits: limits/players|expensive: expensive/cartesian)"
        r"|^INTERNAL (instantiate|cli [\w-]+): OverflowError: Python int too large",
        ("players", "players_hi", "cartesian"), None),
    "many_declarations_are_slow": (
        r"^HANG (compile|instantiate) \[expensive: expensive/(many_actions|many_states)",
        ("many_actions", "many_states"), None),
    "verify_on_huge_domains": (     # the suite's run does not verify; the full run does
        r"^INTERNAL verify: Z3Exception|^HANG verify \[limits: limits/(range_param|negative_range)",
        (), None),
    "colliding_generated_names": (
        r"^MISCOMPILE oracle \[collide\]",
        (), _case(COLLIDE, oracle={"legal": ["b_1", "go2"], "last": {"b": 1, "go": 2, "b_1": 3, "go2": 4}},
              gen="collide")),
    "damaged_saves_load": (
        r"^BAD_LOAD saved|^INTERNAL saved: ",
        (), None),
}


# Bugs the fuzzer found and issue 10 fixed: each small case must now run
# with no failure (the pattern says how it used to fail). Entries without a
# case are shown by the run of many cases only.
KNOWN: dict = {}   # name -> (pattern, tags left out of the run while open, case): open bugs


def _known(sig: str):
    return next((k for k, (pat, _, _) in KNOWN.items() if re.search(pat, sig)), None)


def _skip(case: G.Case) -> bool:
    tags = {t for _, skip, _ in KNOWN.values() for t in skip}
    return bool(tags & set(case.tags))


def _hangs_alone(e) -> bool:
    """A HANG is a case past its time limit, measured on a shared machine:
    run it again alone, with twelve times the time, before calling it one
    (a real hang still hangs; a busy machine does not fail the suite)."""
    case = F.make_case(SEED, e["index"], None)
    res = run_cases([(e["index"], case, e["opts"])], jobs=1, timeout=120.0, memory_mb=1024)
    return any(f["class"] == "HANG" for r in res for f in r["findings"])


def test_fuzz_run_has_no_new_failures():
    s = F.fuzz(N, SEED, jobs=2, timeout=10.0, memory_mb=1024, args=ARGS, skip=_skip)
    assert s["n"] >= N * 0.9, s["n"]
    assert s["classes"]["OK"] >= N // 5, s["classes"]      # the cases reach play, not only the parser
    new = [e for e in s["signatures"] if e["class"] in FAILURES and _known(e["signature"]) is None]
    new = [e for e in new if e["class"] != "HANG" or _hangs_alone(e)]
    detail = "\n\n".join(
        f"{e['signature']} ({e['count']}x), e.g. case {e['index']} of seed {SEED}: {e['note'][:300]!r}\n"
        f"main file {e['case']['main']!r}:\n{str(e['case']['files'].get(e['case']['main']))[:1500]}\n"
        + (e["finding"].get("traceback") or e["finding"].get("detail", ""))[-1500:]
        for e in new)
    assert not new, f"{len(new)} new failure signature(s):\n{detail}"


@pytest.fixture(scope="module")
def known_results():
    """Each known and each fixed case, run once (two workers, a short time limit)."""
    tasks = [(name, case, {"steps": 20, "counts": 2, "saved": False})
             for name, (_, _, case) in {**KNOWN, **FIXED}.items() if case is not None]
    return {r["key"]: r for r in run_cases(tasks, jobs=2, timeout=10.0, memory_mb=2048)}


def _signatures(name, res) -> list:
    case = {**KNOWN, **FIXED}[name][2]
    return [F.signature(case.tags, case.generator, f) for f in res["findings"] if f["class"] in FAILURES]


def test_known_cases_fail_only_as_listed(known_results):
    """While a known case fails, its failures are the ones its pattern
    covers (so that the pattern is right and hides nothing else)."""
    for name, res in known_results.items():
        if name not in KNOWN:
            continue
        for sig in _signatures(name, res):
            assert re.search(KNOWN[name][0], sig), (name, sig)


@pytest.mark.parametrize("name", [k for k, v in KNOWN.items() if v[2] is not None])
@pytest.mark.xfail(strict=True, reason="a known bug (see KNOWN): move its entry to FIXED once it is fixed")
def test_known_bug_is_fixed(known_results, name):
    res = known_results[name]
    assert not _signatures(name, res), (res["class"], _signatures(name, res), res["findings"][:1])


@pytest.mark.parametrize("name", [k for k, v in FIXED.items() if v[2] is not None])
def test_fixed_bug_stays_fixed(known_results, name):
    """A case that used to fail (as FIXED's pattern says) runs with no failure."""
    res = known_results[name]
    assert not _signatures(name, res), (res["class"], _signatures(name, res), res["findings"][:1])


def test_damaged_save_is_refused(tmp_path):
    """A save whose ending does not exist (winners 99 and -3), its checksum
    made to fit: refused with CorruptState."""
    import hashlib

    import atoll
    path = tmp_path / "k.atoll"
    path.write_text(DEEP)
    game = atoll.load(path, players=2)
    d = json.loads(game.new_initial_state(0).to_json())
    del d["checksum"]
    d["outcome"] = ["nowhere", [99, -3]]
    d["checksum"] = hashlib.sha256(json.dumps(d, sort_keys=True).encode()).hexdigest()[:16]
    with pytest.raises(atoll.CorruptState):
        game.state_from_json(json.dumps(d))


@pytest.mark.parametrize("kind, expected", [("run", "CODE_EXEC"), ("loop", "HANG"),
                                            ("crash", "INTERNAL"), ("eat", "MEMORY")])
def test_the_harness_sees_each_failure(monkeypatch, kind, expected):
    """The harness itself, with the toolchain replaced by one that runs the
    payload, never returns, crashes, or eats memory (the workers fork from
    this process, so they inherit the replacement)."""
    import fuzz_worker

    def hostile(path, *args, **kwargs):
        if kind == "run":
            exec(G.PAYLOAD, {"__builtins__": {}})
        elif kind == "loop":
            while True:
                pass
        elif kind == "crash":
            raise KeyError("boom")
        else:
            return [bytearray(2 ** 20) for _ in range(10 ** 6)]
    monkeypatch.setattr(fuzz_worker.atoll, "compile_spec", hostile)
    res = run_cases([(0, G.Case("self", ("self",), {"s.atoll": DEEP}, "s.atoll"), {"steps": 5})],
                    jobs=1, timeout=1.5, memory_mb=256)[0]
    assert res["class"] == expected, res
