"""The Sphinx extension: rule documentation generated from Atoll specs.

Add ``"atoll.sphinx"`` to ``extensions`` in ``conf.py``. At the start of a
build it finds every game under ``atoll_specs`` (and the variants that
extend each one) and writes a page for each edition under ``atoll_pages``;
it writes a page per diagnostic code under ``atoll_diagnostics``. Pages are
made of these directives, usable in any page (a spec path is relative to the
page, or to the source folder when it starts with ``/``):

``atoll-players SPEC``, ``atoll-designer SPEC``
    The players' rulebook and the designer's edition of a game.
``atoll-variant SPEC``
    A variant: what it changes against its game, and its verdicts.
``atoll-overview SPEC``
    A game's key facts and its variants.
``atoll-section SPEC`` with ``:part:``
    One part: components, options, house-rules, constants, state, flow,
    phases, endings, assumptions, unmodelled, pictures, verification.
``atoll-dashboard`` (one spec a line)
    Verdicts of every game x player count x mode x property.
``atoll-diagnostic CODE``, ``atoll-diagnostics``
    A diagnostic code of the registry, and the table of all of them.
``atoll-cli``
    The command line reference, read from the argument parser.
``atoll-pipeline`` (one ``name: caption`` a line, ``:branches:``)
    A picture of a pipeline of stages.

``atoll-generated``
    Marks a page as generated: raw HTML and file insertion are off for the
    rest of the page (every page the extension writes starts with it).

Roles: ``:atoll:`code``` (highlighted spec code), ``:atoll-verdict:`VERDICT
<ok>``` (a coloured badge), ``:atoll-assumption:`text``` (a marker).
Pictures are SVG files written under ``_atoll/`` in the source folder;
verification results are cached (see ``atoll.verify.cache``). A spec reads
files in its own folder tree, in the folders of ``atoll_specs`` and in those
of ``atoll_allow_paths`` (relative to ``conf.py``), nowhere else.

A spec is untrusted input: the text the directives generate escapes every
text of the spec (``atoll.docgen.rst``) and is parsed with raw HTML and file
insertion switched off (``untrusted``), so that a missed escape still cannot
put a script into a page or a local file's content into the site.
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import unquote

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from atoll.docgen import editions, rst, rulebook, site
from atoll.diagnostics import SpecError

logger = logging.getLogger(__name__)

STATIC = Path(__file__).parent / "sphinx_static"
PICTURES = "_atoll"


def toolchain_files() -> list[str]:
    """The source of the packages a generated page depends on: a page is
    rebuilt when the toolchain that wrote it changes, not only its spec."""
    import atoll.compiler
    import atoll.docgen
    import atoll.grammar
    import atoll.verify
    out = []
    for pkg in (atoll.grammar, atoll.compiler, atoll.verify, atoll.docgen):
        folder = Path(pkg.__file__).parent
        out += [str(f) for f in sorted(folder.glob("*.py")) + sorted(folder.glob("*.lark"))]
    return out


# ---------------------------------------------------------------- roles

def atoll_code_role(name, rawtext, text, lineno, inliner, options=None, content=()):
    node = nodes.literal(rawtext, nodes.unescape(text), language="atoll",
                         classes=["code", "highlight", "atoll"])
    return [node], []


_VERDICT_CLASSES = (("PROVED", "proved"), ("HOLDS", "holds"), ("NO VIOLATION", "holds"),
                    ("VIOLATED", "violated"), ("WITNESS FOUND", "witness"),
                    ("NO WITNESS", "no-witness"), ("UNKNOWN", "unknown"),
                    ("PASSED", "passed"), ("FAILED", "failed"))   # a worked example


def verdict_role(name, rawtext, text, lineno, inliner, options=None, content=()):
    m = re.fullmatch(r"(.*?)\s*<(ok|unexpected)>", nodes.unescape(text).strip())
    verdict, flag = (m.group(1), m.group(2)) if m else (text.strip(), "ok")
    kind = next((c for prefix, c in _VERDICT_CLASSES if verdict.startswith(prefix)), "unknown")
    classes = ["atoll-verdict", f"atoll-verdict-{kind}",
               "atoll-as-expected" if flag == "ok" else "atoll-unexpected"]
    if flag != "ok":
        label = f"{verdict} (not as expected)"
    elif kind == "violated":     # a violation the spec declares: a known gap, not an alarm
        label = f"{verdict} (as expected)"
        classes.append("atoll-expected-violation")
    else:
        label = verdict
    return [nodes.inline(rawtext, label, classes=classes)], []


def assumption_role(name, rawtext, text, lineno, inliner, options=None, content=()):
    return [nodes.inline(rawtext, nodes.unescape(text), classes=["atoll-assumption"])], []


# ---------------------------------------------------------------- directives

@contextmanager
def untrusted(document):
    """Raw HTML and file insertion (``raw``, ``include``, ``csv-table``'s
    files...) switched off while generated text is parsed."""
    s = document.settings
    old = (getattr(s, "raw_enabled", True), getattr(s, "file_insertion_enabled", True))
    s.raw_enabled = s.file_insertion_enabled = False
    try:
        yield
    finally:
        s.raw_enabled, s.file_insertion_enabled = old


class GeneratedDirective(SphinxDirective):
    """``.. atoll-generated::``: the rest of the page is generated text, so
    raw HTML and file insertion are off until its end."""

    def run(self):
        s = self.state.document.settings
        s.raw_enabled = s.file_insertion_enabled = False
        return []


class _AtollDirective(SphinxDirective):
    """Shared by the directives: parse generated reST, store pictures."""

    def render(self, text: str) -> list[nodes.Node]:
        with untrusted(self.state.document):
            return self.parse_text_to_nodes(text, allow_section_headings=True)

    def picture(self, name: str, svg: str, caption: str) -> list[str]:
        name = re.sub(r"[^A-Za-z0-9_.-]+", "-", name)
        folder = Path(self.env.srcdir) / PICTURES
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{name}.svg"
        if not path.exists() or path.read_text(encoding="utf-8") != svg:
            path.write_text(svg, encoding="utf-8")
        return [f".. figure:: /{PICTURES}/{name}.svg", f"   :alt: {name}", "",
                "   " + " ".join(caption.split()), ""]

    def trace(self, name: str, html: str) -> list[str]:
        """A step-through viewer: kept until the ``atoll-trace`` directive
        of the returned reST takes it into the page."""
        name = re.sub(r"[^A-Za-z0-9_.-]+", "-", name)
        store = self.env.atoll_traces = getattr(self.env, "atoll_traces", {})
        base, k = name, 1
        while name in store:
            k += 1
            name = f"{base}-{k}"
        store[name] = html
        return [f".. atoll-trace:: {name}", ""]

    def shown_path(self, path: Path) -> str:
        """A spec's path as a page shows it: from the project's root (the
        folder above the docs), or just its name when it lies elsewhere."""
        root = Path(self.env.atoll_confdir).resolve().parent
        path = Path(path).resolve()
        return path.relative_to(root).as_posix() if path.is_relative_to(root) else path.name

    def spec_path(self, arg: str) -> Path:
        """The spec a directive names; generated pages write its path
        %-encoded (``atoll.docgen.site``), so that any file name is one
        plain argument."""
        _, abs_path = self.env.relfn2path(unquote(arg), self.env.docname)
        return Path(abs_path)

    def load(self, arg: str):
        path = self.spec_path(arg)
        try:
            doc = rulebook.load(path)
        except SpecError as e:
            raise self.error(f"{path}: the spec has errors:\n{e}") from None
        for f in rulebook.input_files(doc.comp) + toolchain_files():
            self.env.note_dependency(str(Path(f).resolve()))
        return doc

    def context(self) -> editions.Context:
        cfg = self.config
        ctx = editions.Context(picture=self.picture, example_seed=cfg.atoll_example_seed,
                               shown_path=self.shown_path, trace=self.trace)
        if cfg.atoll_verify:
            cache = site.result_cache(self.env, cfg)
            ctx.budget = cache.budget

            def results(doc, players, options):
                logger.info(f"atoll: verifying {doc.path.name} ({players} players, "
                            f"{options or 'default options'})")
                # with the dashboard on, the whole matrix is needed anyway: a missing
                # configuration is computed with it (each check once, in parallel)
                found = cache.results(doc.path, players, options, via_matrix=bool(cfg.atoll_dashboard))
                self.report(doc, found)
                return found
            ctx.results = results
        return ctx

    def report(self, doc, results) -> None:
        """A warning for every verdict that is not the one the spec expects
        (once per build): ``atoll docs`` prints it, and ``--strict`` fails.
        The page is read again at the next build, so the warning comes back
        until the verdict is as expected."""
        env = self.env
        env.atoll_verdict_docs = getattr(env, "atoll_verdict_docs", set()) | {env.docname}
        for r in results:
            key = (str(doc.path), r.players, tuple(sorted(r.options.items())), r.property)
            if r.ok or not _first_warning(env, key):
                continue
            opts = ", ".join(f"{k}={v}" for k, v in r.options.items() if k in r.axes)
            logger.warning(f"atoll: {doc.path.name}: property {r.property} ({r.players} players"
                           f"{', ' + opts if opts else ''}): {r.verdict}, but the spec expects "
                           f"{r.expected}", type="atoll", subtype="verdict",
                           location=(env.docname, self.lineno))


class trace_node(nodes.General, nodes.Element):
    """A step-through viewer: HTML that ``atoll.web.viewer`` wrote (it
    escapes every text of the spec), shown as it is by the HTML builder."""


def _visit_trace_html(self, node) -> None:
    self.body.append(node["html"])
    raise nodes.SkipNode


def _skip_node(self, node) -> None:
    raise nodes.SkipNode


class TraceDirective(SphinxDirective):
    """``.. atoll-trace:: NAME``: the viewer a page's generated text stored
    under NAME (``_AtollDirective.trace``); it takes no text of its own."""
    required_arguments = 1

    def run(self):
        html = getattr(self.env, "atoll_traces", {}).pop(self.arguments[0], None)
        if html is None:
            raise self.error(f"no trace viewer named {self.arguments[0]} (the directive shows "
                             "the viewers of generated pages)")
        node = trace_node()
        node["html"] = html
        return [node]


class PlayersDirective(_AtollDirective):
    required_arguments = 1

    def run(self):
        doc = self.load(self.arguments[0])
        return self.render(editions.players_edition(doc, self.context()))


class DesignerDirective(_AtollDirective):
    required_arguments = 1

    def run(self):
        doc = self.load(self.arguments[0])
        return self.render(editions.designer_edition(doc, self.context()))


class VariantDirective(_AtollDirective):
    required_arguments = 1

    def run(self):
        from atoll.docgen import variants
        doc = self.load(self.arguments[0])
        return self.render(variants.variant_page(doc, self.context()))


class OverviewDirective(_AtollDirective):
    """A game's key facts; the content lists its variants, one spec a line."""
    required_arguments = 1
    has_content = True

    def run(self):
        from atoll.docgen import variants
        doc = self.load(self.arguments[0])
        found = [self.load(line.strip()) for line in self.content if line.strip()]
        return self.render(variants.overview(doc, found))


