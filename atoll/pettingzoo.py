"""A compiled game as a PettingZoo AEC environment.

    >>> import atoll.pettingzoo                                      # doctest: +SKIP
    >>> env = atoll.pettingzoo.env("spec/GAME.atoll", players=2)     # doctest: +SKIP
    >>> env.reset(seed=42)                                           # doctest: +SKIP
    >>> for agent in env.agent_iter():                               # doctest: +SKIP
    ...     obs, reward, terminated, truncated, info = env.last()
    ...     action = None if terminated or truncated else \\
    ...         env.action_space(agent).sample(obs["action_mask"])
    ...     env.step(action)

Agents are ``player_0`` .. ``player_{n-1}`` (the seats). Each observes a
dict: ``"observation"``, a float32 vector (``atoll.encoding.ObservationEncoder``:
the player's own view, nothing hidden leaks) and ``"action_mask"``, an int8
vector over the ``num_actions`` slots of the ``Discrete`` action space
(``atoll.encoding.ActionIndex``: a move keeps its slot from state to state).

Chance is resolved inside the environment from the seed given to
``reset(seed=...)``; the same seed and actions give the same game as
``Game.new_initial_state(seed=...)``. At a simultaneous stage the players
choose one after the other, lowest seat first; each choice is applied at
once, which the engine allows because no player's part of the stage can see
or change another's. Rewards are 0 until the end, then ``State.returns()``
(+1 for a winner, -1 for the others, 0 for everyone in a tie). An action
that is not in the mask raises ``atoll.IllegalAction``.

Needs the ``pettingzoo`` extra: ``pip install "atoll[pettingzoo]"``.
"""
from __future__ import annotations

import random
import re
from numbers import Integral
from pathlib import Path
from typing import Optional, Union

try:
    import gymnasium
    import numpy as np
    from pettingzoo import AECEnv
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError(f"atoll.pettingzoo needs PettingZoo ({e.name} is missing): "
                      "pip install \"atoll[pettingzoo]\"") from None

from atoll.compiler.pipeline import load
from atoll.compiler.playout import Moves, apply_move, legal_moves
from atoll.compiler.runtime import Action, Game, IllegalAction, State
from atoll.encoding import ActionIndex, ObservationEncoder, acting_player

__all__ = ["env", "AtollEnv"]

_INT8 = np.dtype(np.int8)   # the action mask's type, made once
_frombuffer = np.frombuffer


def env(spec: Union[str, Path, Game], players: Optional[int] = None, options: Optional[dict] = None,
        **kwargs) -> "AtollEnv":
    """An AEC environment for the spec at ``spec`` (or an already loaded
    ``atoll.Game``). Keyword arguments go to ``AtollEnv``: ``render_mode``
    (``"ansi"`` or ``"human"``), ``num_actions`` (action slots, default
    1024), ``hash_size`` (hashed observation buckets; default 256 when
    the state has collections, else 0),
    ``max_steps`` (truncate after this many actions; default none)."""
    if isinstance(spec, Game):
        if players is not None or options:
            raise ValueError("players and options are fixed by the loaded game; pass the spec's path "
                             "to choose them")
        return AtollEnv(spec, **kwargs)
    return AtollEnv(load(spec, players=players, options=options), **kwargs)


