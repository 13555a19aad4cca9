"""A spec reads only files inside its own folder tree (or a folder trusted
explicitly), only regular files, only so much, and data only as plain JSON;
each refusal is a diagnostic, never a hang, a traceback or a file's content.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import atoll
from atoll.cli import main
from atoll.compiler import files, pipeline

GAME = """\
game g {{ title: "G" players: 2..2 }}
{extra}
state {{ n: int = 0 }}
flow {{ round {{ turns in seats: p }} }}
phase p {{ action go() {{ n = n + 1 end phase }} }}
ending over after_round when n >= 2 => tie
"""


def write_spec(folder: Path, extra: str = "", name: str = "game.atoll") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(GAME.format(extra=extra), encoding="utf-8")
    return path


def codes(call) -> tuple[list[str], str]:
    with pytest.raises(atoll.SpecError) as info:
        call()
    return [d.code for d in info.value.diagnostics], str(info.value)


SECRET = "TOPSECRET-k3y-0123456789abcdef"


@pytest.fixture
def outside(tmp_path):
    """A secret JSON file beside the spec's folder, and the spec's folder."""
    (tmp_path / "secret.json").write_text(json.dumps([SECRET * 3]))
    return tmp_path, tmp_path / "game"


def test_data_outside_the_folder_is_refused_and_not_quoted(outside):
    root, folder = outside
    for where in ("../secret.json", str(root / "secret.json"), "/etc/hostname", "/dev/zero"):
        spec = write_spec(folder, f'data d: list[int] from "{where}"')
        got, text = codes(lambda: atoll.compile_spec(spec))
        assert got == ["A0501"], text
        assert SECRET not in text and "--allow-path" in text and "allow=[DIR]" in text
        assert f"game.atoll:2:" in text   # at the declaration that names the file


def test_a_link_inside_the_folder_cannot_lead_outside(outside):
    root, folder = outside
    spec = write_spec(folder, 'data d: list[int] from "data/link.json"')
    (folder / "data").mkdir()
    (folder / "data" / "link.json").symlink_to(root / "secret.json")
    got, text = codes(lambda: atoll.compile_spec(spec))
    assert got == ["A0501"] and SECRET not in text


def test_extends_outside_the_folder_and_the_way_to_allow_it(outside):
    root, folder = outside
    write_spec(root, name="base.atoll")
    folder.mkdir()
    variant = folder / "v.atoll"
    variant.write_text('extends "../base.atoll"\n')
    got, text = codes(lambda: atoll.compile_spec(variant))
    assert got == ["A0501"] and "--allow-path" in text
    assert atoll.compile_spec(variant, allow=[root]).program.title == "G"
    assert atoll.load(variant, players=2, allow=[root]).num_players == 2
    # the cache does not carry a wider trust over to a call without it
    got, _ = codes(lambda: atoll.load(variant, players=2))
    assert got == ["A0501"]


def test_trusted_data_is_quoted_briefly(outside):
    root, folder = outside
    spec = write_spec(folder, 'data d: list[int] from "../secret.json"')
    got, text = codes(lambda: atoll.compile_spec(spec, allow=[root]))
    assert got == ["A0301"], text
    assert SECRET[:20] in text and SECRET * 2 not in text   # a short prefix, no more
    assert max(len(line) for line in text.splitlines()) < 300


def test_the_command_line_takes_allow_path(outside, capsys):
    root, folder = outside
    write_spec(root, name="base.atoll")
    folder.mkdir()
    variant = folder / "v.atoll"
    variant.write_text('extends "../base.atoll"\n')
    assert main(["check", str(variant)]) == 1
    assert "A0501" in capsys.readouterr().out
    assert main(["check", "--allow-path", str(root), str(variant)]) == 0
    capsys.readouterr()
    assert main(["check", str(root)]) == 0   # a folder named on the command line is trusted
    for cmd in ("simulate", "play", "verify", "lower", "docs"):
        assert main([cmd, "--help"]) == 0
        assert "--allow-path" in capsys.readouterr().out, cmd


def test_a_folder_as_data_is_refused(tmp_path):
    spec = write_spec(tmp_path, 'data d: list[int] from "data"')
    (tmp_path / "data").mkdir()
    got, text = codes(lambda: atoll.compile_spec(spec))
    assert got == ["A0502"] and "folder" in text


def test_deep_json_and_duplicate_keys(tmp_path):
    spec = write_spec(tmp_path, 'data d: list[int] from "d.json"')
    (tmp_path / "d.json").write_text("[" * 100_000 + "]" * 100_000)
    got, text = codes(lambda: atoll.compile_spec(spec))
    assert got == ["A0504"] and "100000 deep" in text
    (tmp_path / "d.json").write_text('[1, {"a": 1, "b": "[[[[", "a": 2}]')
    spec = write_spec(tmp_path, 'record R { a: int, b: str }\ndata d: list[R] from "d.json"')
    (tmp_path / "d.json").write_text('[{"a": 1, "b": "[[[[]", "a": 2}]')
    got, text = codes(lambda: atoll.compile_spec(spec))
    assert got == ["A0301"] and "'a' appears twice" in text
    (tmp_path / "d.json").write_text('[{"a": 1, "b": "\\ud800"}]')
    got, text = codes(lambda: atoll.compile_spec(spec))
    assert got == ["A0301"] and "Unicode" in text
    assert files.json_depth('[{"x": "[[[[\\"]]"}, [[]]]') == 3


@pytest.mark.parametrize("text", [
    '[{"a": 1, "b": "\\ud800"}]',            # an escape writes a lone surrogate
    '[{"a": 1, "b": "x\\uDC00"}]',
    '[{"a": 1, "b": "\ud800"}]',              # the text itself holds one (not from a file read as UTF-8)
])
def test_text_with_a_lone_surrogate_is_refused(text):
    """The check that encodes the decoded values is skipped only for a text
    that holds no surrogate and no `\\u` escape (``files._encodes``)."""
    with pytest.raises(ValueError, match="Unicode"):
        files.parse_json(text, "d.json")


def test_text_without_escapes_or_surrogates_is_read():
    assert files.parse_json('[{"a": 1, "b": "île \u00e9"}]', "d.json") == [{"a": 1, "b": "île \u00e9"}]
    assert files.parse_json('["\\u00e9"]', "d.json") == ["\u00e9"]


def test_a_spec_file_too_large(tmp_path):
    spec = tmp_path / "big.atoll"
    spec.write_text(GAME.format(extra="") + "#" * files.MAX_SPEC_BYTES)
    got, text = codes(lambda: atoll.compile_spec(spec))
    assert got == ["A0503"] and "1 MiB" in text


HOSTILE = """
import json, os, sys, resource
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))   # a read without end stops here
import atoll
root, spec = sys.argv[1], sys.argv[2]
out = {}
for name, allow in (("fifo", []), ("zero", ["/dev"]), ("sparse", []), ("spec-fifo", [])):
    target = spec if name != "spec-fifo" else os.path.join(root, "fifo.atoll")
    if name != "spec-fifo":
        open(spec, "w").write(open(os.path.join(root, name + ".atoll.in")).read())
    try:
        atoll.compile_spec(target, allow=allow)
        out[name] = "compiled"
    except atoll.SpecError as e:
        out[name] = [d.code for d in e.diagnostics]