_PARTS = {
    "components": lambda d, c: rulebook.components(d, designer=True),
    "options": lambda d, c: rulebook.options_table(d, "option"),
    "house-rules": lambda d, c: rulebook.house_rules(d),
    "constants": lambda d, c: rulebook.constants_table(d, designer=True),
    "state": lambda d, c: rulebook.state_table(d, designer=True),
    "assumptions": lambda d, c: rulebook.assumptions_section(d),
    "unmodelled": lambda d, c: rulebook.unmodelled_section(d),
    "flow": lambda d, c: rulebook.flow_lines(d, lambda n: rst.code(n)),
    "phases": lambda d, c: [l for ph in d.prog.phases.values()
                            for l in rulebook.phase_section(d, ph, False, rulebook.label(d.slug, "part"))],
    "endings": lambda d, c: [l for en in d.prog.endings.values()
                             for l in rulebook.ending_entry(d, en, False)],
    "pictures": lambda d, c: _pictures(d, c),
    "verification": lambda d, c: _verification(d, c),
}


def _pictures(doc, ctx):
    from atoll.docgen import figures
    return (figures.setup_pictures(doc, ctx) + figures.graph_pictures(doc, ctx)
            + figures.constant_grids(doc, ctx))


def _verification(doc, ctx):
    from atoll.docgen import verdicts as verification_docs
    if ctx.results is None:
        return [verification_docs.NO_VERIFY, ""]
    lo, _ = doc.prog.player_range
    results = ctx.results(doc, lo, {})
    return verification_docs.budget_note(ctx) + verification_docs.results_table(results)


