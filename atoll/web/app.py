"""The web app of ``atoll serve`` (Starlette; the optional extra ``atoll[web]``).

The server plays the specs of one folder: the spec given on the command
line and every spec under its folder (the *root*). A request names a spec
by its path under the root; a path outside it, or not an ``.atoll`` file
there, is an unknown spec (404). The compiler reads files only under the
root and the folders of ``--allow-path``, as ``atoll check`` does for a
folder. Every failure is an HTTP error with a JSON body ``{"error": reason}``
(4xx for a bad request), never a traceback.

Routes: ``/`` the page of play, ``/trace`` the trace (``--trace``),
``/static/NAME`` the page's script and style, and under ``/api``:
``GET specs``; ``POST games`` (a new game: spec, players, options, seed,
seat); ``GET games/ID``; ``POST games/ID/move`` (``{"move": index}`` or
``{"id": action id}``), ``undo``, ``redo``, ``why`` (``{"move": index}``),
``why-not`` (``{"text": move}``), ``load`` (the save's text);
``GET games/ID/save``.
"""
from __future__ import annotations

import json
import secrets
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Optional

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from atoll.compiler import files
from atoll.diagnostics import SpecError, render_all
from atoll.web import page
from atoll.web.session import Play, Refused

GAMES_KEPT = 64           # games in memory; the oldest is dropped past this
SPECS_LISTED = 200        # specs listed from the root
MAX_BODY = 4_000_000      # bytes of a request body (a save to load)
STATIC = {
    "play.js": (Path(__file__).parent / "static" / "play.js", "text/javascript"),
    "play.css": (Path(__file__).parent / "static" / "play.css", "text/css"),
    "atoll-trace.js": (Path(__file__).parent.parent / "sphinx_static" / "atoll-trace.js",
                       "text/javascript"),
    "atoll.css": (Path(__file__).parent.parent / "sphinx_static" / "atoll.css", "text/css"),
}


def _fail(status: int, reason: str):
    raise HTTPException(status, reason)


class Server:
    """What the app serves: the specs of a root folder, the games being
    played, and a trace (or None)."""

    def __init__(self, spec, players: Optional[int] = None, options: Optional[dict] = None,
                 seed: int = 0, seat: Optional[int] = 0, trace_html: Optional[str] = None,
                 allow=()):
        spec = Path(spec).resolve()
        self.root = spec if spec.is_dir() else spec.parent
        self.default = None if spec.is_dir() else spec.relative_to(self.root).as_posix()
        self.players, self.options, self.seed, self.seat = players, dict(options or {}), seed, seat
        self.trace_html = trace_html
        self.allow = tuple(Path(a).resolve() for a in allow)
        self.games: OrderedDict = OrderedDict()
        self.lock = threading.Lock()

    # ------------------------------------------------------------ specs
    def specs(self) -> list[str]:
        out = []
        for f in sorted(self.root.rglob("*.atoll")):
            if f.is_file() and not any(part.startswith(".") for part in f.relative_to(self.root).parts):
                out.append(f.relative_to(self.root).as_posix())
                if len(out) >= SPECS_LISTED:
                    break
        return out

    def spec_path(self, rel) -> Path:
        """The spec a request names: a ``.atoll`` file under the root."""
        if not isinstance(rel, str) or not rel or "\x00" in rel or len(rel) > 1000:
            _fail(404, "unknown spec: name a spec by its path under the served folder")
        p = (self.root / rel).resolve()
        if not p.is_relative_to(self.root):
            _fail(404, f"unknown spec {rel!r}: it is outside the served folder")
        if p.suffix != ".atoll" or not p.is_file():
            _fail(404, f"unknown spec {rel!r}: no .atoll file of that name in the served folder")
        return p

    def doc(self, rel):
        from atoll.docgen import rulebook
        path = self.spec_path(rel)
        with self.lock, files.trusted((self.root,) + self.allow):
            try:
                return rulebook.load(path)
            except SpecError as e:
                _fail(422, f"the spec {rel} has errors:\n{render_all(e.diagnostics, e.sources)}")

    # ------------------------------------------------------------ games
    def new_game(self, body: dict) -> tuple[str, Play]:
        rel = body.get("spec", self.default)
        doc = self.doc(rel)
        players = body.get("players", self.players if rel == self.default else None)
        options = body.get("options", self.options if rel == self.default else {})
        seed = body.get("seed", self.seed)
        seat = body.get("seat", self.seat)
        if players is not None and (not isinstance(players, int) or isinstance(players, bool)):
            _fail(400, f"players must be a whole number, not {players!r}")
        if not isinstance(options, dict) or not all(isinstance(k, str) for k in options):
            _fail(400, "options must be a JSON object of option names and values")
        if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2 ** 63:
            _fail(400, f"seed must be a whole number from 0 to 2**63-1, not {seed!r}")
        if seat in ("all", "hot-seat"):
            seat = None
        if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool)):
            _fail(400, f"seat must be a player's number or \"all\" (hot-seat), not {seat!r}")
        try:
            game = doc.game(players, options)
        except SpecError as e:
            _fail(400, "; ".join(d.message for d in e.diagnostics) or "bad players or options")
        try:
            play = Play(doc, game, seed, seat)
        except Refused as e:
            _fail(400, str(e))
        gid = secrets.token_hex(8)
        with self.lock:
            self.games[gid] = play
            while len(self.games) > GAMES_KEPT:
                self.games.popitem(last=False)
        return gid, play

    def game(self, gid: str) -> Play:
        play = self.games.get(gid)
        if play is None:
            _fail(404, f"no game {gid!r} (it may have been dropped: start a new one)")
        return play


