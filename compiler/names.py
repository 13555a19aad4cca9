"""The Python names of the generated module, one function per family.

The lowering defines the module's functions under these names and every
reader (the runtime, the pipeline, the verifier, the docs) looks them up with
the same functions, never by spelling a name out.

The scheme is injective: a name that comes from the spec is written
``TAG_NAME``, where ``NAME`` is the spec's identifier (the grammar allows
``[A-Za-z][A-Za-z0-9_]*``: it starts with a letter) and ``TAG`` is the
family's tag, made of lower-case letters and digits only (no underscore). So
the first underscore of a generated name separates the tag from the spec's
name: two names are equal only when the family and the spec name are. The
names the module has for itself (``setup``, ``round_0``, ``endings_after_turn``,
``S``, the temporaries ``_t1``...) use no tag of a family, or start with an
underscore. ``Lowerer.define`` refuses a second definition of any name, as a
last line of defence.
"""
from __future__ import annotations

import re

_IDENT = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")
_TAG = re.compile(r"[a-z]+[0-9]*\Z")


def _mangle(tag: str, name: str) -> str:
    key = (tag, name)
    out = _MANGLED.get(key)
    if out is not None:   # checked when it was made
        return out
    if not _TAG.match(tag):   # pragma: no cover - the tags are fixed here
        raise ValueError(f"bad tag {tag!r}")
    if not _IDENT.match(name):   # pragma: no cover - the grammar forbids it
        raise ValueError(f"not an Atoll identifier: {name!r}")
    out = f"{tag}_{name}"
    if len(_MANGLED) >= 50_000:
        _MANGLED.clear()
    _MANGLED[key] = out
    return out


_MANGLED: dict = {}   # (tag, name) -> the name, checked


def ident(name: str) -> str:
    """A spec identifier, checked (for text that is not mangled, e.g. in comments)."""
    if not _IDENT.match(name):   # pragma: no cover - the grammar forbids it
        raise ValueError(f"not an Atoll identifier: {name!r}")
    return name


# ---------------------------------------------------------------- values and functions

def local(name: str) -> str:
    """A parameter, `let`, loop or comprehension variable."""
    return _mangle("l", name)


def value(name: str) -> str:
    """The value of a constant, an option or a data table."""
    return _mangle("k", name)


def const_fn(name: str) -> str:
    """The function that computes a constant."""
    return _mangle("c", name)


def def_fn(name: str) -> str:
    return _mangle("d", name)


def def_memo_fn(name: str) -> str:
    """A def's answer kept for the very values it last read (see lower.Lowerer.memo_def)."""
    return _mangle("dm", name)


def proc_fn(name: str) -> str:
    """The function that runs a procedure's effects."""
    return _mangle("proc", name)


def init(name: str) -> str:
    """The initial value of a state variable."""
    return _mangle("init", name)


# ---------------------------------------------------------------- phases and actions

PHASE_ROLES = ("enter", "auto", "done", "repeat", "donem", "enterm", "list")
# phdonem: `done when` keeping the lists of choices it computes (see lower_flow);
# phenterm: `on enter` keeping them for the `done when` that follows;
# phlist: the legal moves of the phase in one function (see lower_listing)
OPTIONAL_PHASE_ROLES = ("auto", "donem", "enterm", "list")
ACTION_ROLES = ("gen", "choices", "why", "effect", "ensures", "ok", "post")
OPTIONAL_ACTION_ROLES = ("ok", "post")


def phase(role: str, name: str) -> str:
    assert role in PHASE_ROLES, role
    return _mangle("ph" + role, name)


def action(role: str, name: str) -> str:
    assert role in ACTION_ROLES, role
    return _mangle("a" + role, name)


def action_post_variant(name: str, i: int) -> str:
    """The test of the `ensures` after the effect, specialised to the known slots of variant ``i``."""
    return _mangle(f"apost{int(i)}", name)


def can(name: str) -> str:
    return _mangle("can", name)


def can_variant(name: str, i: int) -> str:
    """`can(name)` specialised to the known slots of variant ``i`` (see lower_actions)."""
    return _mangle(f"can{int(i)}", name)


# ---------------------------------------------------------------- endings and properties

def ending_cond(name: str) -> str:
    return _mangle("endc", name)


def ending_winners(name: str) -> str:
    return _mangle("endw", name)


def ending_rank(name: str) -> str:
    return _mangle("endk", name)


def prop(name: str) -> str:
    return _mangle("prop", name)


def prop_when(name: str) -> str:
    return _mangle("propw", name)


# ---------------------------------------------------------------- the module's own names

def endings_at(time: str) -> str:
    """All endings of one timing at once (``time`` is a keyword of the grammar)."""
    assert time in ("immediately", "after_turn", "after_round"), time
    return f"endings_{time}"


def round_fn(i: int) -> str:
    return f"round_{int(i)}"


def stage_fn(i: int, j: int) -> str:
    return f"stage_{int(i)}_{int(j)}"


def flow_end(i: int, j: int, k: int) -> str:
    """The generated step after phase ``k`` of stage ``j`` of round ``i`` ends (see lower_flow)."""
    return f"flend_{int(i)}_{int(j)}_{int(k)}"


def flow_stage(i: int, j: int) -> str:
    """The generated step where stage ``j`` of round ``i`` begins (see lower_flow)."""
    return f"flstage_{int(i)}_{int(j)}"


def flow_round(i: int) -> str:
    """The generated step where round ``i`` is over (see lower_flow)."""
    return f"flround_{int(i)}"


def until_fn(i: int, j: int) -> str:
    return f"until_{int(i)}_{int(j)}"


def require_fn(i: int) -> str:
    return f"req_{int(i)}"


def stdlib(name: str) -> str:
    return f"f_{ident(name)}"


_KIND_OF_TAG = {"c": "const", "k": "const", "d": "def", "dm": "def", "proc": "proc", "init": "state", "can": "action",
                "endc": "ending", "endw": "ending", "endk": "ending", "prop": "property",
                "propw": "property", **{"ph" + r: "phase" for r in PHASE_ROLES},
                **{"a" + r: "action" for r in ACTION_ROLES}}


def origin(pyname: str):
    """(kind of declaration, spec name) of a generated name of a family, else
    None (the inverse of the families, for error messages)."""
    tag, sep, name = pyname.partition("_")
    if not sep or not _IDENT.match(name) or not _TAG.match(tag):
        return None
    base = tag.rstrip("0123456789") if tag.rstrip("0123456789") in ("can", "apost") else tag
    kind = _KIND_OF_TAG.get(base)
    return (kind, name) if kind else None


FIXED = frozenset({"setup", "teams", "score", "S", "me", "X", "DRY", "NP", "PLAYERS", "SEATS",
                   "TEAM_OF"} | {endings_at(t) for t in ("immediately", "after_turn", "after_round")})

# Every family of names that come from the spec, by what it names (for tests and tools).
SPEC_FAMILIES = {
    "local": local, "value": value, "const_fn": const_fn, "def_fn": def_fn, "def_memo_fn": def_memo_fn,
    "proc_fn": proc_fn, "init": init,
    "can": can, "ending_cond": ending_cond, "ending_winners": ending_winners,
    "ending_rank": ending_rank, "prop": prop, "prop_when": prop_when,
    **{f"phase_{r}": (lambda n, r=r: phase(r, n)) for r in PHASE_ROLES},
    **{f"action_{r}": (lambda n, r=r: action(r, n)) for r in ACTION_ROLES},
}
