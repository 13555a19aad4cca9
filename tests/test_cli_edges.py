"""The command line at its edges: every failure with ``--json`` is a JSON
error object on stdout; usage errors (a bad path, a bad count, a folder
where a file is needed) exit 2; a Dask address where no scheduler answers
is an error within its timeout, without a traceback; teams, game blocks and
counts that make no sense are refused with a diagnostic."""
from __future__ import annotations

import gc
import json
import socket
import sys
import threading
import time
from pathlib import Path

import pytest

import atoll
from atoll.cli import main

TESTS = Path(__file__).resolve().parent
NIM = str(TESTS / "good" / "nim.atoll")

SMALL = """\
game g {{ title: "G{k}" players: 2..2 }}
state {{ n: int = 0 }}
flow {{ round {{ turns in seats: p }} }}
phase p {{ action go() {{ n = n + 1 end phase }} }}
ending over after_round when n >= 2 => tie
property bounded "n stays small." invariant n <= 10
"""


def json_out(capsys) -> dict:
    out = capsys.readouterr().out
    return json.loads(out)


def assert_error(obj: dict, rc: int) -> dict:
    assert obj["ok"] is False, obj
    err = obj["error"]
    assert err["exit"] == rc and err["message"], obj
    return err


@pytest.fixture
def bad_spec(tmp_path):
    p = tmp_path / "bad.atoll"
    p.write_text(SMALL.format(k=1).replace("n >= 2", "nope >= 2"))
    return str(p)


USAGE = [
    ["simulate", "no_such.atoll"],
    ["simulate", str(TESTS / "good")],
    ["simulate", NIM, "--players", "99"],
    ["simulate", NIM, "--option", "novalue"],
    ["simulate", NIM, "--option", "nosuch=1"],
    ["simulate", NIM, "-n", "0"],
    ["simulate", NIM, "-n", "many"],
    ["simulate", NIM, "--seed", "abc"],
    ["simulate", NIM, "--max-steps", "-1"],
    ["simulate", NIM, "--max-steps", "0"],
    ["simulate", NIM, "--dask", "local", "--dask-timeout", "0"],
    ["simulate", NIM, "--dask", "local", "--workers", "-2"],
    ["verify", "no_such.atoll"],
    ["verify", NIM, "--players", "99"],
    ["verify", NIM, "--games", "-1"],
    ["verify", NIM, "--timeout", "0"],
    ["verify", NIM, "--bogus"],
    ["check", "no_such.atoll"],
    ["check"],
]


@pytest.mark.parametrize("argv", USAGE, ids=lambda a: " ".join(a[:1] + a[2:]) or a[0])
def test_usage_errors_exit_2_with_a_json_error(argv, capsys):
    assert main(argv + ["--json"]) == 2
    assert_error(json_out(capsys), 2)
    assert main(argv) == 2
    cap = capsys.readouterr()
    assert cap.out == "" and cap.err.strip() and "Traceback" not in cap.err


@pytest.mark.parametrize("cmd", ["simulate", "verify", "check"])
def test_spec_errors_with_json(cmd, bad_spec, capsys):
    assert main([cmd, bad_spec, "--json"]) == 1
    obj = json_out(capsys)
    if cmd == "check":
        assert obj["ok"] is False and obj["files"][0]["diagnostics"][0]["code"] == "A0101"
    else:
        err = assert_error(obj, 1)
        assert err["diagnostics"][0]["code"] == "A0101"


def test_verify_a_folder_verifies_every_spec(tmp_path, capsys):
    for k in (1, 2):
        (tmp_path / f"g{k}.atoll").write_text(SMALL.format(k=k))
    assert main(["verify", str(tmp_path), "--games", "3", "--json"]) == 0
    obj = json_out(capsys)
    assert [Path(s["spec"]).name for s in obj["specs"]] == ["g1.atoll", "g2.atoll"]
    assert all(s["results"][0]["property"] == "bounded" for s in obj["specs"])
    assert main(["verify", str(tmp_path), "--games", "3"]) == 0
    assert capsys.readouterr().out.count("1 of 1 verdicts as expected") == 2
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["verify", str(empty)]) == 2


# ---------------------------------------------------------------- Dask