class SectionDirective(_AtollDirective):
    required_arguments = 1
    option_spec = {"part": lambda a: directives.choice(a, tuple(_PARTS))}

    def run(self):
        doc = self.load(self.arguments[0])
        part = self.options.get("part", "components")
        return self.render("\n".join(_PARTS[part](doc, self.context())) + "\n")


class DashboardDirective(_AtollDirective):
    has_content = True

    def run(self):
        from atoll.docgen import verdicts
        ctx = self.context()
        if ctx.results is None or not self.config.atoll_dashboard:
            return self.render("The verdicts were left out of this build. To see them, run "
                               "``atoll docs`` without ``--no-verify``.\n")
        cache = site.result_cache(self.env, self.config)
        entries = []
        for line in self.content:
            if not line.strip():
                continue
            doc = self.load(line.strip())
            logger.info(f"atoll: verifying {doc.path.name}, every configuration "
                        f"(results are cached: only new or changed specs take time)")

            def done(k, total, players, options, seconds, name=doc.path.name):
                opts = ", ".join(f"{key}={v}" for key, v in options.items())
                logger.info(f"atoll:   {name} {k}/{total}: {players} players"
                            f"{', ' + opts if opts else ''} ({seconds:.1f} s)")
            found = cache.matrix(doc.path, done)
            for _, _, results in found:
                self.report(doc, results)
            entries.append((doc, found))
        return self.render("\n".join(verdicts.dashboard(entries, ctx)) + "\n")


