"""The HTML of ``atoll serve``'s pages. The page's settings travel as JSON in
an attribute (escaped), and the script (``static/play.js``) puts every text
of the spec into the page as text, never as markup; the pictures are the
docs' SVG, which escapes its own text."""
from __future__ import annotations

import json
from html import escape
from typing import Optional


def _head(title: str) -> str:
    return ("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
            "<meta name='viewport' content='width=device-width, initial-scale=1'>"
            f"<title>{escape(title)}</title>"
            "<link rel='stylesheet' href='/static/atoll.css'>"
            "<link rel='stylesheet' href='/static/play.css'></head>")


def play_page(default: Optional[str], specs: list[str], config: dict) -> str:
    title = f"Atoll: {default}" if default else "Atoll"
    return (_head(title) + f"<body data-config='{escape(json.dumps(config), quote=True)}'>"
            "<header><h1 id='title'>Atoll</h1><p id='headline'></p>"
            "<form id='new-game'>"
            "<label>spec <select id='ng-spec'></select></label> "
            "<label>players <input id='ng-players' type='number' min='1' max='64' size='3'></label> "
            "<label>you play <select id='ng-seat'></select></label> "
            "<label>seed <input id='ng-seed' type='number' min='0' size='6'></label> "
            "<label>options <input id='ng-options' placeholder='key=value, ...' size='28'></label> "
            "<button type='submit' id='ng-go'>new game</button>"
            + ("<a href='/trace' id='trace-link'>the trace</a>" if config.get("trace") else "")
            + "</form></header>"
            "<div id='error' role='alert' hidden></div>"
            "<div id='problem' role='alert' hidden></div>"
            "<div id='end' hidden></div>"
            "<main><section id='left'>"
            "<div id='board'></div><p id='selection'></p>"
            "<div id='state'></div></section>"
            "<section id='right'>"
            "<div id='controls'><button type='button' id='undo'>undo</button> "
            "<button type='button' id='redo'>redo</button> "
            "<a id='save' href='#' download='game-save.json'>save</a> "
            "<label id='load-label'>load <input type='file' id='load-file' accept='.json,application/json'></label></div>"
            "<h2>Your moves</h2><div id='moves'></div>"
            "<div id='why-out' hidden></div>"
            "<h2>Why not?</h2><form id='whynot'>"
            "<select id='whynot-rule'></select> <input id='whynot-values' size='30' "
            "placeholder='values, e.g. c=red 3, at=(2,0)'> <button type='submit' id='whynot-go'>why not?</button>"
            "</form><pre id='whynot-out'></pre>"
            "<h2>Moves played</h2><ol id='log'></ol></section></main>"
            "<script src='/static/play.js'></script></body></html>")


def trace_page(trace_html: str) -> str:
    return (_head("Atoll: a trace") + "<body class='atoll-trace-page'><header><h1>Trace</h1>"
            "<p>Step through it with the buttons, the slider or the arrow keys. "
            "<a href='/'>play a game</a></p></header>"
            f"<main>{trace_html}</main><script src='/static/atoll-trace.js'></script></body></html>")
