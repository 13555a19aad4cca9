"""Atoll: a declarative rules language for board games.

    >>> import atoll
    >>> game = atoll.load("spec/GAME.atoll", players=2)   # doctest: +SKIP
    >>> state = game.new_initial_state(seed=1)                      # doctest: +SKIP
    >>> state.apply_action(state.legal_actions()[0])                # doctest: +SKIP

``load`` raises ``SpecError`` (with every diagnostic) for a broken spec or a
bad option; ``State.apply_action`` raises ``IllegalAction`` naming the rule
and its rulebook citation; ``Game.state_from_json`` raises ``CorruptState``,
``Game.state_from`` (a position set by hand) its subclass ``BadPosition``.
"""
from atoll.compiler.pipeline import compile_spec, load
from atoll.compiler.runtime import (CHANCE, SIMULTANEOUS, TERMINAL, Action, CorruptState, Game,
                                    IllegalAction, ModelError, State)
from atoll.compiler.position import BadPosition
from atoll.diagnostics import Diagnostic, SpecError

__version__ = "0.1.0"
__all__ = ["load", "compile_spec", "Game", "State", "Action", "IllegalAction", "CorruptState",
           "ModelError", "SpecError", "Diagnostic", "CHANCE", "SIMULTANEOUS", "TERMINAL", "BadPosition"]