class DiagnosticDirective(_AtollDirective):
    required_arguments = 1

    def run(self):
        from atoll.docgen import codes
        examples = self.config.atoll_diagnostic_examples
        folder = (Path(self.env.atoll_confdir) / examples).resolve() if examples else None
        import atoll.diagnostics
        for f in [atoll.diagnostics.__file__] + (sorted(map(str, folder.glob("*.atoll")))
                                                 if folder and folder.is_dir() else []):
            self.env.note_dependency(str(Path(f).resolve()))
        try:
            text = codes.code_page(self.arguments[0], folder)
        except KeyError:
            raise self.error(f"no diagnostic code {self.arguments[0]}") from None
        return self.render(text)


class DiagnosticsDirective(_AtollDirective):
    def run(self):
        from atoll.docgen import codes
        return self.render(codes.index_table())


class CliDirective(_AtollDirective):
    def run(self):
        import atoll.cli
        from atoll.docgen import cli
        self.env.note_dependency(str(Path(atoll.cli.__file__).resolve()))
        return self.render(cli.reference())


class PipelineDirective(_AtollDirective):
    has_content = True
    option_spec = {"branches": directives.unchanged, "name": directives.unchanged,
                   "caption": directives.unchanged}

    def run(self):
        from atoll.docgen import svg

        def pairs(items):
            out = []
            for item in items:
                name, _, caption = item.partition(":")
                if name.strip():
                    out.append((name.strip(), caption.strip()))
            return out
        stages = pairs(self.content)
        branches = pairs(self.options.get("branches", "").split(";"))
        svg_text = svg.pipeline(stages, branches, self.options.get("caption", "pipeline"))
        lines = self.picture(self.options.get("name", "pipeline"), svg_text,
                             rst.esc(self.options.get("caption", "")) or "The pipeline.")
        return self.render("\n".join(lines) + "\n")


