"""Operators whose operand is known when the rules are lowered: `a / d` and
`a % d` with a known divisor d other than 0 are Python's `//` and `%` (what
f_div and f_mod compute for such a d), and `range(n)` with a small known n is
the tuple itself. Neither may change a value: every case is computed as the
language defines it (a divisor of 0 gives 0 for `/` and `a` for `%`)."""
from __future__ import annotations

import atoll
from atoll.compiler import names as N
from helpers import ROOT

COUNTDOWN = (ROOT / "tests" / "golden" / "countdown.atoll").read_text()

EXTRA = """
const xs: list[int] = [-9, -7, -1, 0, 1, 5, 9, 12]
const zero: int = 0
option three: int = 3 "A divisor known once the game is set up."
def m4(x: int): int = x % 4
def d3(x: int): int = x / 3
def mneg(x: int): int = x % -4
def dneg(x: int): int = x / -3
def m0(x: int): int = x % zero
def d0(x: int): int = x / zero
def dopt(x: int): int = x / three
def dvar(x: int, y: int): int = x / y
const mods: list[int] = [m4(x) for x in xs] + [mneg(x) for x in xs] + [m0(x) for x in xs]
const divs: list[int] = [d3(x) for x in xs] + [dneg(x) for x in xs] + [d0(x) for x in xs] + [dopt(x) for x in xs]
const vars_: list[int] = [dvar(x, y) for x in xs for y in [-3, 0, 3]]
const ranges: list[list[int]] = [range(0), range(1), range(4), range(16), range(17), range(-2)]
"""


def _expected():
    xs = [-9, -7, -1, 0, 1, 5, 9, 12]
    mods = [x % 4 for x in xs] + [x % -4 for x in xs] + list(xs)
    divs = [x // 3 for x in xs] + [x // -3 for x in xs] + [0] * len(xs) + [x // 3 for x in xs]
    vars_ = [0 if y == 0 else x // y for x in xs for y in (-3, 0, 3)]
    ranges = [tuple(range(n)) for n in (0, 1, 4, 16, 17, -2)]
    return tuple(mods), tuple(divs), tuple(vars_), tuple(ranges)


def test_known_divisors_and_ranges_are_lowered_to_pythons_own_and_keep_their_values(tmp_path):
    spec = tmp_path / "g.atoll"
    spec.write_text(COUNTDOWN + EXTRA)
    comp = atoll.compile_spec(spec)
    src = comp.source
    assert "% 4)" in src and "// 3)" in src                         # the literal divisors
    assert "f_mod(" in src and "f_div(" in src                      # zero, the option and y: still the calls
    assert "(0, 1, 2, 3, )" in src and "f_range(17)" in src         # small ranges written out, not a larger one
    game = atoll.load(spec, players=2)
    got = tuple(game.ns[N.value(k)] for k in ("mods", "divs", "vars_", "ranges"))
    assert got == _expected()   # the constants, computed by the general module
    # The game's own module, where the constant `zero` and the option `three`
    # are known too: its functions give the same values.
    assert "// 3)" in game.source
    xs = game.ns[N.value("xs")]
    fn = lambda name, *args: game.ns[N.def_fn(name)](None, *args)
    mods = tuple(fn(d, x) for d in ("m4", "mneg", "m0") for x in xs)
    divs = tuple(fn(d, x) for d in ("d3", "dneg", "d0", "dopt") for x in xs)
    assert (mods, divs, tuple(fn("dvar", x, y) for x in xs for y in (-3, 0, 3))) == _expected()[:3]
