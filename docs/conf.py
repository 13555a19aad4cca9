"""Sphinx configuration of the Atoll site (build: `atoll docs`, or
`sphinx-build -W -n docs docs/_build/html`).

The game pages (docs/games/), the diagnostic code pages (docs/diagnostics/)
and the pictures (docs/_atoll/) are written by the `atoll.sphinx` extension
at the start of every build, from the specs under ../spec and the
registries of the code; they are not kept in git.
"""
project = "Atoll"
author = "the Atoll authors"
copyright = "the Atoll authors"
release = "0.1.0"

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "atoll.sphinx",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build"]
myst_heading_anchors = 3
highlight_language = "none"

# atoll.sphinx: where the specs are, and the verification budget. A build
# verifies every game in every configuration once; results are cached by
# the contents of the specs, so the next builds are fast.
atoll_specs = ["../spec"]
atoll_diagnostic_examples = "../tests/bad"
atoll_allow_paths = ["../tests/good"]   # some examples of bad variants extend the good games
atoll_verify_games = 100
atoll_example_seed = 3

autodoc_member_order = "bysource"
autodoc_typehints = "signature"

html_theme = "alabaster"
html_title = "Atoll"
html_theme_options = {"description": "Board-game rules, written once: checked, played, verified, documented.",
                      "page_width": "1180px", "sidebar_width": "230px"}

# Internal types of the compiler that the documented `Compiled` refers to;
# they are not part of the public API, so they have no page.
nitpick_ignore = [("py:class", "atoll.compiler.symbols.Program"),
                  ("py:class", "atoll.compiler.lower.Layout"),
                  ("py:class", "fractions.Fraction")]
