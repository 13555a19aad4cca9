"""Run-time values of a type: to and from JSON, readable text, stable ids.

At run time an enum member is its index in the declaration (so sets of
members sort in declaration order, as in the z3 meaning); JSON and text use
its name.

All conversions are driven by the value's type (see ``atoll.compiler.types``)
and validate what they read, so a corrupt saved game is refused with the
place and the reason instead of producing a broken state.
"""
from __future__ import annotations

from typing import Callable

from atoll.compiler.files import brief   # a diagnostic quotes a short prefix of a value


class BadValue(ValueError):
    """A JSON value does not fit its declared type."""


class ValueCodec:
    """Knows the enums and records of one program."""

    def __init__(self, enums: dict[str, tuple[str, ...]], records: dict[str, list[tuple[str, object]]]):
        self.enums = enums
        self.records = dict(records)
        self.records["Pos"] = [("x", "int"), ("y", "int")]

    # ------------------------------------------------------------ JSON
    def to_json(self, t, v):
        if t in ("int", "bool", "str", "?"):
            return v
        kind = t[0]
        if kind == "enum":
            return self.enums[t[1]][v]
        if kind == "record":
            fields = self.records[t[1]]
            return {name: self.to_json(ft, x) for (name, ft), x in zip(fields, v)}
        if kind in ("list", "bag"):
            return [self.to_json(t[1], x) for x in v]
        if kind == "set":
            return [self.to_json(t[1], x) for x in sorted(v)]
        if kind == "map":
            # Maps have no order of their own: written in key order, so equal
            # states always give the same JSON.
            return [[self.to_json(t[1], k), self.to_json(t[2], x)] for k, x in sorted(v.items())]
        if kind == "player":
            return [self.to_json(t[1], x) for x in v]
        raise AssertionError(t)  # pragma: no cover

    def from_json(self, t, j, where: str = "value"):
        def bad(msg):
            raise BadValue(f"{where}: {msg}")
        if t == "int":
            if not isinstance(j, int) or isinstance(j, bool):
                bad(f"expected an int, found {brief(j)}")
            return j
        if t == "bool":
            if not isinstance(j, bool):
                bad(f"expected true or false, found {brief(j)}")
            return j
        if t == "str":
            if not isinstance(j, str):
                bad(f"expected a string, found {brief(j)}")
            return j
        kind = t[0]
        if kind == "enum":
            if j not in self.enums[t[1]]:
                bad(f"{brief(j)} is not a member of {t[1]}")
            return self.enums[t[1]].index(j)
        if kind == "record":
            fields = self.records[t[1]]
            if not isinstance(j, dict) or set(j) != {f for f, _ in fields}:
                bad(f"expected a {t[1]} with fields {', '.join(f for f, _ in fields)}")
            return tuple(self.from_json(ft, j[f], f"{where}.{f}") for f, ft in fields)
        if kind in ("list", "bag", "set", "player"):
            if not isinstance(j, list):
                bad(f"expected a list, found {type(j).__name__}")
            items = tuple(self.from_json(t[1], x, f"{where}[{i}]") for i, x in enumerate(j))
            if kind == "set":
                return frozenset(items)
            if kind == "bag":
                return tuple(sorted(items))
            return items
        if kind == "map":
            if not isinstance(j, list) or not all(isinstance(p, list) and len(p) == 2 for p in j):
                bad("expected a list of [key, value] pairs")
            out = {}
            for i, (k, x) in enumerate(j):
                out[self.from_json(t[1], k, f"{where} key {i}")] = self.from_json(t[2], x, f"{where}[{i}]")
            return out
        raise AssertionError(t)  # pragma: no cover

    # ------------------------------------------------------------ text
    def text(self, t, v) -> str:
        if t in ("int", "str", "?"):
            return str(v)
        if isinstance(t, tuple) and t[0] == "enum":
            return self.enums[t[1]][v]
        if t == "bool":
            return "true" if v else "false"
        kind = t[0]
        if kind == "record":
            if t[1] == "Pos":
                return f"({v[0]},{v[1]})"
            return f"{t[1]}({', '.join(self.text(ft, x) for (_, ft), x in zip(self.records[t[1]], v))})"
        if kind in ("list", "bag"):
            return "[" + ", ".join(self.text(t[1], x) for x in v) + "]"
        if kind == "set":
            return "{" + ", ".join(self.text(t[1], x) for x in sorted(v)) + "}"
        if kind == "map":
            return "{" + ", ".join(f"{self.text(t[1], k)}: {self.text(t[2], x)}" for k, x in sorted(v.items())) + "}"
        if kind == "player":
            return "[" + ", ".join(self.text(t[1], x) for x in v) + "]"
        raise AssertionError(t)  # pragma: no cover

    # ------------------------------------------------------------ stable ids
    def naturals(self, t, v, out: list) -> None:
        """Append an injective encoding of ``v`` as naturals to ``out``."""
        if t == "int":
            out.append(2 * v if v >= 0 else -2 * v - 1)
        elif t == "bool":
            out.append(1 if v else 0)
        elif t == "str":
            b = v.encode()
            out.append(len(b))
            out.extend(b)
        elif t[0] == "enum":
            out.append(v)
        elif t[0] == "record":
            for (_, ft), x in zip(self.records[t[1]], v):
                self.naturals(ft, x, out)
        elif t[0] in ("list", "bag", "set"):
            items = sorted(v) if t[0] == "set" else v
            out.append(len(items))
            for x in items:
                self.naturals(t[1], x, out)
        elif t[0] == "map":
            out.append(len(v))
            for k in sorted(v):
                self.naturals(t[1], k, out)
                self.naturals(t[2], v[k], out)
        else:  # pragma: no cover
            raise AssertionError(t)


def pack(naturals: list[int]) -> int:
    """An injective map from lists of naturals to one natural (LEB128 bytes
    behind a marker byte), so ids are stable and never collide."""
    out = bytearray([1])
    for n in naturals:
        while True:
            low = n & 0x7F
            n >>= 7
            if n:
                out.append(low | 0x80)
            else:
                out.append(low)
                break
    return int.from_bytes(out, "big")