class GamesDirective(_AtollDirective):
    """A table of games with links to their pages; the content has one
    game a line: its page folder name, then its spec."""
    has_content = True

    def run(self):
        rows = []
        for line in self.content:
            if not line.strip():
                continue
            slug, _, arg = line.strip().partition(" ")
            doc = self.load(arg.strip())
            lo, hi = doc.prog.player_range
            slug = rst.slug(slug)
            links = (f":doc:`players' rulebook <{slug}/players>`, "
                     f":doc:`designer's edition <{slug}/designer>`")
            rows.append([f":doc:`{rst.esc(doc.title)} <{rst.slug(slug)}/index>`",
                         f"{lo} to {hi}" if lo != hi else str(lo), links])
        if not rows:
            return self.render("No game was found.\n")
        return self.render("\n".join(rst.table(["game", "players", "pages"], rows,
                                                    [30, 14, 56])) + "\n")


# ---------------------------------------------------------------- setup

def _generate(app) -> None:
    from atoll.compiler import files
    files.trust(*site.trusted_folders(app.config, Path(app.confdir)))
    site.write_pages(app)


def _warned_folder(env) -> Path:
    return Path(env.doctreedir) / "atoll-warned"


def _first_warning(env, key) -> bool:
    """Whether no page of this build has warned of ``key`` yet. Pages may be
    read in parallel processes, so the build's warnings are marks in a folder
    that every reader shares: creating a mark succeeds once."""
    folder = _warned_folder(env)
    folder.mkdir(parents=True, exist_ok=True)
    mark = folder / hashlib.sha256(repr(key).encode()).hexdigest()
    try:
        os.close(os.open(mark, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    except FileExistsError:
        return False
    return True


def _forget_warnings(app, env, docnames) -> None:
    """A new build warns again (before any page is read, in the main process)."""
    shutil.rmtree(_warned_folder(env), ignore_errors=True)


def pool_size(app) -> int:
    """The processes of the verification pool: as many as the page readers
    would have used for their matrices together (``-j`` readers times
    ``atoll_matrix_jobs`` each, 0 sharing the cores among the readers)."""
    readers = max(1, int(app.parallel or 1))
    each = int(app.config.atoll_matrix_jobs) or max(1, (os.cpu_count() or 1) // readers)
    return readers * each


def _verify_before_reading(app, env, docnames) -> None:
    """Before the pages are read (in the main process): every configuration
    of every game's and variant's matrix that is not in the cache yet,
    computed in one pool of processes, the longest tasks first
    (``ResultCache.fill``). The readers then only read the cache: a reader
    used to compute its own pages' matrices one configuration after
    another, and the last one alone on one core while the others idled.
    Nothing is started when every result is cached. A spec left out (it
    does not compile, or a task of it failed) is computed by its pages as
    before, which report its error as before."""
    cfg = app.config
    if not (cfg.atoll_verify and cfg.atoll_dashboard and docnames):
        return
    specs = [p for e in getattr(app, "atoll_entries", []) for p in [e.path, *e.variants]]
    if not specs:
        return
    cache = site.result_cache(env, cfg)
    cache.fill(specs, pool_size(app), lambda text: logger.info(f"atoll: {text}"))


def _freeze_for_readers(app, env, docnames) -> None:
    """The main process's objects out of the collector's reach while the
    pages are read (``gc.freeze``; undone by ``_unfreeze``). Parallel
    readers are forked from it, and a reader that computes a matrix in
    process (``atoll_matrix_jobs`` = 1) runs full collections, each of
    which wrote to every object it inherited: the whole main process was
    copied into every reader, page by page (the kernel's time, not
    Python's). Frozen objects are not collected: garbage in a cycle among
    them waits for the unfreeze. A caller's own freeze is left as it is."""
    import gc
    if gc.get_freeze_count() == 0:
        gc.freeze()
        app._atoll_frozen = True


def _unfreeze(app, *args):
    """(at ``env-updated``, and at ``build-finished`` should the read fail)"""
    import gc
    if getattr(app, "_atoll_frozen", False):
        app._atoll_frozen = False
        gc.unfreeze()


def _verdict_pages(app, env, added, changed, removed) -> list[str]:
    """Pages that show verdicts are read at every build (their results come
    from the cache), so that a verdict not as expected is reported each time."""
    if not app.config.atoll_verify:
        return []
    return sorted(d for d in getattr(env, "atoll_verdict_docs", set())
                  if d in env.found_docs and d not in removed)


def _merge(app, env, docnames, other) -> None:
    """A parallel read's findings joined into the main environment."""
    env.atoll_verdict_docs = getattr(env, "atoll_verdict_docs", set()) | getattr(other, "atoll_verdict_docs", set())


def _purge(app, env, docname) -> None:
    getattr(env, "atoll_verdict_docs", set()).discard(docname)


def _static(app) -> None:
    if str(STATIC) not in [str(p) for p in app.config.html_static_path]:
        app.config.html_static_path.append(str(STATIC))


def setup(app):
    from atoll.pygments_lexer import AtollLexer
    app.add_config_value("atoll_specs", ["../spec"], "env")
    app.add_config_value("atoll_pages", "games", "env")
    app.add_config_value("atoll_diagnostics", "diagnostics", "env")
    app.add_config_value("atoll_diagnostic_examples", "", "env")
    app.add_config_value("atoll_dashboard", True, "env")
    app.add_config_value("atoll_dashboard_variants", True, "env")
    app.add_config_value("atoll_verify", True, "env")
    app.add_config_value("atoll_verify_games", 100, "env")
    app.add_config_value("atoll_verify_seed", 0, "env")
    app.add_config_value("atoll_verify_timeout", 20.0, "env")
    app.add_config_value("atoll_cache_dir", "", "env")
    # processes per matrix a page reader computes (0: one per core); `atoll
    # docs -j N` shares the cores among its N readers
    app.add_config_value("atoll_matrix_jobs", 0, "")
    app.add_config_value("atoll_example_seed", 1, "env")
    app.add_config_value("atoll_allow_paths", [], "env")
    app.add_lexer("atoll", AtollLexer)
    app.add_role("atoll", atoll_code_role)
    app.add_role("atoll-verdict", verdict_role)
    app.add_role("atoll-assumption", assumption_role)
    for name, cls in (("atoll-players", PlayersDirective), ("atoll-designer", DesignerDirective),
                      ("atoll-variant", VariantDirective), ("atoll-overview", OverviewDirective),
                      ("atoll-section", SectionDirective), ("atoll-dashboard", DashboardDirective),
                      ("atoll-diagnostic", DiagnosticDirective),
                      ("atoll-diagnostics", DiagnosticsDirective), ("atoll-cli", CliDirective),
                      ("atoll-pipeline", PipelineDirective), ("atoll-games", GamesDirective),
                      ("atoll-generated", GeneratedDirective), ("atoll-trace", TraceDirective)):
        app.add_directive(name, cls)
    app.connect("builder-inited", _generate)
    app.connect("env-before-read-docs", _forget_warnings)
    app.connect("env-before-read-docs", _verify_before_reading)
    app.connect("env-before-read-docs", _freeze_for_readers)
    app.connect("env-updated", _unfreeze)
    app.connect("build-finished", _unfreeze)
    app.connect("env-get-outdated", _verdict_pages)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("builder-inited", _static)
    app.add_css_file("atoll.css")
    app.add_js_file("atoll-trace.js")
    skip = (_skip_node, None)
    app.add_node(trace_node, html=(_visit_trace_html, None), latex=skip, text=skip, man=skip,
                 texinfo=skip)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
