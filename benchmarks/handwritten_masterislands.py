"""MasterIslands written by hand in plain Python: the speed floor that the
compiled model of ``spec/masterislands.atoll`` is measured against.

It plays the standard mode for 2 to 4 players with the spec's house-rule
defaults (others_galleons=stay, discovery_stuck=skip, sail_to_empty=false,
stall_ends=true), and offers the same actions as the spec:

    ("place", card, pos)       lay a card from the hand next to an own galleon
    ("sail", src, dst)         move an own galleon one step onto a card
    ("conquer", line)          take a line (a sorted tuple of positions) worth 10
    ("pass_conquest",)         take nothing

A card is a tuple (colour name, value); a position is a tuple (x, y).

Chance: the pile is shuffled with ``random.Random(seed)`` and cards are drawn
from its top. To replay a game whose draws are known (the side-by-side check
does this), pass ``draws``: a ``collections.deque`` of cards that every draw
takes from, in order; the caller may append to it between moves.
"""
from __future__ import annotations

import json
import random
from pathlib import Path

COLOURS = ("yellow", "green", "red", "blue")
HAND_SIZE = 3
LINE_TOTAL = 10
START = (0, 0)
VICTORY = {2: 12, 3: 10, 4: 8}
GALLEONS = 2
# Horizontal, vertical and the two diagonals.
DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))

DISCOVERY = "discovery"
CONQUEST = "conquest"

DECK_FILE = Path(__file__).resolve().parent.parent / "spec" / "data" / "masterislands_cards.json"


def load_deck(path=DECK_FILE) -> list:
    with open(path) as f:
        data = json.load(f)
    return [(c["colour"], c["value"]) for c in data["cards"]]


DECK = load_deck()


def orth(pos):
    x, y = pos
    return ((x, y - 1), (x + 1, y), (x, y + 1), (x - 1, y))


def free_spaces(board, fleet) -> set:
    """Empty spaces next to a card that bears one of the galleons of `fleet`."""
    out = set()
    for g in fleet:
        if g in board:
            for q in orth(g):
                if q not in board:
                    out.add(q)
    return out


def lines_worth(board, cells, total=LINE_TOTAL) -> list:
    """Every set of two or more of `cells` lying on one horizontal, vertical
    or diagonal line (gaps allowed) whose card values add up to `total`.
    Each line is a tuple of positions in sorted order. Card values are
    positive, so a line worth less than the total in all is skipped, and a
    search branch stops as soon as it passes the total or can no longer
    reach it."""
    out = []
    for dx, dy in DIRECTIONS:
        groups = {}
        for q in cells:
            x, y = q
            if dy == 0:
                key = y
            elif dx == 0:
                key = x
            elif dx == dy:
                key = y - x
            else:
                key = y + x
            groups.setdefault(key, []).append(q)
        for group in groups.values():
            if len(group) < 2:
                continue
            if sum(board[q][1] for q in group) < total:   # the whole line falls short
                continue
            group.sort()
            values = [board[q][1] for q in group]
            rest = [0] * (len(values) + 1)   # rest[i]: the value of group[i:]
            for i in range(len(values) - 1, -1, -1):
                rest[i] = rest[i + 1] + values[i]
            _subsets_with_sum(group, values, rest, 0, [], 0, total, out)
    return out


def _subsets_with_sum(group, values, rest, start, chosen, acc, total, out):
    if acc + rest[start] < total:
        return
    for i in range(start, len(group)):
        s = acc + values[i]
        if s > total:
            continue
        chosen.append(group[i])
        if s == total:
            if len(chosen) >= 2:
                out.append(tuple(chosen))
        else:
            _subsets_with_sum(group, values, rest, i + 1, chosen, s, total, out)
        chosen.pop()


