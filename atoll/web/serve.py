"""``atoll serve``: check what the command line asks for, then run the app.

The spec (and the trace, with ``--trace``) is loaded before the server
starts, so that a broken spec, a bad player count or a trace that does not
replay is reported in the terminal with its reason and exit status, as the
other commands report them.
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Optional

from atoll.compiler import files
from atoll.diagnostics import SpecError


def trace_html(spec: Path, trace_file: str, prop: Optional[str], trusted=()) -> str:
    """The viewer of the trace in ``trace_file`` for ``spec``; raises
    ``TraceError`` (or ``SpecError`` when the spec does not load)."""
    from atoll.docgen import rulebook
    from atoll.web import traces, viewer
    path = Path(trace_file)
    if not path.is_file():
        raise traces.TraceError(f"{trace_file}: no such file")
    if path.stat().st_size > traces.MAX_TRACE_BYTES:
        raise traces.TraceError(f"{trace_file} is larger than {traces.MAX_TRACE_BYTES} bytes")
    src = traces.read(path.read_bytes(), prop, spec.name)
    with files.trusted(trusted):
        doc = rulebook.load(spec)
    game = doc.game(src.players, src.options)
    return viewer.trace_html(traces.build(doc, game, src))


def _seat(text: str, usage_error) -> Optional[int]:
    if text.strip().lower() in ("all", "hot-seat"):
        return None
    try:
        return int(text)
    except ValueError:
        return usage_error(f"--seat takes a seat number or `all`, not {text!r}")


def serve(args, options: dict, usage_error, spec_failure) -> int:
    from atoll.web import traces
    missing = [m for m in ("starlette", "uvicorn") if importlib.util.find_spec(m) is None]
    if missing:
        print(f"atoll: `atoll serve` needs {' and '.join(missing)}, which "
              f"{'is' if len(missing) == 1 else 'are'} not installed: pip install \"atoll[web]\"",
              file=sys.stderr)
        return 2
    spec = Path(args.spec)
    if not spec.exists():
        return usage_error(f"{args.spec}: no such file or folder")
    if spec.is_file() and spec.suffix != ".atoll":
        return usage_error(f"{args.spec} is not a .atoll file")
    if not 0 <= args.port <= 65535:
        return usage_error(f"--port must be 0..65535, not {args.port}")
    if args.property and not args.trace:
        return usage_error("--property goes with --trace")
    seat = _seat(args.seat, usage_error)
    root = spec.resolve() if spec.is_dir() else spec.resolve().parent
    trusted = [root] + [Path(a) for a in (args.allow_path or [])]
    html = None
    try:
        if spec.is_file():
            from atoll.docgen import rulebook
            with files.trusted(trusted):
                game = rulebook.load(spec).game(args.players, options)
            if seat is not None and not 0 <= seat < game.num_players:
                return usage_error(f"--seat must be 0..{game.num_players - 1} or all")
        if args.trace:
            if not spec.is_file():
                return usage_error("--trace needs one spec file, the one the trace is of")
            html = trace_html(spec, args.trace, args.property, trusted)
    except SpecError as e:
        raise spec_failure(e) from None
    except traces.TraceError as e:
        return usage_error(f"--trace {args.trace}: {e}")
    import uvicorn
    from atoll.web.app import Server, make_app
    server = Server(spec, args.players, options, args.seed, seat, html, args.allow_path or ())
    url = f"http://{args.host}:{args.port}/"
    print(f"atoll serve: playing {server.default or 'the specs of ' + str(root)} at {url}"
          + (f" (the trace: {url}trace)" if html else "") + "; Ctrl-C stops", flush=True)
    uvicorn.run(make_app(server), host=args.host, port=args.port, log_level="warning")
    return 0
