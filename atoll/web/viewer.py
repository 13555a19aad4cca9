"""A trace as a static step-through viewer: plain HTML and SVG, stepped by
the little script ``atoll-trace.js`` (previous / next, the arrow keys, a
slider). Without the script every frame is shown, one under the other.

Every text of the spec and of the trace file is escaped here; the pictures
come from ``atoll.docgen.svg``, which escapes its own text. The same HTML is
put on the docs site (by the Sphinx extension) and on the page of
``atoll serve --trace``.
"""
from __future__ import annotations

from html import escape

from atoll.web.traces import Trace


def _e(text) -> str:
    return escape(str(text), quote=True)


def frame_html(tr: Trace, k: int) -> str:
    f = tr.frames[k]
    marked = k == tr.at and f.problem
    out = [f"<section class='atoll-trace-frame{' atoll-trace-marked' if marked else ''}' "
           f"data-step='{k}'>"]
    if f.step == 0:
        out.append(f"<p class='atoll-trace-head'><b>Start</b> (after setup): {_e(f.headline)}</p>")
    elif k == 0:
        out.append(f"<p class='atoll-trace-head'><b>Before</b> (after {f.step} actions): "
                   f"{_e(f.headline)}</p>")
    elif f.rule or f.who:
        out.append(f"<p class='atoll-trace-head'><b>Step {f.step}</b>: {_e(f.who)} plays "
                   f"<code class='atoll-trace-action'>{_e(f.action)}</code></p>")
    else:
        out.append(f"<p class='atoll-trace-head'><b>Step {f.step}</b>: "
                   f"<code class='atoll-trace-action'>{_e(f.action)}</code></p>")
    if f.rule:
        cites = f" <span class='atoll-trace-cites'>(rulebook: {_e('; '.join(f.cites))})</span>" \
            if f.cites else ""
        out.append(f"<p class='atoll-trace-rule'>Rule <code>{_e(f.rule)}</code>: "
                   f"{_e(f.rule_text or '(no description)')}{cites}</p>")
    if marked:
        out.append(f"<p class='atoll-trace-problem' role='alert'>{_e(f.problem)}</p>")
    elif f.holds is not None and tr.source.prop:
        word = "holds" if f.holds else "does not hold"
        out.append(f"<p class='atoll-trace-holds'><code>{_e(tr.source.prop)}</code>: "
                   f"its condition {word} here</p>")
    if f.changes and k:
        out.append("<ul class='atoll-trace-changes'>" + "".join(
            f"<li><code>{_e(n)}</code> = {_e(v)}</li>" for n, v in f.changes) + "</ul>")
    elif k:
        out.append("<p class='atoll-trace-changes'>(nothing changed)</p>")
    for what, i in f.pictures:
        out.append(f"<figure class='atoll-trace-picture' data-svg='{i}'>"
                   f"<figcaption>{_e(what)}</figcaption></figure>")
    if f.values:
        out.append("<details class='atoll-trace-values'><summary>every value</summary><table>"
                   + "".join(f"<tr><th>{_e(n)}</th><td>{_e(v)}</td></tr>" for n, v in f.values)
                   + "</table></details>")
    out.append("</section>")
    return "".join(out)


def trace_html(tr: Trace, caption: str = "") -> str:
    """The viewer, one ``<div class='atoll-trace'>``; the pictures are kept
    once each (in ``<template>``s) and shown by the script."""
    src = tr.source
    opts = ", ".join(f"{k}={v}" for k, v in src.options.items())
    about = caption or (f"{tr.title}: {src.kind}" + (f" of {src.prop}" if src.prop else "")
                        + (f" ({src.verdict})" if src.verdict else ""))
    n = len(tr.frames) - 1
    out = [f"<div class='atoll-trace' data-at='{tr.at}' data-last='{n}'>",
           f"<p class='atoll-trace-title'>{_e(about)}; {src.players} players, seed {src.seed}"
           + (f", options {_e(opts)}" if opts else "") + "</p>",
           "<div class='atoll-trace-bar' hidden>"
           "<button type='button' class='atoll-trace-first'>&laquo; start</button>"
           "<button type='button' class='atoll-trace-prev'>&#x25C0; previous</button>"
           f"<input type='range' class='atoll-trace-slider' min='0' max='{n}' value='0' "
           "aria-label='step'/>"
           "<button type='button' class='atoll-trace-next'>next &#x25B6;</button>"
           "<button type='button' class='atoll-trace-last'>end &raquo;</button>"
           + (f"<button type='button' class='atoll-trace-goto'>go to the marked step ({tr.at})</button>"
              if tr.frames[tr.at].problem else "") +
           f"<span class='atoll-trace-pos' aria-live='polite'>step 0 of {n}</span></div>",
           "<noscript><p>(The pictures and the stepping need JavaScript; every step is "
           "listed below.)</p></noscript>"]
    out += [frame_html(tr, k) for k in range(len(tr.frames))]
    out += [f"<template class='atoll-trace-svg' data-i='{i}'>{svg}</template>"
            for i, svg in enumerate(tr.svgs)]
    out.append("</div>")
    return "\n".join(out)