# ---------------------------------------------------------------- the app

async def _json(request: Request) -> dict:
    raw = await _body(request)
    if not raw:
        return {}
    try:
        d = json.loads(raw)
    except (ValueError, RecursionError):
        _fail(400, "the request's body is not JSON")
    if not isinstance(d, dict):
        _fail(400, "the request's body must be a JSON object")
    return d


async def _body(request: Request) -> bytes:
    size = request.headers.get("content-length")
    if size is not None and size.isdigit() and int(size) > MAX_BODY:
        _fail(413, f"the request's body is larger than {MAX_BODY} bytes")
    raw = b""
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_BODY:
            _fail(413, f"the request's body is larger than {MAX_BODY} bytes")
    return raw


def make_app(server: Server) -> Starlette:
    def view(gid: str, play: Play) -> JSONResponse:
        return JSONResponse({"id": gid, "view": play.view()})

    def act(fn):
        """Run a change of a game under its lock; a refusal is a 400 (409
        for a move out of turn)."""
        async def handler(request: Request):
            gid = request.path_params["gid"]
            play = server.game(gid)
            body = await _json(request) if request.method == "POST" else {}
            with server.lock:
                try:
                    out = fn(play, body)
                except Refused as e:
                    _fail(409 if "not your move" in str(e) or "game is over" in str(e) else 400, str(e))
            return out if out is not None else view(gid, play)
        return handler

    async def index(request: Request):
        return HTMLResponse(page.play_page(server.default, server.specs(), {
            "default": server.default, "players": server.players, "options": server.options,
            "seed": server.seed, "seat": "all" if server.seat is None else server.seat,
            "trace": server.trace_html is not None}))

    async def trace(request: Request):
        if server.trace_html is None:
            _fail(404, "no trace: start the server with --trace FILE")
        return HTMLResponse(page.trace_page(server.trace_html))

    async def static(request: Request):
        hit = STATIC.get(request.path_params["name"])
        if hit is None:
            _fail(404, "no such file")
        return Response(hit[0].read_bytes(), media_type=hit[1])

    async def specs(request: Request):
        return JSONResponse({"specs": server.specs(), "default": server.default})

    async def new(request: Request):
        body = await _json(request)
        gid, play = server.new_game(body)
        return view(gid, play)

    async def get_game(request: Request):
        gid = request.path_params["gid"]
        return view(gid, server.game(gid))

    def move(play, body):
        if "id" in body:
            aid = body["id"]
            if isinstance(aid, str) and aid.strip().lstrip("-").isdigit() and len(aid) < 5000:
                aid = int(aid)
            play.move_id(aid)
        elif "move" in body:
            play.move(body["move"])
        else:
            _fail(400, "name the move: {\"move\": its number in the list} or {\"id\": its action id}")

    async def save(request: Request):
        play = server.game(request.path_params["gid"])
        try:
            text = play.save()
        except Refused as e:
            _fail(409, str(e))
        name = "".join(c if c.isalnum() else "-" for c in play.game.title)[:40] or "game"
        return Response(text, media_type="application/json",
                        headers={"Content-Disposition": f"attachment; filename=\"{name}-save.json\""})

    async def load(request: Request):
        gid = request.path_params["gid"]
        play = server.game(gid)
        raw = await _body(request)
        with server.lock:
            try:
                play.load(raw)
            except Refused as e:
                _fail(400, str(e))
        return view(gid, play)

    async def http_error(request: Request, exc: HTTPException):
        return JSONResponse({"error": exc.detail}, status_code=exc.status_code)

    async def internal(request: Request, exc: Exception):
        return JSONResponse({"error": f"internal error ({type(exc).__name__}); this is a bug "
                                      "in atoll, not in your request"}, status_code=500)

    routes = [
        Route("/", index), Route("/trace", trace), Route("/static/{name}", static),
        Route("/api/specs", specs), Route("/api/games", new, methods=["POST"]),
        Route("/api/games/{gid}", get_game),
        Route("/api/games/{gid}/move", act(move), methods=["POST"]),
        Route("/api/games/{gid}/undo", act(lambda p, b: p.undo()), methods=["POST"]),
        Route("/api/games/{gid}/redo", act(lambda p, b: p.redo()), methods=["POST"]),
        Route("/api/games/{gid}/why", act(lambda p, b: JSONResponse({"text": p.why(b.get("move"))})),
              methods=["POST"]),
        Route("/api/games/{gid}/why-not",
              act(lambda p, b: JSONResponse({"text": p.why_not(b.get("text"))})), methods=["POST"]),
        Route("/api/games/{gid}/save", save),
        Route("/api/games/{gid}/load", load, methods=["POST"]),
    ]
    return Starlette(routes=routes, exception_handlers={
        HTTPException: http_error, Exception: internal})
