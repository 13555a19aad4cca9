"""`atoll serve` and the docs' trace viewers in a real browser: Playwright for
Python driving Debian's Chromium (no browser is downloaded: Playwright is
pointed at the installed one). One server for the module, on a free port of
127.0.0.1, serving a folder with the shipped games and the small grid game
of tests/web. Skipped, with the reason, where Chromium, Playwright or the web
extra is missing; `.ci/run` installs Chromium when it can."""
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time

import pytest

from helpers import ROOT

pytest.importorskip("starlette", reason="the web extra (Starlette) is not installed")
pytest.importorskip("uvicorn", reason="the web extra (Uvicorn) is not installed")
pytest.importorskip("playwright", reason="Playwright for Python is not installed (the test extra)")

CHROMIUM = next((p for p in (os.environ.get("ATOLL_CHROMIUM"), shutil.which("chromium"),
                             shutil.which("chromium-browser"), "/usr/bin/chromium")
                 if p and os.path.isfile(p)), None)
if CHROMIUM is None:
    pytest.skip("no Chromium installed (Debian: apt-get install chromium; .ci/run does it): "
                "the browser tests need one", allow_module_level=True)

from playwright.sync_api import expect, sync_playwright   # noqa: E402

from atoll.compiler import pipeline                        # noqa: E402
from atoll.simulation import replay_data                   # noqa: E402
from atoll.web import serve                                # noqa: E402
from atoll.web.app import Server, make_app                 # noqa: E402

