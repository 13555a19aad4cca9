"""`atoll serve` without a browser: the HTTP layer (Starlette's test client),
the trace files, `atoll simulate --replays` and the command's own errors.
The browser tests are in test_serve_browser.py."""
import json
import re
import shutil
import warnings

import pytest

pytest.importorskip("starlette", reason="the web extra (Starlette) is not installed")
pytest.importorskip("httpx", reason="httpx (for Starlette's test client) is not installed")

with warnings.catch_warnings():   # a new Starlette asks for httpx2 and still works with httpx
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient   # noqa: E402

from atoll import cli                           # noqa: E402
from atoll.docgen import rulebook               # noqa: E402
from atoll.web import serve, traces, viewer     # noqa: E402
from atoll.web.app import Server, make_app      # noqa: E402
from helpers import ROOT                         # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
PAINT = ROOT / "tests" / "web" / "paint.atoll"


def client(spec=PAINT, **kw) -> TestClient:
    return TestClient(make_app(Server(spec, **kw)), raise_server_exceptions=False)


@pytest.fixture(scope="module")
def c():
    return client(players=2, seed=0)


def new(c, **body):
    r = c.post("/api/games", json=body)
    assert r.status_code == 200, r.text
    return r.json()["id"], r.json()["view"]


def moves(v) -> list:
    return [m for g in v["groups"] for m in g["moves"]]


def test_a_game_shows_its_moves_by_rule_with_targets_on_the_board(c):
    gid, v = new(c)
    assert v["title"] == "Paint" and v["deciding"] == 0 and not v["terminal"]
    (g,) = v["groups"]
    assert g["rule"] == "paint" and g["cites"] == ["Playing"] and "own colour" in g["summary"]
    labels = [m["label"] for m in g["moves"]]
    assert "paint(at=(1,1))" not in labels and len(labels) == 5   # the `when` forbids it
    for m in g["moves"]:    # each move names its cell: a target of the board
        x, y = re.fullmatch(r"paint\(at=\((-?\d+),(-?\d+)\)\)", m["label"]).groups()
        assert m["marks"] == [f"pos:{x},{y}"]
    # the first move has nothing drawn yet; after it the board is drawn with targets
    r = c.post(f"/api/games/{gid}/move", json={"move": 0})
    v = r.json()["view"]
    (pic,) = v["pictures"]
    assert "<svg" in pic["svg"] and "data-mark='pos:0,0'" in pic["svg"]


def test_moves_undo_redo_and_the_log(c):
    gid, v = new(c)
    v = c.post(f"/api/games/{gid}/move", json={"move": 1}).json()["view"]
    mine, theirs = v["log"][0], v["log"][1]     # the agent answered at once
    assert mine["who"] == "you" and mine["rule"] == "paint" and mine["cites"] == ["Playing"]
    assert any(ch.startswith("board: +") for ch in mine["changes"]) and theirs["agent"]
    assert v["can_undo"] and not v["can_redo"] and v["deciding"] == 0
    before = moves(v)
    v = c.post(f"/api/games/{gid}/undo").json()["view"]
    assert v["log"] == [] and v["can_redo"] and len(moves(v)) == 5
    v = c.post(f"/api/games/{gid}/redo").json()["view"]
    assert moves(v) == before and len(v["log"]) == 2
    r = c.post(f"/api/games/{gid}/redo")
    assert r.status_code == 400 and r.json() == {"error": "nothing to redo"}


def test_a_game_played_to_its_end_names_the_winner_and_the_rule(c):
    gid, v = new(c)
    while not v["terminal"]:
        v = c.post(f"/api/games/{gid}/move", json={"move": 0}).json()["view"]
    end = v["end"]
    assert end["name"] == "full" and end["cites"] == ["Winning"] and "most cells" in end["how"]
    assert sorted(end["scores"]) == [3, 3] and v["groups"] == []
    r = c.post(f"/api/games/{gid}/move", json={"move": 0})
    assert r.status_code == 409 and "game is over" in r.json()["error"]


def test_hot_seat_hands_every_seat_to_the_person(c):
    gid, v = new(c, seat="all")
    seen = []
    for _ in range(4):
        seen.append(v["deciding"])
        v = c.post(f"/api/games/{gid}/move", json={"move": 0}).json()["view"]
    assert seen == [0, 1, 0, 1] and all(not e["agent"] for e in v["log"])


def test_why_and_why_not_give_the_rule_and_its_citation(c):
    gid, v = new(c)
    why = c.post(f"/api/games/{gid}/why", json={"move": 0}).json()["text"]
    assert "Paint a free cell" in why and "rulebook: Playing" in why
    t = c.post(f"/api/games/{gid}/why-not", json={"text": "paint(at=(1,1))"}).json()["text"]
    assert t.startswith("not allowed") and "painted only after two others" in t and "Playing" in t
    t = c.post(f"/api/games/{gid}/why-not", json={"text": "paint(at=(0,0))"}).json()["text"]
    assert t == "it is allowed: move 0"
    t = c.post(f"/api/games/{gid}/why-not", json={"text": "fly(at=(0,0))"}).json()["text"]
    assert "not an action of this game" in t


def test_bad_requests_get_a_reason_never_a_traceback(c):
    gid, v = new(c)
    cases = [
        ("post", f"/api/games/{gid}/move", {"json": {"move": 99}}, 400, "no move 99"),
        ("post", f"/api/games/{gid}/move", {"json": {"move": "x"}}, 400, "no move 'x'"),
        ("post", f"/api/games/{gid}/move", {"json": {"id": "123"}}, 400, "not one of your legal moves"),
        ("post", f"/api/games/{gid}/move", {"json": {}}, 400, "name the move"),
        ("post", f"/api/games/{gid}/move", {"content": b"{nope"}, 400, "not JSON"),
        ("post", f"/api/games/{gid}/why", {"json": {"move": -1}}, 400, "no move -1"),
        ("post", f"/api/games/{gid}/why-not", {"json": {"text": ""}}, 400, "name the move"),
        ("get", "/api/games/feedbeef", {}, 404, "no game"),
        ("post", "/api/games", {"json": {"players": 9}}, 400, "2 to 3 players"),
        ("post", "/api/games", {"json": {"options": {"nope": 1}}}, 400, "unknown option"),
        ("post", "/api/games", {"json": {"seat": 5}}, 400, "seat must be"),
        ("post", "/api/games", {"json": {"seed": -1}}, 400, "seed must be"),
        ("get", "/static/../app.py", {}, 404, ""),
        ("get", "/trace", {}, 404, "--trace"),
    ]
    for method, url, kw, status, words in cases:
        r = getattr(c, method)(url, **kw)
        assert r.status_code == status, (url, kw, r.text)
        assert words in r.json()["error"], (url, r.json())
        assert "Traceback" not in r.text


def test_an_unknown_spec_path_is_404_and_nothing_outside_the_folder_is_read(tmp_path):
    root = tmp_path / "served"
    root.mkdir()
    shutil.copy(PAINT, root / "paint.atoll")
    (tmp_path / "outside.atoll").write_text(PAINT.read_text())   # a good spec, but outside
    (root / "notes.txt").write_text("not a spec")
    c = client(root / "paint.atoll")
    assert c.get("/api/specs").json() == {"specs": ["paint.atoll"], "default": "paint.atoll"}
    for spec in ("../outside.atoll", str(tmp_path / "outside.atoll"), "missing.atoll", "notes.txt",
                 "../../../../etc/passwd", "", 7):
        r = c.post("/api/games", json={"spec": spec})
        assert r.status_code == 404 and "unknown spec" in r.json()["error"], (spec, r.text)


def test_a_broken_spec_is_a_422_with_its_diagnostics(tmp_path):
    (tmp_path / "bad.atoll").write_text("game broken {\n  title: \"Broken\"\n  players: 2\n}\nstate { x: int = y }\n")
    r = client(tmp_path / "bad.atoll").post("/api/games", json={})
    assert r.status_code == 422 and "error[A0" in r.json()["error"] and "bad.atoll:1:1" in r.json()["error"]


def test_save_and_load_and_a_corrupt_save_is_refused_with_the_reason(c):
    gid, v = new(c)
    v = c.post(f"/api/games/{gid}/move", json={"move": 2}).json()["view"]
    saved = c.get(f"/api/games/{gid}/save")
    assert saved.status_code == 200 and "attachment" in saved.headers["content-disposition"]
    other, _ = new(c, seed=5)
    v2 = c.post(f"/api/games/{other}/load", content=saved.content).json()["view"]
    assert v2["state"] == v["state"] and moves(v2) == moves(v)
    assert v2["log"][-1]["text"].startswith("loaded a saved game") and v2["can_undo"]
    d = json.loads(saved.text)
    d["values"][1] = []                                  # damaged: the board emptied
    r = c.post(f"/api/games/{other}/load", content=json.dumps(d).encode())
    assert r.status_code == 400 and r.json()["error"].startswith("cannot load: saved game, field")
    r = c.post(f"/api/games/{other}/load", content=b"\xff\xfe")
    assert r.status_code == 400 and "UTF-8" in r.json()["error"]
    assert c.get(f"/api/games/{other}").json()["view"]["state"] == v["state"]   # unchanged


def test_spec_text_reaching_html_is_escaped(tmp_path):
    hostile = "<script>alert(1)</script>"
    text = PAINT.read_text().replace('title: "Paint"', f'title: "{hostile}"') \
        .replace('"Paint a free cell in one\'s own colour."', f'"{hostile}"')
    spec = tmp_path / "x<b>.atoll"
    spec.write_text(text)
    c = client(spec)
    page = c.get("/").text
    assert "<b>" not in page and "&lt;b&gt;" in page
    gid, v = new(c)
    v = c.post(f"/api/games/{gid}/move", json={"move": 0}).json()["view"]
    assert v["title"] == hostile                       # JSON: the page sets it as text
    assert "<script" not in v["pictures"][0]["svg"]     # the one part the page takes as markup
    src = traces.Source("replay", 2, {}, 0, [m["id"] for m in []] or _history(c, gid))
    doc = rulebook.load(spec)
    html = viewer.trace_html(traces.build(doc, doc.game(2), src))
    assert "<script" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def _history(c, gid) -> list:
    return json.loads(c.get(f"/api/games/{gid}/save").text)["history"]


# ---------------------------------------------------------------- traces

@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """A real report of `atoll verify --json` for the grid game."""
    out = tmp_path_factory.mktemp("report") / "report.json"
    import contextlib
    import io
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert cli.main(["verify", str(PAINT), "--json", "--games", "20"]) == 0
    out.write_text(buf.getvalue())
    return out


def test_a_counterexample_is_stepped_through_with_the_failure_marked(report):
    src = traces.read(report.read_text(), spec_name="paint.atoll")
    assert (src.kind, src.prop, src.verdict) == ("counterexample", "half_empty", "VIOLATED")
    doc = rulebook.load(PAINT)
    tr = traces.build(doc, doc.game(src.players, src.options), src)
    holds = [f.holds for f in tr.frames]
    assert holds[tr.at] is False and all(holds[:tr.at]) and tr.at == 4
    marked = tr.frames[tr.at]
    assert "half_empty" in marked.problem and marked.rule == "paint" and marked.cites == ["Playing"]
    assert any(name == "board" for name, _ in marked.changes) and marked.pictures
    html = serve.trace_html(PAINT, str(report), None)
    assert html.count("atoll-trace-frame") == len(tr.frames) and "atoll-trace-problem" in html
    c = client(PAINT, trace_html=html)
    page = c.get("/trace")
    assert page.status_code == 200 and "atoll-trace.js" in page.text and "half_empty" in page.text


def test_a_witness_is_a_trace_too_and_a_proof_is_not(report):
    src = traces.read(report.read_text(), prop="middle_painted")
    doc = rulebook.load(PAINT)
    tr = traces.build(doc, doc.game(src.players, src.options), src)
    assert src.kind == "witness" and tr.frames[tr.at].holds is True
    assert "reached" in tr.frames[tr.at].problem
    d = json.loads(report.read_text())
    d["results"] = [dict(r, counterexample={"inputs": {"x": "1"}}, detail={})
                    for r in d["results"][:1]]
    with pytest.raises(traces.TraceError, match="nothing to step through: its counterexample is values"):
        traces.read(json.dumps(d), prop="half_empty")
    with pytest.raises(traces.TraceError, match="no property nope"):
        traces.read(report.read_text(), prop="nope")


def test_a_trace_that_does_not_replay_is_refused_naming_the_step(report):
    d = json.loads(report.read_text())
    r = next(r for r in d["results"] if r["counterexample"])
    r["counterexample"]["steps"][2]["id"] = 12345
    src = traces.read(json.dumps(d))
    doc = rulebook.load(PAINT)
    with pytest.raises(traces.TraceError, match="step 3: action id 12345 is not legal"):
        traces.build(doc, doc.game(src.players, src.options), src)
    for text in ("[1]", "{", '{"format": "other"}'):
        with pytest.raises(traces.TraceError):
            traces.read(text)


def test_simulate_writes_replays_that_serve_steps_through(tmp_path, capsys):
    assert cli.main(["simulate", str(PAINT), "-n", "4", "--check", "--replays", str(tmp_path)]) == 1
    files = sorted(tmp_path.glob("seed-*.json"))
    assert files and "replays:" in capsys.readouterr().out
    d = json.loads(files[0].read_text())
    assert d["format"] == "atoll-replay/1" and d["property"] == "half_empty"
    src = traces.read(files[0].read_text())
    doc = rulebook.load(PAINT)
    tr = traces.build(doc, doc.game(src.players, src.options), src)
    assert tr.frames[tr.at].holds is False and "stopped here" in tr.frames[tr.at].problem
    # a saved game is a trace as well
    c = client(PAINT)
    gid, _ = new(c)
    c.post(f"/api/games/{gid}/move", json={"move": 0})
    save = traces.read(c.get(f"/api/games/{gid}/save").content)
    assert save.kind == "save" and len(save.ids) == 2


def test_the_command_reports_its_errors_before_serving(tmp_path, capsys):
    assert cli.main(["serve", str(tmp_path / "none.atoll")]) == 2
    assert cli.main(["serve", str(PAINT), "--players", "7"]) == 2
    assert cli.main(["serve", str(PAINT), "--seat", "x"]) == 2
    assert cli.main(["serve", str(PAINT), "--property", "half_empty"]) == 2
    (tmp_path / "t.json").write_text('{"results": []}')
    assert cli.main(["serve", str(PAINT), "--trace", str(tmp_path / "t.json")]) == 2
    err = capsys.readouterr().err
    assert "no such file" in err and "2 to 3 players" in err and "--trace" in err