class AtollEnv(AECEnv):
    """See the module documentation."""

    metadata = {"render_modes": ["ansi", "human"], "is_parallelizable": False}

    def __init__(self, game: Game, render_mode: Optional[str] = None, num_actions: int = 1024,
                 hash_size: Optional[int] = None, max_steps: Optional[int] = None):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, "
                             f"not {render_mode!r}")
        if max_steps is not None and (not isinstance(max_steps, int) or max_steps < 1):
            raise ValueError(f"max_steps must be a positive integer or None, not {max_steps!r}")
        self.game = game
        self.render_mode = render_mode
        self.max_steps = max_steps
        slug = re.sub(r"[^a-z0-9]+", "_", game.title.lower()).strip("_") or "game"
        self.metadata = dict(self.metadata, name=f"atoll_{slug}")
        self.index = ActionIndex(game, num_actions)
        self.encoder = ObservationEncoder(game, hash_size)
        self.possible_agents = [f"player_{p}" for p in range(game.num_players)]
        self._seat = {a: p for p, a in enumerate(self.possible_agents)}
        low = np.array(self.encoder.low, dtype=np.float32)
        high = np.array(self.encoder.high, dtype=np.float32)
        self.observation_spaces = {
            a: gymnasium.spaces.Dict({
                "observation": gymnasium.spaces.Box(low=low, high=high, dtype=np.float32),
                "action_mask": gymnasium.spaces.Box(low=0, high=1, shape=(num_actions,), dtype=np.int8),
            }) for a in self.possible_agents}
        self.action_spaces = {a: gymnasium.spaces.Discrete(num_actions) for a in self.possible_agents}
        self._seeds: Optional[random.Random] = None
        self._state: Optional[State] = None
        # slot -> the index of a move in the state's legal_moves() (where one
        # player decides), or -> an Action (elsewhere); see _select
        self._slots: dict = {}
        self._by_move = False
        self._steps = 0
        self.agents: list[str] = []

    # ------------------------------------------------------------ spaces
    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # ------------------------------------------------------------ the game
    @property
    def atoll_state(self) -> State:
        """The underlying ``atoll.State`` (do not change it behind the environment's back)."""
        self._need_reset()
        return self._state

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None) -> None:
        """Start a new game. ``seed`` seeds the game's chance (the game is the
        one ``Game.new_initial_state(seed=seed)`` gives); without it, the
        next seed of a stream started by the last seeded reset. ``options``
        is accepted as PettingZoo asks and ignored: the game's options are
        chosen when the environment is made."""
        if seed is not None:
            if not isinstance(seed, Integral):
                raise ValueError(f"seed must be an integer, not {seed!r}")
            game_seed = int(seed)
            self._seeds = random.Random(game_seed)
        else:
            if self._seeds is None:
                self._seeds = random.Random()
            game_seed = self._seeds.getrandbits(63)
        self._state = self.game.new_initial_state(seed=game_seed)
        self._steps = 0
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._skip_agent_selection = None
        self._select()

    def _need_reset(self) -> None:
        if self._state is None:
            raise RuntimeError("call reset() before using the environment")

    def _select(self) -> None:
        st = self._state
        moves = st._legal   # State.legal_moves(), without the call
        if moves is None:
            moves = legal_moves(self.game, st)
        self._by_move = moves.__class__ is Moves and len(moves) > 0
        if self._by_move:   # one player decides: slots for the moves, no Action objects
            # the player to move: legal_moves() lists Moves only where no chance, choice or
            # simultaneous stage waits, and there current_player() is this seat
            ctl = st.ctl
            self.agent_selection = self.possible_agents[ctl[4][ctl[2] % len(ctl[4])]]
            self._slots = self.index.assign_moves(moves)
            return
        p = acting_player(st)
        self.agent_selection = self.possible_agents[p]
        self._slots = self.index.assign(st.legal_actions(player=p))

    @property
    def _legal(self) -> dict:
        """Slot -> the Action, for the agent to move now."""
        if not self._by_move:
            return self._slots
        actions = self._state.legal_actions()   # in the order of legal_moves()
        return {s: actions[i] for s, i in self._slots.items()}

    def step(self, action) -> None:
        if self._state is None:
            self._need_reset()
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action.__class__ is not int:
            if isinstance(action, np.ndarray) and action.shape == ():
                action = action.item()
            if not isinstance(action, Integral) or isinstance(action, bool):
                raise ValueError(f"{agent}: an action is an integer slot of the action space, "
                                 f"not {action!r}")
            action = int(action)
        chosen = self._slots.get(action)
        if chosen is None:
            legal = ", ".join(f"{s} {a}" for s, a in sorted(self._legal.items())[:8])
            raise IllegalAction(f"{agent}: action {action} is not legal now (phase "
                                f"`{self._state.phase()}`); legal slots include: {legal}")
        self._cumulative_rewards[agent] = 0.0
        st = self._state
        if self._by_move:
            apply_move(self.game, st, chosen)   # State.apply_move, without the call
        else:
            st.apply_action(chosen)
        self._steps += 1
        # Rewards are 0 until the end (where _accumulate_rewards adds them):
        # clearing and adding zeros before then would change nothing.
        if st.outcome is not None:   # st.is_terminal()
            self._clear_rewards()
            returns = st.returns()
            for a in self.agents:
                self.rewards[a] = float(returns[self._seat[a]])
                self.terminations[a] = True
            self._slots, self._by_move = {}, False
            self._accumulate_rewards()
        elif self.max_steps is not None and self._steps >= self.max_steps:
            for a in self.agents:
                self.truncations[a] = True
            self._slots, self._by_move = {}, False
        else:
            self._select()
        if self.render_mode == "human":
            self.render()

    # ------------------------------------------------------------ observing
    def observe(self, agent):
        st = self._state
        if st is None:
            self._need_reset()
        vec = self.encoder._update(st, self._seat[agent]).out.copy()   # encode_array's
        mask = bytearray(self.index.size)
        if agent == self.agent_selection:
            for s in self._slots:
                mask[s] = 1
        return {"observation": vec, "action_mask": _frombuffer(mask, _INT8)}

    def legal_moves(self) -> dict[int, str]:
        """Slot -> readable action, for the agent to move now."""
        self._need_reset()
        return {s: str(a) for s, a in sorted(self._legal.items())}

    def action_of(self, slot: int) -> Action:
        """The ``atoll.Action`` behind a slot that is legal now."""
        self._need_reset()
        if slot not in self._slots:
            raise IllegalAction(f"slot {slot} is not a legal action now")
        return self._legal[slot]

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("render() without a render_mode: make the environment with "
                                  "render_mode='ansi' or 'human'")
            return None
        text = "(not started: call reset())" if self._state is None else str(self._state)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass
