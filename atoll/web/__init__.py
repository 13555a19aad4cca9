"""Atoll in the browser.

* :mod:`atoll.web.traces` reads a trace (a counterexample or a witness of
  ``atoll verify --json``, a replay of ``atoll simulate --replays``, a saved
  game) and replays it into frames: the position drawn at each step, the
  action with its rule and citation, what changed, and where the property
  fails;
* :mod:`atoll.web.viewer` writes a trace's frames as a static step-through
  viewer (HTML, SVG and the little script ``atoll-trace.js``), for the docs
  site and for ``atoll serve --trace``;
* :mod:`atoll.web.session` is one game played in the browser: moves grouped
  by rule, random agents or hot-seat, undo and redo, the move log, why and
  why not, save and load;
* :mod:`atoll.web.app` is the web app of ``atoll serve`` (Starlette, the
  optional extra ``atoll[web]``), and :mod:`atoll.web.page` its page.

Only ``app`` needs the extra; nothing here knows a game.
"""
