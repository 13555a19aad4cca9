"""The documentation keeps up with the code it describes."""
import re

from atoll.compiler import stdlib
from helpers import ROOT

LANGUAGE = (ROOT / "docs" / "language.md").read_text()
GRAMMAR = (ROOT / "grammar" / "atoll.lark").read_text()


def test_every_stdlib_function_is_in_the_language_reference():
    for name, (_, _, doc) in stdlib.FUNCTIONS.items():
        signature = doc.partition(": ")[0]
        assert f"| `{signature}` |" in LANGUAGE, f"{name} is missing from docs/language.md"


def test_every_keyword_is_listed_as_reserved():
    keywords = set(re.findall(r'"([a-z_]{2,})"', GRAMMAR))
    block = LANGUAGE[LANGUAGE.index("```\naction after_round") + 4:]
    listed = set(block.split("```", 1)[0].split())
    assert keywords <= listed, sorted(keywords - listed)
