"""`no_leak`: a secret choice shows in no other player's observation.

At a simultaneous node (two or more players still to choose), each waiting
player's part of the stage is played out every way it can be (all of them
when there are at most ``LIMIT``; otherwise the first, the last and
``SAMPLED`` random ways), and every other player must see the same thing
after each: the same observation (``State.observation``: the visible state,
the hidden parts by their size, whose turn it is, the phase) and the same
actions of their own. Two states that differ only in that player's secret
choice then look alike to everybody else.

The check knows no game: it reads the flow (simultaneous nodes), the
legal actions and the observations the model gives every game.
"""
from __future__ import annotations

import random
from typing import Optional

from atoll.compiler import types as T
from atoll.render import move_label

LIMIT = 16      # ways of completing one player's part enumerated in full
SAMPLED = 4     # random ways added to the first and the last past that


class LeakCheck:
    """The state of one `no_leak` check over a search or over games: how
    many secret choices were compared, and whether any was sampled."""

    def __init__(self, game, seed: int = 0):
        self.game = game
        self.rng = random.Random(seed)
        self.met = 0          # secret choices compared (one per waiting player and node)
        self.sampled = 0      # of those, the ones with too many ways to enumerate
        self._reads_of: dict = {}   # phase name -> what its listing reads (see _same_listing)

    def save(self) -> tuple:
        """What the check has counted and where its random draws stand."""
        return self.met, self.sampled, self.rng.getstate()

    def restore(self, kept: tuple) -> None:
        self.met, self.sampled = kept[0], kept[1]
        self.rng.setstate(kept[2])

    def check(self, state) -> Optional[str]:
        if state.is_terminal() or state.is_chance_node() or not state.is_simultaneous_node():
            return None
        legal = state.legal_actions()
        waiting = sorted({a.player for a in legal})
        if len(waiting) < 2:
            return None
        for p in waiting:
            problem = self._one(state, p, [a for a in legal if a.player == p])
            if problem is not None:
                return problem
        return None

    # ------------------------------------------------------------ one chooser
    def _one(self, state, p, first_moves) -> Optional[str]:
        ends = self._all_ways(state, p, first_moves)
        self.met += 1
        if ends is None:
            self.sampled += 1
            ends = [self._walk(state, p, first_moves, pick) for pick in ("first", "last")]
            ends += [self._walk(state, p, first_moves, "random") for _ in range(SAMPLED)]
        base_moves, base = ends[0]
        others = [v for v in range(self.game.num_players) if v != p]
        acts0 = self._acts(base)
        for moves, end in ends[1:]:
            apart = self._apart(base, acts0, end, others)
            for v in others:
                what = self._confirmed(base, end, v) if v in apart else None
                if what is not None:
                    return (f"player {p}'s secret choice shows to player {v}: after "
                            f"`{self._moves(base_moves)}` and after `{self._moves(moves)}` (player {p}'s "
                            f"part of the simultaneous step, the others still to choose), player {v} "
                            f"sees {what}")
        return None

    def _moves(self, actions) -> str:
        return "; ".join(move_label(self.game, a) for a in actions)

    def _mine(self, st, p) -> bool:
        """``p`` is still playing its part of the stage in ``st``."""
        if st.is_terminal() or st.is_chance_node() or st.is_simultaneous_node():
            return False
        return st.current_player() == p

    def _all_ways(self, state, p, first_moves):
        """Every way of playing ``p``'s part out, as (moves, end state); None
        past ``LIMIT``."""
        out = []
        stack = [(state, a, []) for a in reversed(first_moves)]
        while stack:
            st, a, moves = stack.pop()
            c = st.clone()
            c.apply_action(a)
            moves = moves + [a]
            if self._mine(c, p):
                nxt = c.legal_actions()
                if not nxt:   # stuck in its own part: the end of this way
                    out.append((moves, c))
                stack.extend((c, b, moves) for b in reversed(nxt))
            else:
                out.append((moves, c))
            if len(out) + len(stack) > LIMIT:
                return None
        return out

    def _walk(self, state, p, first_moves, pick):
        c, moves, options = state.clone(), [], first_moves
        for _ in range(10_000):
            a = options[0] if pick == "first" else options[-1] if pick == "last" \
                else options[self.rng.randrange(len(options))]
            c.apply_action(a)
            moves.append(a)
            if not self._mine(c, p):
                break
            options = c.legal_actions()
            if not options:
                break
        return moves, c

    def _view(self, st, v):
        """What player ``v`` sees of ``st``, as ``State.observation`` shows it
        but without writing it out: the state's values where ``v`` may see
        them, a hidden value's size where not, the flow, and ``v``'s own
        actions. Equal views give equal observations; a difference is
        confirmed with the observations themselves (``_confirmed``)."""
        g = self.game
        parts = []
        for i in range(1, len(st.S)):
            x, (scope, vis), t = st.S[i], g.visibility[i], g.slot_types[i]
            if vis == "all" or x is None:
                parts.append(x)
            elif vis == "owner":
                parts.append(tuple(y if p == v else _size(t[1], y) for p, y in enumerate(x)))
            else:
                parts.append(_size(t, x) if scope != "player" else tuple(_size(t[1], y) for y in x))
        mine = sorted((a.kind, repr(a.params)) for a in st.legal_actions() if a.player == v) \
            if not st.is_chance_node() else []
        return (st.S[0], st.current_player(), st.phase(), st.is_terminal(), tuple(parts), tuple(mine))

    def _views(self, st, viewers) -> dict:
        """``{v: self._view(st, v)}`` for each of ``viewers``, made in one
        pass over the state: the parts every viewer sees alike (the visible
        values, the hidden ones' sizes) once, then each viewer's own (the
        values it owns, its actions). Each viewer's view is another tuple
        than ``_view``'s, equal for two states exactly when ``_view``'s is:
        the same parts, grouped otherwise (which slots are whose is the
        game's, the same in every state)."""
        g = self.game
        S = st.S
        common, owned = [], []
        vis_of, types = g.visibility, g.slot_types
        for i in range(1, len(S)):
            x = S[i]
            scope, vis = vis_of[i]
            if vis == "all" or x is None:
                common.append(x)
            elif vis == "owner":   # (marked in place: a slot that is None elsewhere differs)
                common.append(_OWNED)
                owned.append((x, [_size(types[i][1], y) for y in x]))
            else:
                t = types[i]
                common.append(_size(t, x) if scope != "player" else tuple(_size(t[1], y) for y in x))
        head = (S[0], st.current_player(), st.phase(), st.is_terminal(), tuple(common))
        acts: dict = {}
        if not st.is_chance_node():
            for a in st.legal_actions():
                acts.setdefault(a.player, []).append(a)
        out = {}
        for v in viewers:
            mine = acts.get(v)
            out[v] = (head,
                      tuple([tuple([y if q == v else z for q, (y, z) in enumerate(zip(x, sizes))])
                             for x, sizes in owned]),
                      tuple(sorted([(a.kind, repr(a.params)) for a in mine])) if mine else ())
        return out

    def _acts(self, st) -> dict:
        """Each player's legal actions in ``st`` as ``_view`` compares them
        (sorted (kind, repr(params)) pairs), by player."""
        acts: dict = {}
        if not st.is_chance_node():
            for a in st.legal_actions():
                acts.setdefault(a.player, []).append((a.kind, repr(a.params)))
        return {q: sorted(xs) for q, xs in acts.items()}

    def _apart(self, base, acts0: dict, end, viewers) -> set:
        """The viewers among ``viewers`` for whom ``self._view(base, v) !=
        self._view(end, v)``, comparing only what may differ: the ways of one
        secret choice start from one state, so most slots of ``end`` hold the
        very same object as in ``base``, and such a slot shows every viewer
        the same thing in both (a view is a function of the value, and a
        value is never changed in place: an effect puts a new value in the
        slots it writes, see ``verify.reads``). The slots whose objects
        differ are compared as ``_view`` compares them, then the flow and
        each viewer's own actions (``acts0``: ``self._acts(base)``)."""
        g = self.game
        # listed unless the listing is sure to be base's (which did not fail)
        acts = None if self._same_listing(base, end) else self._acts(end)
        if (base.S[0], base.current_player(), base.phase(), base.is_terminal()) != \
                (end.S[0], end.current_player(), end.phase(), end.is_terminal()):
            return set(viewers)
        A, B = base.S, end.S
        if len(A) != len(B):
            return set(viewers)
        vis_of, types = g.visibility, g.slot_types
        out = set()
        for i in range(1, len(A)):
            x, y = A[i], B[i]
            if x is y:
                continue
            scope, vis = vis_of[i]
            if vis == "all" or x is None or y is None:
                if x != y:   # (a value of each player's own that is None in one: apart)
                    return set(viewers)
            elif vis == "owner":
                t = types[i][1]
                if len(x) != len(y):
                    out.update(viewers)
                    continue
                # the players whose element is another object (the others' show alike)
                moved = [q for q, (xa, ya) in enumerate(zip(x, y)) if xa is not ya]
                for v in viewers:
                    if v in out:
                        continue
                    if any((x[q] != y[q]) if q == v else (_size(t, x[q]) != _size(t, y[q]))
                           for q in moved):
                        out.add(v)
            else:
                t = types[i]
                hx = _size(t, x) if scope != "player" else tuple(_size(t[1], z) for z in x)
                hy = _size(t, y) if scope != "player" else tuple(_size(t[1], z) for z in y)
                if hx != hy:
                    return set(viewers)
        if acts is not None:
            for v in viewers:
                if acts0.get(v, ()) != acts.get(v, ()):
                    out.add(v)
        return out

    def _same_listing(self, base, end) -> bool:
        """Whether ``end`` lists the very actions ``base`` lists, told
        without listing them: both at the same node (the same flow, no
        chance event, choice or outcome), where each player still to choose
        at a simultaneous node (else the player to move) lists the actions
        of the phase by its functions ``fn(S, q)`` (its phase's `done` test,
        then each action's choices), and no
        slot those functions read differs between the two states: a slot
        they read whole holds the very same object, and a slot they read
        only as ``S[k][q]`` holds the very same object for each such ``q``
        (``verify.reads.own_reads``; a value is never changed in place).
        The same functions on the same values give the same actions. False
        whenever that cannot be told: then ``end`` is listed."""
        g = self.game
        if base.outcome is not None or end.outcome is not None or base.pending is not None \
                or end.pending is not None or base.choosing is not None or end.choosing is not None:
            return False
        if base.ctl != end.ctl or len(base.S) != len(end.S):
            return False
        ctl = base.ctl
        try:
            # at a simultaneous node every player still to choose is listed, elsewhere
            # the player to move (``Game._all_legal``)
            waiting = ctl[4][ctl[2]:] if g._any_sim and g._sim_point(base) \
                else (ctl[4][ctl[2] % len(ctl[4])],)
            reads = self._phase_reads(g.rounds[ctl[0]][ctl[1]][1][ctl[3]])
        except (AttributeError, LookupError, TypeError, ZeroDivisionError):
            return False
        if reads is None:
            return False
        whole, own = reads
        A, B = base.S, end.S
        for k in whole:
            if A[k] is not B[k]:
                return False
        try:
            for k in own:
                x, y = A[k], B[k]
                if x is y:
                    continue
                for q in waiting:
                    if x[q] is not y[q]:
                        return False
        except (LookupError, TypeError):
            return False
        return True

    def _phase_reads(self, name: str):
        """(slots read whole, slots read as a player's own) by the functions
        a player of phase ``name`` is listed by at a simultaneous node; None:
        not known."""
        kept = self._reads_of
        if name not in kept:
            from atoll.verify.reads import own_reads
            g = self.game
            try:
                fns = [g._phase_fn[name][2]] + [entry[1] for entry in g._listing[name]]
            except (AttributeError, LookupError, TypeError):
                fns = None
            whole, own = set(), set()
            for fn in fns or ():
                r = own_reads(g, getattr(fn, "__name__", "")) if fn is not None else (frozenset(), frozenset())
                if r is None:
                    fns = None
                    break
                whole |= r[0]
                own |= r[1]
            kept[name] = None if fns is None else (frozenset(whole), frozenset(own - whole))
        return kept[name]

    def _confirmed(self, a, b, v):
        """The two states look different to ``v`` in what it is shown."""
        oa, ob = a.observation(v), b.observation(v)
        if oa != ob:
            return _difference(oa, ob)
        ma = sorted(str(x) for x in a.legal_actions() if x.player == v) if not a.is_chance_node() else []
        mb = sorted(str(x) for x in b.legal_actions() if x.player == v) if not b.is_chance_node() else []
        if ma != mb:
            return f"different actions of its own: {_short(ma)} or {_short(mb)}"
        return None

    # ------------------------------------------------------------ the verdict's grounds
    def grounds(self) -> str:
        if self.met == 0:
            return "no simultaneous step with two players or more still to choose was met"
        part = (f"; {self.sampled} of them had too many ways to list (more than {LIMIT}), and were "
                f"compared over the first, the last and {SAMPLED} random ways" if self.sampled else
                "; every way of each was compared")
        return f"{self.met} secret choices compared{part}"


_OWNED = ("owned",)   # where a value of each player's own stands among the parts all see


def _size(t, x):
    return ("hidden", len(x)) if T.is_collection(t) else ("hidden",)


def _difference(oa: dict, ob: dict) -> str:
    """The first thing that differs between two observations, in words."""
    for name in oa["state"]:
        if oa["state"].get(name) != ob["state"].get(name):
            return f"`{name}` as {_short(oa['state'].get(name))} or as {_short(ob['state'].get(name))}"
    for key in ("current_player", "phase", "round", "terminal", "winners"):
        if oa.get(key) != ob.get(key):
            return f"{key.replace('_', ' ')} {oa.get(key)} or {ob.get(key)}"
    return "a different observation"


def _short(v, n: int = 160) -> str:
    s = repr(v)
    return s if len(s) <= n else s[:n] + "..."