print(json.dumps(out))
"""


def test_devices_fifos_and_huge_files_never_block(tmp_path):
    """In a child process with 1 GB of memory and a time limit: before the
    fix, /dev/zero filled the memory and a FIFO blocked for ever."""
    os.mkfifo(tmp_path / "fifo.json")
    os.mkfifo(tmp_path / "fifo.atoll")
    (tmp_path / "zero.json").symlink_to("/dev/zero")
    with open(tmp_path / "sparse.json", "wb") as f:
        f.truncate(10 ** 10)   # 10 GB that take no room
    for name in ("fifo", "zero", "sparse"):
        (tmp_path / f"{name}.atoll.in").write_text(
            GAME.format(extra=f'data d: list[int] from "{name}.json"'))
    r = subprocess.run([sys.executable, "-c", HOSTILE, str(tmp_path), str(tmp_path / "g.atoll")],
                       capture_output=True, text=True, timeout=60, cwd=tmp_path)   # (not the checkout's atoll/)
    assert r.returncode == 0, r.stderr[-2000:]
    assert json.loads(r.stdout) == {"fifo": ["A0502"], "zero": ["A0502"], "sparse": ["A0503"],
                                    "spec-fifo": ["A0502"]}


def test_a_path_with_a_null_byte(tmp_path):
    """Not a path at all: a diagnostic, not an internal error."""
    variant = tmp_path / "v.atoll"
    variant.write_text('extends "a\x00b.atoll"\n')
    got, _ = codes(lambda: atoll.compile_spec(variant))
    assert got == ["A0003"]
    spec = write_spec(tmp_path, 'data d: list[int] from "a\x00b.json"')
    got, text = codes(lambda: atoll.compile_spec(spec))
    assert got == ["A0301"] and "cannot read" in text


def test_diagnostics_print_no_control_characters(tmp_path, capsys):
    """A spec's text in a diagnostic cannot drive the terminal (ESC
    sequences clear the screen, retitle the window...): control characters
    are shown as `?`, so the caret still points at the right column."""
    spec = tmp_path / "g.atoll"
    spec.write_text(GAME.format(extra='const x: int = "\x1b]0;pwned\x07" + nope')
                    .replace('title: "G"', 'title: "G\x1b[2J\x07"'))
    assert main(["check", str(spec)]) == 1
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "A0101" in out
    assert 'const x: int = "?]0;pwned?" + nope' in out
