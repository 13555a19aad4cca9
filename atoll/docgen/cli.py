"""The command line reference, read from ``atoll.cli.build_parser()``: every
command with its usage, arguments, defaults and examples, exactly as
``--help`` has them."""
from __future__ import annotations

import argparse

from atoll.docgen.rst import code, code_block, esc, heading, table


def _commands(parser: argparse.ArgumentParser) -> list[tuple[str, argparse.ArgumentParser]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return list(action.choices.items())
    return []


def _arguments(parser: argparse.ArgumentParser) -> list[list[str]]:
    rows = []
    for a in parser._actions:
        if isinstance(a, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        names = ", ".join(code(s) for s in a.option_strings) or code(a.metavar or a.dest)
        if a.option_strings and a.nargs != 0:
            names += f" {code(a.metavar or a.dest.upper())}"
        default = "" if a.default in (None, False, argparse.SUPPRESS) or a.nargs == 0 \
            else code(a.default)
        rows.append([names, esc(a.help or ""), default])
    return rows


def reference() -> str:
    from atoll.cli import build_parser
    parser = build_parser()
    out = [esc(parser.description or ""), "", "Usage:", ""]
    out += code_block(parser.format_usage().strip(), "text")
    out += code_block(parser.epilog or "", "text")
    for name, sub in _commands(parser):
        out += heading(f"atoll {name}", "-")
        out += [esc(sub.description or ""), ""]
        out += code_block(sub.format_usage().strip(), "text")
        rows = _arguments(sub)
        if rows:
            out += table(["argument", "meaning", "default"], rows, [28, 57, 15])
        if sub.epilog:
            out += code_block(sub.epilog, "text")
    return "\n".join(out) + "\n"