SHOTS = os.environ.get("ATOLL_SCREENSHOTS")   # a folder to keep the screenshots in, if set


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The served folder (the shipped games and tests/web/paint.atoll), with
    a trace: a replay of a MasterIslands game in which an invariant fails."""
    import uvicorn
    root = tmp_path_factory.mktemp("served")
    for name in ("masterislands.atoll", "kanaloa.atoll", "data", "variants"):
        src = ROOT / "spec" / name
        (shutil.copytree if src.is_dir() else shutil.copy)(src, root / name)
    shutil.copy(ROOT / "tests" / "web" / "paint.atoll", root / "paint.atoll")
    game = pipeline.load(root / "masterislands.atoll", 2)
    replay = next(d for d in (replay_data(game, "masterislands.atoll", s, check=True) for s in range(60))
                  if d["property"])
    (root / "replay.json").write_text(json.dumps(replay))
    html = serve.trace_html(root / "masterislands.atoll", str(root / "replay.json"), None)
    server = uvicorn.Server(uvicorn.Config(
        make_app(Server(root / "masterislands.atoll", players=2, trace_html=html)),
        host="127.0.0.1", port=_free_port(), log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started, "the server did not start"
    url = f"http://127.0.0.1:{server.config.port}"
    _ROOTS[url] = root
    yield url, replay
    server.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture
def page(browser):
    pg = browser.new_page(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    pg.set_default_timeout(10_000)
    yield pg
    pg.close()


def start(page, url: str, spec: str, players: int, title: str):
    page.goto(url + "/")
    expect(page.locator("#title")).not_to_have_text("Atoll")      # the default game is shown
    page.select_option("#ng-spec", spec)
    page.fill("#ng-players", str(players))
    page.select_option("#ng-seat", "0")
    with page.expect_response(lambda r: r.url.endswith("/api/games") and r.request.method == "POST"):
        page.click("#ng-go")
    expect(page.locator("#title")).to_have_text(title)
    expect(page.locator("#headline")).to_contain_text(f"{players} players")


def site_root(url):
    return _ROOTS[url]


_ROOTS: dict = {}


def shot(page, name: str, tmp_path):
    path = (SHOTS and os.path.join(SHOTS, name)) or str(tmp_path / name)
    page.screenshot(path=path)
    return path


@pytest.mark.parametrize("spec,players,title,shape,least", [
    ("masterislands.atoll", 2, "MasterIslands", "rect", 2), ("kanaloa.atoll", 3, "Kanaloa", "circle", 16)])
def test_each_shipped_game_shows_its_board(site, page, tmp_path, spec, players, title, shape, least):
    url, _ = site
    start(page, url, spec, players, title)
    svg = page.locator("#board figure svg").first
    expect(svg).to_be_visible()
    assert svg.locator(shape).count() >= least
    box = svg.bounding_box()
    assert box["width"] > 150 and box["height"] > 60
    expect(page.locator("#moves button.move").first).to_be_visible()
    assert page.locator("#whynot-rule").input_value() in [a.name for a in pipeline.load(
        site_root(url) / spec, players).actions]   # the rules of this game, not the last one's
    path = shot(page, f"serve-{spec.split('.')[0]}.png", tmp_path)
    assert os.path.getsize(path) > 10_000


def test_play_by_clicking_undo_save_load_why_not_and_finish(site, page, tmp_path):
    url, _ = site
    start(page, url, "paint.atoll", 2, "Paint")
    # why not: the middle cell of the bottom row, before two others are painted
    page.select_option("#whynot-rule", "paint")
    page.fill("#whynot-values", "at=(1,1)")
    page.click("#whynot-go")
    expect(page.locator("#whynot-out")).to_contain_text("painted only after two others")
    # a move by clicking the board: the empty board has one cell, (0,0)
    page.locator("#board [data-mark='pos:0,0']").click()
    expect(page.locator("#log > li")).to_have_count(2)          # our move and the agent's
    expect(page.locator("#log > li").last).to_contain_text("paint(at=(0,0))")
    # undo, redo
    page.click("#undo")
    expect(page.locator("#log > li")).to_have_count(0)
    page.click("#redo")
    expect(page.locator("#log > li")).to_have_count(2)
    # save, play on, load: back to the saved position
    with page.expect_download() as dl:
        page.click("#save")
    saved = tmp_path / "save.json"
    dl.value.save_as(saved)
    board = page.locator("#state table.shared").inner_text()
    page.locator("#moves button.move").first.click()
    expect(page.locator("#log > li")).to_have_count(4)
    page.set_input_files("#load-file", str(saved))
    expect(page.locator("#log > li").first).to_contain_text("loaded a saved game")
    assert page.locator("#state table.shared").inner_text() == board
    # a corrupt save is refused with the reason, and the game is unchanged
    bad = tmp_path / "bad.json"
    bad.write_text(saved.read_text().replace('"checksum": "', '"checksum": "0'))
    page.set_input_files("#load-file", str(bad))
    expect(page.locator("#error")).to_contain_text("cannot load")
    # why a listed move is allowed
    page.locator("#moves button.why").first.click()
    expect(page.locator("#why-out")).to_contain_text("rulebook: Playing")
    # to the end
    for _ in range(10):
        if not page.locator("#end").is_hidden():
            break
        n = page.locator("#log > li").count()
        page.locator("#moves button.move").first.click()
        expect(page.locator("#log > li")).not_to_have_count(n)
    expect(page.locator("#end")).to_contain_text("Game over")
    expect(page.locator("#end")).to_contain_text("Winning")
    shot(page, "serve-paint-end.png", tmp_path)


def test_step_through_a_trace(site, page, tmp_path):
    url, replay = site
    page.goto(url + "/trace")
    box = page.locator(".atoll-trace")
    expect(box).to_have_attribute("data-step", "0")
    expect(page.locator(".atoll-trace-frame:visible")).to_have_count(1)
    page.click(".atoll-trace-next")
    page.click(".atoll-trace-next")
    expect(box).to_have_attribute("data-step", "2")
    expect(page.locator(".atoll-trace-frame:visible")).to_contain_text("Step 2")
    page.click(".atoll-trace-goto")
    marked = page.locator(".atoll-trace-frame:visible")
    expect(marked).to_contain_text(replay["property"])
    expect(marked.locator(".atoll-trace-problem")).to_be_visible()
    expect(marked.locator("svg")).to_have_count(1)
    page.click(".atoll-trace-prev")
    assert int(box.get_attribute("data-step")) == int(page.locator(".atoll-trace").get_attribute("data-at")) - 1
    shot(page, "serve-trace.png", tmp_path)


def test_the_docs_site_steps_through_counterexamples_and_example_turns(page, tmp_path):
    out = tmp_path / "site"
    r = subprocess.run([sys.executable, "-m", "atoll.cli", "docs", str(ROOT / "tests" / "web" / "paint.atoll"),
                        "-o", str(out), "--strict", "--games", "5"], cwd=tmp_path, capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    page.goto((out / "games" / "paint" / "designer.html").as_uri())
    box = page.locator(".atoll-trace").first
    expect(box).to_contain_text("counterexample of half_empty")
    expect(box.locator(".atoll-trace-bar")).to_be_visible()
    box.locator(".atoll-trace-next").click()
    expect(box).to_have_attribute("data-step", "1")
    expect(box.locator(".atoll-trace-frame:visible svg")).to_have_count(1)
    box.locator(".atoll-trace-goto").click()
    expect(box.locator(".atoll-trace-frame:visible .atoll-trace-problem")).to_contain_text("half_empty")
    page.goto((out / "games" / "paint" / "players.html").as_uri())
    turn = page.locator(".atoll-trace").first
    expect(turn).to_contain_text("turn")
    turn.locator(".atoll-trace-last").click()
    expect(turn.locator(".atoll-trace-frame:visible")).to_contain_text("paint(at=")