def _garbage_server():
    """A server that answers every connection with bytes that are no Dask message."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    srv.settimeout(0.2)
    stop = threading.Event()

    def serve():
        while not stop.is_set():
            try:
                c, _ = srv.accept()
            except OSError:
                continue
            try:
                c.settimeout(1)
                c.sendall(b"\xff" * 64 + b"\x00garbage" * 100)
                c.recv(1000)
            except OSError:
                pass
            finally:
                c.close()
    threading.Thread(target=serve, daemon=True).start()
    return srv, stop


def _closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def test_dask_addresses_where_no_scheduler_answers(capsys, monkeypatch):
    pytest.importorskip("distributed", reason="the Dask path needs atoll[dask]")
    unraisable = []
    monkeypatch.setattr(sys, "unraisablehook", unraisable.append)
    from atoll import dask_sim
    real_probe, waits = dask_sim.probe, []

    def probe(address, timeout):
        waits.append(timeout)
        return real_probe(address, timeout)
    monkeypatch.setattr(dask_sim, "probe", probe)
    srv, stop = _garbage_server()
    try:
        port = srv.getsockname()[1]
        for address in (f"tcp://127.0.0.1:{port}", f"tcp://127.0.0.1:{_closed_port()}",
                        "tcp://::nonsense", "nonsense://x:1"):
            waits.clear()
            t0 = time.monotonic()
            rc = main(["simulate", NIM, "-n", "2", "--dask", address, "--dask-timeout", "0.5", "--json"])
            gc.collect()
            took = time.monotonic() - t0
            err = assert_error(json_out(capsys), 2)
            assert rc == 2 and address in err["message"], err
            assert "internal error" not in err["message"]
            # the wait asked for is the one given (not the 10 s default); the
            # bound below only tells a hang from a slow machine, it is no speed test
            assert waits == [0.5], waits
            assert took < 120, f"{address}: {took:.1f} s for a 0.5 s timeout: a hang"
    finally:
        stop.set()
        srv.close()
    assert not unraisable, [str(u.exc_value) for u in unraisable]


# ---------------------------------------------------------------- teams and the game block

TEAMS = """\
game g {{ title: "G" players: 2..4 }}
teams = {teams}
state {{ n: int = 0 }}
flow {{ round {{ turns in seats: p }} }}
phase p {{ action go() {{ n = n + 1 end phase }} }}
ending over after_round when n >= 2 => tie
"""


@pytest.mark.parametrize("teams,players,words", [
    ("[[0, 1], [2, 3]]", 3, "seat 3"),
    ("[[0, 1], [1, 2]]", 3, "seat 1 is in two teams"),
    ("[[0, 1], []]", 2, "empty"),
    ("[[0, -1]]", 2, "seat -1"),
])
def test_bad_teams_are_refused(tmp_path, teams, players, words, capsys):
    path = tmp_path / "t.atoll"
    path.write_text(TEAMS.format(teams=teams))
    with pytest.raises(atoll.SpecError) as info:
        atoll.load(path, players=players)
    assert [d.code for d in info.value.diagnostics] == ["A0306"], str(info.value)
    assert words in str(info.value) and "t.atoll:2:" in str(info.value)
    assert main(["check", str(path)]) == 1
    assert "A0306" in capsys.readouterr().out


def test_good_teams_still_load(tmp_path):
    path = tmp_path / "t.atoll"
    path.write_text(TEAMS.format(teams="if player_count == 4 then [[0, 2], [1, 3]] else []"))
    assert atoll.load(path, players=4).teams == ((0, 2), (1, 3))
    assert atoll.load(path, players=3).num_players == 3


def test_a_game_block_entry_given_twice(tmp_path):
    path = tmp_path / "g.atoll"
    path.write_text(SMALL.format(k=1).replace('title: "G1"', 'title: "G1" title: "G2"'))
    with pytest.raises(atoll.SpecError) as info:
        atoll.compile_spec(path)
    assert [d.code for d in info.value.diagnostics] == ["A0108"]
    assert "`title` is given twice" in str(info.value)


def test_check_shows_a_file_name_with_control_characters_as_question_marks(tmp_path, capsys):
    """A spec's file name reaches the terminal like its other text: control
    characters (a newline, an escape sequence) shown as `?`."""
    from atoll.cli import main
    path = tmp_path / "a\nb\x1b[31m.atoll"
    path.write_text('game g { title: "G" players: 2..2 }\nstate { n: int = 0 }\n'
                    "flow { round { turns in seats: p } }\nphase p { action go() { n = n + 1 end phase } }\n"
                    "ending e after_turn when n > 3 => tie\n")
    assert main(["check", str(path)]) == 0
    out = capsys.readouterr().out
    assert "a?b?[31m.atoll" in out and "\x1b" not in out