class MasterIslands:
    def __init__(self, players: int = 2, seed: int = 0, draws=None, deck=None):
        if not 2 <= players <= 4:
            raise ValueError("MasterIslands is played by 2 to 4 players")
        self.players = players
        self.victory = VICTORY[players]
        self.draws = draws
        self.pile = list(DECK if deck is None else deck)
        if draws is None:
            random.Random(seed).shuffle(self.pile)
        self.board = {}
        self.hands = [[] for _ in range(players)]
        self.taken = [[] for _ in range(players)]
        self.idle = 0
        self.current = 0
        self.phase = DISCOVERY
        self.placed = self.moved = self.again = False
        self.over = False
        self.ending = None          # how the game ended: conquest, pile_empty or stalled
        self._winners = ()
        self._legal = None
        # Setup: deal three cards to each player, lay the first card, put the
        # galleons on it.
        for p in range(players):
            for _ in range(HAND_SIZE):
                self.hands[p].append(self._draw())
        self.board[START] = self._draw()
        self.fleets = [[START] * GALLEONS for _ in range(players)]
        self._start_discovery()

    # ------------------------------------------------------------ queries
    def is_terminal(self) -> bool:
        return self.over

    def winners(self) -> tuple:
        return self._winners

    def current_player(self) -> int:
        return self.current

    def legal_actions(self) -> list:
        if self._legal is None:
            if self.over:
                self._legal = []
            elif self.phase == DISCOVERY:
                self._legal = self._discovery_actions()
            else:
                self._legal = self._conquest_actions()
        return self._legal

    def _discovery_actions(self) -> list:
        p = self.current
        board, hand, fleet = self.board, self.hands[p], self.fleets[p]
        if self.placed and self.moved and self.again:   # the extra Discovery is optional
            return [("discover_again",), ("move_on",)]
        actions = []
        # Both Discovery actions must stay possible: a card may be laid only
        # if a galleon can still move afterwards, and a galleon may move only
        # if a card can still be laid afterwards.
        if not self.placed and hand:
            cards = list(dict.fromkeys(hand))
            for at in free_spaces(board, fleet):
                if self.moved or any(d in board or d == at for g in fleet for d in orth(g)):
                    for c in cards:
                        actions.append(("place", c, at))
        if not self.moved:
            for src in set(fleet):
                for dst in orth(src):
                    if dst not in board:
                        continue
                    if self.placed:
                        actions.append(("sail", src, dst))
                    elif hand:
                        after = list(fleet)
                        after[after.index(src)] = dst
                        if free_spaces(board, after):
                            actions.append(("sail", src, dst))
        return actions

    def _conquest_actions(self) -> list:
        own = self.fleets[self.current]
        cells = [q for q in self.board if q not in own]
        actions = [("conquer", line) for line in lines_worth(self.board, cells)]
        actions.append(("pass_conquest",))
        return actions

    # ------------------------------------------------------------ moves
    def apply(self, action) -> None:
        if action not in self.legal_actions():
            raise ValueError(f"illegal action {action!r}")
        self._legal = None
        p = self.current
        kind = action[0]
        if kind == "place":
            _, card, at = action
            self.hands[p].remove(card)
            self.board[at] = card
            self.placed = True
            fleet = self.fleets[p]
            self.again = any(q in fleet and q in self.board and self.board[q][0] == card[0]
                             for q in orth(at))
            self._after_discovery_step()
        elif kind == "sail":
            _, src, dst = action
            fleet = self.fleets[p]
            fleet[fleet.index(src)] = dst
            self.moved = True
            self._after_discovery_step()
        elif kind == "discover_again":
            self._start_discovery()
        elif kind == "move_on":
            self._start_conquest()
        elif kind == "conquer":
            taken = self.taken[p]
            for q in action[1]:
                taken.append(self.board.pop(q))
            if len(taken) >= self.victory:
                self._finish("conquest", (p,))
                return
            self._resupply()
        else:
            self._resupply()

    def _draw(self):
        if self.draws is None:
            return self.pile.pop()
        card = self.draws.popleft()
        self.pile.remove(card)
        return card

    def _start_discovery(self) -> None:
        self.phase = DISCOVERY
        self.placed = self.moved = self.again = False
        self._legal = None
        if not self.legal_actions():        # stuck: the Discovery is skipped
            self._start_conquest()

    def _after_discovery_step(self) -> None:
        if self.placed and self.moved:
            if not self.again:
                self._start_conquest()      # else the player chooses: discover_again or move_on
        elif not self.legal_actions():
            self._start_conquest()

    def _start_conquest(self) -> None:
        self.phase = CONQUEST
        self._legal = None

    def _resupply(self) -> None:
        p = self.current
        hand = self.hands[p]
        missing = HAND_SIZE - len(hand)
        for _ in range(missing):
            if not self.pile:
                break
            hand.append(self._draw())
        self.idle = 0 if missing > 0 else self.idle + 1
        if not self.pile:
            self._finish("pile_empty", self._ranking())
            return
        if self.idle >= self.players:
            self._finish("stalled", self._ranking())
            return
        self.current = (p + 1) % self.players
        self._start_discovery()

    def _ranking(self) -> tuple:
        """Most cards, then highest total value; otherwise nobody wins."""
        keys = [(len(t), sum(v for _, v in t)) for t in self.taken]
        best = max(keys)
        top = [p for p, k in enumerate(keys) if k == best]
        return (top[0],) if len(top) == 1 else ()

    def _finish(self, ending: str, winners: tuple) -> None:
        self.over = True
        self.ending = ending
        self._winners = winners
        self._legal = []


def play_random(players: int, seed: int):
    """One game by uniformly random players; returns (game, number of actions)."""
    game = MasterIslands(players, seed)
    rng = random.Random(seed)
    steps = 0
    while not game.over:
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
        steps += 1
    return game, steps
