"""`atoll play` driven through stdin: every shipped game to the end with the
commands a newcomer uses (help, why, why not, save, undo, load), and the view
generated from the declarations."""
import io
import json
import re

import pytest

import atoll
from atoll import render
from atoll.cli import build_parser, cmd_play, main
from helpers import SPEC

SHIPPED = sorted(SPEC.glob("*.atoll")) + sorted((SPEC / "variants").glob("*.atoll"))


def play(spec, stdin: str, *extra) -> tuple[int, str]:
    args = build_parser().parse_args(["play", str(spec), "--seed", "2", *extra])
    out = io.StringIO()
    status = cmd_play(args, stdin=io.StringIO(stdin), out=out)
    return status, out.getvalue()


@pytest.mark.parametrize("spec", SHIPPED, ids=lambda p: p.stem)
def test_every_shipped_game_plays_to_the_end_with_the_commands(spec, tmp_path):
    save = tmp_path / "game.json"
    script = ["help", "why 0", "rules 0", f"save {save}", "0", "undo", f"load {save}",
              "why not nosuchmove"] + ["0"] * 700
    status, text = play(spec, "\n".join(script) + "\n", "--auto")
    assert status == 0
    assert "undo          take back" in text                      # help
    assert text.count("rulebook:") >= 2                            # why / rules
    assert f"saved to {save}" in text and f"loaded {save}" in text
    assert "undone: back to before your last move" in text
    assert "`nosuchmove` is not an action of this game" in text
    assert re.search(r"^Game over: .*(win|wins|nobody wins) \(", text, re.M), text[-2000:]
    assert "player -4" not in text and "to play (you" not in text.split("game over")[-1]
    # bookkeeping is folded: no phase variable in the views
    game = atoll.load(spec, players=None)
    for name in game.layout.names:
        if "." in name:
            assert f"{name}:" not in text
    # one notation: no record written as a constructor or as JSON
    assert not re.search(r"\b[A-Z]\w*\(", text.split("commands:")[0] + text.split("q, quit")[1])
    assert "{colour" not in text and "'x':" not in text


def test_why_not_names_the_rule_that_forbids_a_move():
    from helpers import ROOT
    nim = ROOT / "tests" / "good" / "nim.atoll"
    _, text = play(nim, "why not take_stones(n=4)\nwhy not take_stones 2\nwhy not take_stones(n=x)\nq\n")
    assert "not allowed: `take_stones`: n=4 is not among its choices `[1, 2, 3]`" in text
    assert "it is allowed: move 1" in text
    assert "cannot read that move: n: expected a number" in text


def test_why_not_reads_records_and_positions_as_the_list_writes_them():
    _, text = play(SPEC / "masterislands.atoll", "0\nwhy not place(c=yellow 3, at=(5,5))\n"
                   "why not sail (0,0) (4,4)\nq\n")
    assert "is not among its choices `free_spaces(me)`" in text or \
        "does not hold" in text or "is not among its choices `hand[me]`" in text
    assert "not allowed: `sail`" in text


def test_a_corrupt_save_is_refused_with_its_reason_and_the_game_is_unchanged(tmp_path):
    good = tmp_path / "good.json"
    bad = tmp_path / "bad.json"
    script = f"save {good}\nstate\nload {bad}\nstate\nload {tmp_path / 'none.json'}\nq\n"
    # the corrupt file: a valid save with one value changed (checksum mismatch)
    game = atoll.load(SPEC / "masterislands.atoll", players=2)
    d = json.loads(game.new_initial_state(seed=2).to_json())
    d["values"][1][0]["value"] = 99
    bad.write_text(json.dumps(d))
    _, text = play(SPEC / "masterislands.atoll", script)
    assert re.search(rf"cannot load {re.escape(str(bad))}: .*checksum.*; the game is unchanged", text)
    assert "No such file" in text and "loaded" not in text
    views = text.split("your move> ")
    assert views[2] == views[4]          # `state` before and after the refused load
    # a save of another player count is refused too
    _, text = play(SPEC / "masterislands.atoll", f"load {good}\nq\n", "--players", "3")
    assert "2 players" in text and "the game is unchanged" in text


def test_undo_restores_the_position_and_the_random_players(tmp_path):
    _, text = play(SPEC / "masterislands.atoll", "moves\n0\nundo\nmoves\nq\n")
    first, after_undo = text.split("your move> ")[0], text.split("your move> ")[3]
    strip = lambda t: t[t.index("MasterIslands: round"):]   # noqa: E731
    assert strip(first) == strip(after_undo)


def test_a_list_as_long_as_the_players_is_not_per_player_data(tmp_path):
    spec = tmp_path / "three.atoll"
    spec.write_text('''game three { title: "Three" players: 3..3 }
state {
  names: list[str] = ["ash", "birch", "cedar"] visible all
  player pts: int = 0 visible all
}
flow { round { turns in seats: go } }
phase go {
  action stop() {
    pts[me] = 1
    if pts[me] == 1 { win [me] }
    end phase
  }
}
''')
    g = atoll.load(spec)
    text = render.view_text(g, g.new_initial_state(), 0)
    assert "names: ash, birch, cedar" in text
    assert "player 0 (you): pts 0" in text and "ash" not in text.split("names:")[1].split("\n", 1)[1]


def test_the_headline_gives_the_rounds_of_the_game_not_the_turns():
    g = atoll.load(SPEC / "masterislands.atoll", players=2)
    st = g.new_initial_state(seed=1)
    import random
    rng = random.Random(1)
    for _ in range(40):
        st.apply_action(rng.choice(st.legal_actions()))
    assert st.round < 40
    assert f"round {st.round}," in render.headline(g, st, 0)


def test_kanaloa_bridges_are_an_ownership_table_and_moves_show_the_cells():
    _, text = play(SPEC / "kanaloa.atoll", "\n".join(["0"] * 30) + "\nq\n", "--players", "3")
    assert "bridges (by owner):" in text and "stones (by owner):" in text
    assert "[[" not in text                       # no nested JSON-like pairs
    _, text = play(SPEC / "masterislands.atoll", "0\n0\nq\n")
    assert re.search(r"sail\(src=\(0,0\) \[\w+ \d\], dst=\(-?\d,-?\d\) \[\w+ \d\]\)", text)
    assert "board (digits under a cell" in text


def test_play_help_lists_the_commands(capsys):
    assert main(["play", "--help"]) == 0
    out = capsys.readouterr().out
    for cmd in ("why N", "why not MOVE", "undo", "save FILE", "load FILE", "--auto"):
        assert cmd in out
