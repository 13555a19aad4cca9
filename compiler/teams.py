"""The teams a spec declares, checked for one game (A0306).

``teams = EXPR`` is evaluated for the player count and options chosen; the
value must name seats of that game, each in one team at most, and no team
may be empty. A seat that no team names plays on its own.
"""
from __future__ import annotations

from typing import Optional


def problem(teams, players: int) -> Optional[str]:
    """What is wrong with ``teams`` (tuples of seats) for ``players`` players, or None."""
    team_of: dict = {}
    for i, team in enumerate(teams):
        if not team:
            return f"team {i} is empty"
        for seat in team:
            if not 0 <= seat < players:
                return (f"team {i} names seat {seat}, but the seats of {players} players are "
                        f"0 to {players - 1}")
            if seat in team_of:
                where = f"twice in team {i}" if team_of[seat] == i else \
                    f"in two teams ({team_of[seat]} and {i})"
                return f"seat {seat} is {where}"
            team_of[seat] = i
    return None
