"""What an effect may ask of the engine while it runs (chance draws, a
player's choice, endings), and the errors of play. Part of the reference
model (``compiler/runtime.py`` re-exports these names)."""
from __future__ import annotations

from typing import Optional

from atoll.compiler.choices import choice_options

_MASK = (1 << 64) - 1


class IllegalAction(Exception):
    """An action that the rules do not allow now. The message names the rule
    and its rulebook citation; the state is unchanged."""


class ModelError(RuntimeError):
    """A rule could not be evaluated (a bug in the spec, such as reading a map
    at a missing key). Names the rule; the state is unchanged."""



class _NeedChoice(Exception):
    """An effect asks ``player`` to choose among ``options`` (see ``Transaction.choose``)."""
    def __init__(self, player, options, elem_type, name):
        self.player, self.options, self.elem_type, self.name = player, options, elem_type, name


class _NeedChance(Exception):
    def __init__(self, bag, elem_type, how="draw"):
        self.bag = bag
        self.elem_type = elem_type
        self.how = how


def _splitmix(seed: int, counter: int) -> int:
    z = (seed * 0x9E3779B97F4A7C15 + (counter + 1) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


class Transaction:
    """What an effect may ask of the engine: chance draws and endings.

    ``forced`` lists chance outcomes given from outside (explicit chance);
    past its end, a draw stops the transaction so that the state can ask
    for the next outcome. Without ``forced``, draws use the state's seeded
    random stream.

    ``events`` lists what happened on the way, for traces and play: each
    chance outcome as ``(how, item, type)`` (``how``: "draw", "roll", or
    "roll owner" / "roll nobody" for a roll seen only by the player acting /
    by nobody) and each branch described in words as ``("note", k)``.
    """
    __slots__ = ("seed", "counter", "forced", "used", "end", "outcome", "events", "choices", "chosen",
                 "last")

    def __init__(self, seed: int, counter: int, forced: Optional[list] = None,
                 choices: Optional[list] = None):
        self.seed, self.counter, self.forced, self.used = seed, counter, forced, 0
        self.choices, self.chosen = choices or (), 0
        self.end = None
        self.outcome = None
        self.events = []
        self.last = None   # the last draw: (the bag, the item, what was left)

    def note(self, k: int) -> None:
        self.events.append(("note", k))

    def draw(self, bag, elem_type, how="draw"):
        if not bag:
            raise ModelError("a rule draws from an empty bag; guard the draw with `size(...) > 0`")
        if self.forced is not None:
            if self.used >= len(self.forced):
                raise _NeedChance(bag, elem_type, how)
            item = self.forced[self.used]
            self.used += 1
            if item not in bag:   # pragma: no cover - outcomes are checked before
                raise ModelError(f"chance outcome {item!r} is not in the bag")
        else:
            item = bag[_splitmix(self.seed, self.counter) % len(bag)]
            self.counter += 1
        self.events.append((how, item, elem_type))
        i = bag.index(item)
        rest = bag[:i] + bag[i + 1:]
        self.last = (bag, item, rest)
        return item, rest

    def choose(self, player, domain, elem_type, name="x"):
        """A player's choice inside an effect: the next of ``choices`` (the
        choices made so far in this transaction), or, past their end, stop the
        transaction so that the state waits for ``player`` to choose."""
        options = choice_options(domain)
        if not options:
            raise ModelError(f"a rule asks player {player} to choose `{name}` from nothing; guard the "
                             "`choose` with a test that its choices are not empty")
        if self.chosen < len(self.choices):
            item = self.choices[self.chosen]
            self.chosen += 1
            if item not in options:   # pragma: no cover - choices are checked when made
                raise ModelError(f"the choice {item!r} is not among the choices of `{name}`")
            self.events.append(("chose", item, elem_type, player, name))
            return item
        raise _NeedChoice(player, options, elem_type, name)

    def finish(self, winners) -> None:
        if self.outcome is None:
            self.outcome = tuple(sorted(set(winners)))


class _DryRun(Transaction):
    """For `ensures`: run an effect on a copy, with draws resolved arbitrarily."""

    def __init__(self):
        super().__init__(0, 0, None)

    def draw(self, bag, elem_type, how="draw"):
        if not bag:
            raise ModelError("a rule draws from an empty bag")
        return bag[0], bag[1:]

    def choose(self, player, domain, elem_type, name="x"):
        options = choice_options(domain)
        if not options:
            raise ModelError(f"a rule asks player {player} to choose `{name}` from nothing")
        return options[0]
