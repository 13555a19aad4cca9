"""The flow engine of the reference model: rounds, stages, turns, phases,
`done when`, the endings, and the automatic steps between decisions. A part
of ``Game`` (``compiler/runtime.py``), which inherits it; it knows no game."""
from __future__ import annotations

from typing import TYPE_CHECKING

from atoll.compiler.transaction import ModelError, Transaction

if TYPE_CHECKING:   # pragma: no cover
    from atoll.compiler.runtime import State


class FlowEngine:
    """The methods of ``Game`` that run the turn flow (see the module's text)."""

    #: What the generated flow catches (``except G._Error``: its module's
    #: builtins are a short list without the exceptions).
    _Error = Exception

    #: What the generated flow compares a seat's class with (the same list of builtins).
    _Int = int

    def _phase_name(self, st: State) -> str:
        return self.rounds[st.ctl[0]][st.ctl[1]][1][st.ctl[3]]

    def _begin_round(self, st: State, X: Transaction) -> None:
        st.S[0] += 1
        for i, applies in enumerate(self._round_fn):
            if applies(st.S):
                st.ctl[0] = i
                break
        else:
            self._no_round()
        st.ctl[1] = -1
        self._next_stage(st, X)

    def _next_stage(self, st: State, X: Transaction) -> None:
        while True:
            st.ctl[1] += 1
            stages = self.rounds[st.ctl[0]]
            if st.ctl[1] >= len(stages):
                if self._check_endings(st, X, "after_round"):
                    return
                self._begin_round(st, X)
                return
            players = self._stage_players(self._stage_fn[st.ctl[0]][st.ctl[1]](st.S))
            if players:
                st.ctl[2], st.ctl[3], st.ctl[4], st.ctl[5], st.ctl[6] = 0, 0, players, True, False
                if stages[st.ctl[1]][2] == "around" and not self._start_around(st, stages[st.ctl[1]]):
                    continue
                if self._any_sim and self._sim_stage(st):   # enter the first phase for everyone at once
                    name = self._phase_name(st)
                    enter = self._phase_fn[name][0]
                    self._where = self._phase_where[name][0]
                    for p in players:
                        enter(st.S, p, X)
                    st.ctl[5] = False
                return

    def _stage_players(self, players) -> tuple:
        """The players a stage names, as a tuple of seats."""
        players = tuple(players)
        if any(not (isinstance(p, int) and 0 <= p < self.num_players) for p in players):
            raise ModelError(f"a stage of the flow names players {list(players)}; seats are "
                             f"0..{self.num_players - 1}")
        return players

    def _no_round(self) -> None:
        raise ModelError("no `round` of the flow applies; give the last one no condition")

    def _next_phase(self, st: State, X: Transaction) -> None:
        st.ctl[3] += 1
        if st.ctl[3] >= len(self.rounds[st.ctl[0]][st.ctl[1]][1]):
            self._end_turn(st, X)
        else:
            st.ctl[5] = True

    def _end_turn(self, st: State, X: Transaction) -> None:
        if self._check_endings(st, X, "after_turn"):
            return
        st.ctl[3] = 0
        st.ctl[5] = not (self._any_sim and self._sim_stage(st))   # a simultaneous stage entered it for all
        st.ctl[6] = False
        stage = self.rounds[st.ctl[0]][st.ctl[1]]
        if stage[2] == "around":
            self._pass_turn(st, stage, X)
            return
        st.ctl[2] += 1
        if st.ctl[2] >= len(st.ctl[4]):
            self._next_stage(st, X)

    # A stage `turns round L from v until C` keeps L in ctl[4] and counts its
    # turns in ctl[2] (the player is ctl[4][ctl[2] % len(L)]); `v` holds whose
    # turn it is, and between stages whose turn comes next.
    def _keeper_seat(self, st: State, slot: int, players: tuple) -> int:
        """The index in ``players`` of the player ``v`` names, or of the first
        one after it in seat order when ``v`` is not among them."""
        v = st.S[slot]
        if not (isinstance(v, int) and 0 <= v < self.num_players):
            raise ModelError(f"`{self.layout.names[slot]}` holds {v!r}, which is not a seat; the flow "
                             f"keeps whose turn it is there (seats 0 to {self.num_players - 1})")
        for k in range(self.num_players):
            q = (v + k) % self.num_players
            if q in players:
                return players.index(q)
        raise AssertionError("an around stage has players")   # pragma: no cover

    def _start_around(self, st: State, stage) -> bool:
        """Enter an around stage; False when it is skipped (its condition
        already holds)."""
        until, slot = stage[3], stage[4]
        if until is not None:
            self._where = "the condition that ends a stage of the flow"
            if until(st.S):
                return False
        if slot is not None:
            k = self._keeper_seat(st, slot, st.ctl[4])
            st.ctl[2] = k
            st.S[slot] = st.ctl[4][k]
        return True

    def _pass_turn(self, st: State, stage, X: Transaction) -> None:
        """The turn passes to the next player of the stage (after the one
        ``v`` names); then the stage ends if its condition holds."""
        players, until, slot = st.ctl[4], stage[3], stage[4]
        n = len(players)
        if slot is None:
            st.ctl[2] += 1
        else:
            k = (self._keeper_seat(st, slot, players) + 1) % n
            st.ctl[2] += (k - st.ctl[2]) % n or n
            st.S[slot] = players[k]
        if until is not None:
            self._where = "the condition that ends a stage of the flow"
            if until(st.S):
                self._next_stage(st, X)

    def _seats(self, winners: tuple) -> tuple:
        """The winners a `win` names, each a seat of this game."""
        bad = [p for p in winners if not (isinstance(p, int) and 0 <= p < self.num_players)]
        if bad:
            raise ModelError(f"{self._where} names the winner {bad[0]!r}, which is not a seat of a "
                             f"{self.num_players}-player game (seats 0 to {self.num_players - 1})")
        return winners

    def _after_effects(self, st: State, X: Transaction, none_hold: bool = False) -> bool:
        """Endings after any change; then the signals of `end phase`/`end turn`.
        Returns True when the game is over. ``none_hold``: the endings
        `immediately` were just tested on this very state, and none holds."""
        if X.outcome is not None:
            st.outcome = (self._where.replace("`", ""), self._seats(X.outcome))
            return True
        if not none_hold and self._check_endings(st, X, "immediately"):
            return True
        end, X.end = X.end, None
        if end == "phase":
            self._next_phase(st, X)
        elif end == "turn":
            self._end_turn(st, X)
        return st.outcome is not None

    def _after_enter(self, st: State, X: Transaction, name: str, me: int, auto: bool) -> None:
        """Where the generated flow (``flend_*``, compiler/lower_flow.py) hands
        over, just after entering phase ``name`` for ``me`` (its `on enter`,
        and `auto` if ``auto``, have run): the rest of that step of
        ``_settle``, then ``_settle``."""
        if self._after_effects(st, X):
            return
        ctl = st.ctl
        if auto and not ctl[5] and self._phase_name(st) == name and ctl[4][ctl[2] % len(ctl[4])] == me:
            self._next_phase(st, X)
        self._settle(st, X)

    @staticmethod
    def _kept_can(M: dict, k: int, choices, can, S: list, me: int) -> bool:
        """`can` of action ``k`` in a generated `on enter` (``phenterm``, see
        compiler/lower_flow.py): answered by the action's listing, kept in
        ``M`` for the `done when` that follows. Should the listing fail, the
        plain `can` raises or answers (``can`` stops at the first choice; the
        listing, going on, may meet an error that ``can`` does not)."""
        L = M.get(k)
        if L is None:
            try:
                L = choices(S, me)
            except Exception:
                return can(S, me)
            M[k] = L
        return L != []

    def _flow(self, st: State, S: list, ctl: list, X: Transaction) -> None:
        """The generated flow from the end of the present phase (see
        compiler/lower_flow.py): each step returns the next one while phases
        end without a decision."""
        step = self._flend[ctl[0]][ctl[1]][ctl[3]]
        for _ in range(1_000_000):
            step = step(self, st, S, ctl, X)
            if step is None:
                return
        raise ModelError("the flow ran a million automatic steps without a decision")

    def _sim_stage(self, st: State) -> bool:
        stages = self.rounds[st.ctl[0]]
        return 0 <= st.ctl[1] < len(stages) and stages[st.ctl[1]][2] == "simultaneous"

    def _sim_point(self, st: State) -> bool:
        """Several players of a simultaneous stage are still to make their first choice."""
        return (self._any_sim and st.ctl[3] == 0 and not st.ctl[5] and not st.ctl[6] and self._sim_stage(st)
                and len(st.ctl[4]) - st.ctl[2] >= 2)

    def _settle(self, st: State, X: Transaction) -> None:
        """Run automatic steps until a player must decide or the game ends."""
        S, ctl, rounds, steps = st.S, st.ctl, self.rounds, self._phase_step   # changed in place only
        for _ in range(1_000_000):
            if st.outcome is not None:
                return
            name = rounds[ctl[0]][ctl[1]][1][ctl[3]]
            enter, auto, done, repeat, where_enter, where_auto, where_done, donem = steps[name]
            me = ctl[4][ctl[2] % len(ctl[4])]
            if self._any_sim and self._sim_point(st) and not done(S, me):
                return   # the players choose simultaneously
            if ctl[5]:
                ctl[5] = False
                self._where = where_enter
                enter(S, me, X)
                if auto is not None:
                    self._where = where_auto
                    auto(S, me, X)
                if self._after_effects(st, X):
                    return
                if auto is not None:
                    if not ctl[5] and self._phase_name(st) == name and ctl[4][ctl[2] % len(ctl[4])] == me:
                        self._next_phase(st, X)
                    continue
                if ctl[5]:
                    continue
            self._where = where_done
            if donem is None:
                if done(S, me):
                    if repeat(S, me):
                        ctl[5] = True
                    else:
                        self._next_phase(st, X)
                    continue
                return
            M = {}
            try:   # the test that keeps the choices it lists (see compiler/lower_flow.py)
                over = donem(S, me, M)
            except Exception:   # where it fails, the plain test raises or answers
                M = None
                over = done(S, me)
            if over:
                if repeat(S, me):
                    ctl[5] = True
                else:
                    self._next_phase(st, X)
                continue
            if M:
                st._memo = (S, ctl, M)
            return
        raise ModelError("the flow ran a million automatic steps without a decision")

    def _act(self, st: State, ai: int, params: tuple, forced) -> None:
        """``_transact`` of action ``ai`` with ``params`` at a node where one
        player decides (no simultaneous stage in the game): the same steps,
        the way they go after most actions written out (no ending, no `end
        phase`/`end turn`, the phase not done: the player decides again);
        anything else goes on as ``_transact`` goes.

        ``playout.play_random`` runs a copy of this method written out in its
        loop (with chance from the stream): a change here is made there too
        (``tests/test_play_step.py`` plays every spec both ways)."""
        S0, ctl0, outcome0 = st.S, st.ctl, st.outcome
        S = st.S = S0.copy()
        ctl = st.ctl = ctl0.copy()
        X = Transaction(st.rng[0], st.rng[1], forced)
        effect, where, done, repeat, where_done, donem = self._act_steps[ai]
        try:
            me = ctl[4][ctl[2] % len(ctl[4])]
            ctl[6] = True
            self._where = where
            effect(S, me, X, *params)
            imm = self._imm_test
            ends = -1
            if imm is not None:
                try:
                    ends = imm(S)
                except Exception:   # _check_endings words the error
                    ends = 0
            if X.end == "phase" and X.outcome is None and ends < 0 and not ctl[5] \
                    and self._flend is not None:
                # `end phase` and nothing else: _after_effects would clear the
                # signal and end the phase (the endings `immediately` were
                # just tested on S, none holds), then _settle: the generated flow
                X.end = None
                self._flow(st, S, ctl, X)
            elif X.outcome is not None or X.end is not None or ends >= 0 or ctl[5]:
                if not self._after_effects(st, X, imm is not None and ends < 0):
                    self._settle(st, X)
            else:   # the first step of _settle, in the phase of the action
                self._where = where_done
                M = None
                if donem is None:
                    over = done(S, me)
                else:
                    M = {}
                    try:
                        over = donem(S, me, M)
                    except Exception:   # the plain test raises or answers (see _settle)
                        M = None
                        over = done(S, me)
                if over:
                    if repeat(S, me):
                        ctl[5] = True
                        self._settle(st, X)
                    elif self._flend is not None:   # the generated flow from here
                        self._flow(st, S, ctl, X)
                    else:
                        self._next_phase(st, X)
                        self._settle(st, X)
                elif M:
                    st._memo = (S, ctl, M)
            for i, ok in self._int_watch:   # as _transact
                v = S[i]
                if v is not S0[i] and v is not None and not ok(v, S0[i]):
                    self._past_bound(st, S0, ctl0, outcome0, (self.actions[ai], params), forced)
        except BaseException as e:
            st.S, st.ctl, st.outcome = S0, ctl0, outcome0
            self._stopped(st, e, (self.actions[ai], params), forced, None, X)
            return
        st.rng[1] = X.counter
        st.pending = None
        st.choosing = None
        if st.chosen:   # (a list never changed in place: an empty one may stay)
            st.chosen = []
        st._legal = None
        st._events = X.events

    def _check_endings(self, st: State, X: Transaction, time: str) -> bool:
        test = self._end_test.get(time)
        if test is None:
            return False
        fn, ends = test
        try:
            i = fn(st.S)
        except Exception:
            for _, where, cond, _, _ in ends:   # name the ending whose condition fails
                self._where = where
                cond(st.S)
            raise   # pragma: no cover - one of the conditions raised above
        if i < 0:
            self._where = ends[-1][1]
            return False
        en, where, cond, win, key = ends[i]
        self._where = where
        if en.kind == "win":
            winners = self._seats(tuple(sorted(set(win(st.S)))))
        elif en.kind == "tie":
            winners = ()
        else:
            keys = {p: key(st.S, p) for p in range(self.num_players)}
            best = max(keys.values())
            top = [p for p in keys if keys[p] == best]
            teams = {self.team_of.get(p, (p,)) for p in top}
            if len(teams) == 1:
                winners = tuple(sorted(next(iter(teams))))
            elif en.tie == "shared":
                winners = tuple(top)
            else:
                winners = ()
        st.outcome = (en.name, winners)
        return True
