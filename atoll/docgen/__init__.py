"""Documentation generated from specs and from the toolchain's own registries.

``rulebook`` writes the players' rulebook and the designer's edition of a
game as reStructuredText; ``figures`` decides what to draw and ``svg`` draws
it; ``verdicts`` shows verification results; ``variants`` what a variant
changes; ``codes`` and ``cli`` the diagnostic codes and the command line;
``site`` finds the games and writes the pages. ``atoll.sphinx`` puts it all
into a Sphinx build. Nothing here knows a game.
"""
