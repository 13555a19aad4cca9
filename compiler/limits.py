"""The toolchain's limits on a spec, in one place (docs/language.md, "Limits").

A spec past one of them gets a diagnostic with a code and a position, never
an internal error or a hang. Each limit is far above what a real game needs;
they exist because a spec is untrusted input.
"""
from __future__ import annotations

# Nesting depth of the syntax tree (brackets, calls, operators, `if`s inside
# `if`s, blocks...): A0005. Long chains of one operator (`a + b + c + ...`,
# `and`, `or`, `*`) count as about log2 of their length.
MAX_NESTING = 100

# Loops inside each other in one rule (`for`, `deal`), and choices of an
# action (each is a loop of the generated code): A0005. Python refuses more
# than 20 nested blocks in a function.
MAX_LOOPS = 16

# Digits of a number written in a spec; also the largest number a constant
# may hold (Python cannot print a longer one): A0005 and A0305.
MAX_INT_DIGITS = 4300
MAX_INT_BITS = int(MAX_INT_DIGITS * 3.3219280948873626)   # 10 ** 4300 has this many bits

# Players a game may declare: A0108.
MAX_PLAYERS = 1000

#: How many files a chain of `extends` may pass through (a variant of a
#: variant of ... a game); past it, A0401.
MAX_EXTENDS = 32

# `atoll check` builds a game for every player count when the range has at
# most this many counts, else for a sample of this many (both ends included).
CHECK_PLAYER_COUNTS = 16

# Steps (lines run, calls) that evaluating the options, constants, requirements
# and teams of one game may take: A0305 (about a second and a half; the shipped
# games take 1.5% of it).
EVAL_STEPS = 2_000_000

# Candidate choices (parameter tuples, legal or not) that listing one action's
# choices in one state may examine, counted as its loops start: past it, a
# ModelError that names the action (a state of 300 x 300 x 300 choices is
# refused at once rather than listed for minutes).
MAX_CHOICES = 1_000_000

# Procedures (and events, triggers) calling one another: a chain of calls at
# most this deep, and an effect with its calls expanded (every analysis follows
# them) at most this many statements: A0005.
MAX_CALL_DEPTH = 32
MAX_EXPANDED = 50_000

# Items a standard function may build in one go (`range`, `between`): an
# evaluation error past it.
MAX_ITEMS = 1_000_000
