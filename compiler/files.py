"""The files a spec reads: where they may lie, what they may be, how big.

A spec is untrusted input. Compiling it reads its own file, the files it
``extends`` and its data files, and each of them must be:

* **inside the spec's folder tree**: the folder of the spec that was named
  (on the command line, or to ``atoll.load`` / ``compile_spec``) and the
  folders below it, or a folder trusted explicitly (``--allow-path DIR``,
  ``allow=[DIR]``, ``trusted(...)``); symbolic links are resolved first, so
  a link cannot lead outside;
* **a regular file**: no device (``/dev/zero`` never ends), FIFO (it would
  block), socket or folder. The type is checked before the file is opened,
  and again on the open file, which is opened without blocking;
* **small**: at most ``MAX_SPEC_BYTES`` for a spec, ``MAX_DATA_BYTES`` for a
  data file (never more than that many bytes are read);
* for data, **plain JSON**: nested at most ``MAX_JSON_DEPTH`` deep, no key
  twice in one object, no text that is not valid Unicode.

Each refusal is a ``Refused`` with a diagnostic code (A0501-A0504) that the
pipeline reports at the declaration that named the file. A diagnostic
quotes at most a short prefix of a value (``brief``).
"""
from __future__ import annotations

import errno
import json
import os
import re
import stat
from contextlib import contextmanager
from itertools import accumulate
from pathlib import Path
from typing import Iterable, Optional

MAX_SPEC_BYTES = 1 << 20     # 1 MiB of spec text per file
MAX_DATA_BYTES = 16 << 20    # 16 MiB per data file
MAX_JSON_DEPTH = 100         # arrays and objects inside each other
BRIEF = 40                   # characters of a value quoted in a diagnostic

ALLOW_HINT = ("a spec reads files only inside its own folder and the folders below it "
              "(symbolic links resolved); to trust another folder, name it: "
              "--allow-path DIR on the command line, allow=[DIR] in atoll.load / compile_spec")

_TRUSTED: tuple[Path, ...] = ()


class Refused(Exception):
    """A file the spec may not read, or data it may not use."""

    def __init__(self, code: str, message: str, hint: str = ""):
        super().__init__(message)
        self.code, self.message, self.hint = code, message, hint


def brief(value, n: int = BRIEF) -> str:
    """A value as a diagnostic quotes it: its repr, cut to ``n`` characters."""
    text = repr(value)
    return text if len(text) <= n else text[:n] + "... (" + f"{len(text)} characters)"


def trust(*paths) -> None:
    """Trust more folders for every spec compiled from now on (the command
    line's ``--allow-path``)."""
    global _TRUSTED
    _TRUSTED = _TRUSTED + tuple(Path(p).resolve() for p in paths)


@contextmanager
def trusted(paths: Iterable):
    """Trust more folders while the block runs."""
    global _TRUSTED
    old = _TRUSTED
    _TRUSTED = old + tuple(Path(p).resolve() for p in paths)
    try:
        yield
    finally:
        _TRUSTED = old


class Access:
    """The folders one compilation may read: the named spec's folder, the
    folders given with ``allow`` and those trusted with ``trust``."""

    def __init__(self, spec, allow: Iterable = ()):
        here = Path(spec).absolute().parent.resolve()
        self.roots = (here,) + tuple(Path(a).resolve() for a in allow or ()) + _TRUSTED

    @property
    def key(self) -> tuple:
        return tuple(str(r) for r in self.roots)

    def check(self, path, shown: Optional[str] = None) -> Path:
        """``path`` with its links resolved; Refused when it lies outside,
        OSError when it is no path at all (a null byte)."""
        try:
            real = Path(path).absolute().resolve()
        except ValueError:
            raise OSError(errno.EINVAL, "not a valid path") from None
        if any(real.is_relative_to(r) for r in self.roots):
            return real
        raise Refused("A0501", f"{shown or path} lies outside the folders this spec may read "
                      f"({self.roots[0]}" + (" and the trusted ones" if len(self.roots) > 1 else "")
                      + ")", ALLOW_HINT)

    def read_bytes(self, path, what: str = "data", shown: Optional[str] = None) -> bytes:
        """The bytes of a regular file inside the roots (``what``: "spec" or
        "data", which sets the size cap); OSError when it cannot be read,
        Refused for the rules above."""
        shown = shown or str(path)
        return _read_regular(self.check(path, shown), LIMITS[what], shown, what)

    def read_text(self, path, what: str = "data", shown: Optional[str] = None) -> str:
        """UTF-8 text (UnicodeDecodeError when it is not)."""
        return self.read_bytes(path, what, shown).decode("utf-8")


LIMITS = {"spec": MAX_SPEC_BYTES, "data": MAX_DATA_BYTES}


def _read_regular(real: Path, limit: int, shown: str, what: str) -> bytes:
    _regular(os.stat(real), shown)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(real, flags)
    try:
        st = os.fstat(fd)
        _regular(st, shown)   # the file opened is the one checked, not one swapped in since
        if st.st_size > limit:
            raise _too_big(shown, limit, what)
        chunks, size = [], 0
        while size <= limit:   # never more than limit + 1 bytes, whatever the size said
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise _too_big(shown, limit, what)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _regular(st, shown: str) -> None:
    if stat.S_ISREG(st.st_mode):
        return
    kind = ("a folder" if stat.S_ISDIR(st.st_mode) else "a FIFO" if stat.S_ISFIFO(st.st_mode)
            else "a device" if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode)
            else "a socket" if stat.S_ISSOCK(st.st_mode) else "not a file")
    raise Refused("A0502", f"{shown} is {kind}, not a regular file",
                  "name a regular file: devices, FIFOs, sockets and folders are never read")


def _too_big(shown: str, limit: int, what: str) -> Refused:
    return Refused("A0503", f"{shown} holds more than {limit >> 20} MiB, the most a {what} file "
                   "may hold", "split the file, or keep only the data the rules need")


def digest(path, what: str = "data") -> Optional[str]:
    """The SHA-256 of a file a compiled spec read, or None when it is no
    longer a regular file within the size cap (a cache stamp: None makes the
    spec compile again, which then says why)."""
    import hashlib
    try:
        return hashlib.sha256(_read_regular(Path(path), LIMITS[what], str(path), what)).hexdigest()
    except (OSError, Refused):
        return None


# ---------------------------------------------------------------- data JSON

_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def json_depth(text: str) -> int:
    """How deep arrays and objects nest in JSON text (strings skipped)."""
    brackets = _NOT_BRACKET.sub("", _STRING.sub("", text))
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0)


class _Duplicate(ValueError):
    pass


def _object(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise _Duplicate(f"the key {brief(k)} appears twice in one object")
        out[k] = v
    return out


def parse_json(text: str, shown: str):
    """Data JSON as Python values; Refused when nested too deep, ValueError
    for broken JSON, a duplicated key or text that is not valid Unicode."""
    depth = json_depth(text)
    if depth > MAX_JSON_DEPTH:
        raise Refused("A0504", f"{shown} nests arrays and objects {depth} deep; "
                      f"at most {MAX_JSON_DEPTH} are read",
                      "flatten the data: tables of records need a few levels only")
    value = json.loads(text, object_pairs_hook=_object)
    if "\\u" in text or not _encodes(text):   # (else no string of it can hold a surrogate)
        try:   # a lone surrogate (\ud800) decodes, but no file or terminal can take it
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError("it holds text that is not valid Unicode (a lone \\uD800-\\uDFFF escape)") \
                from None
    return value


def _encodes(text: str) -> bool:
    """``text`` holds no surrogate: then the strings JSON decodes from it hold
    none either, unless an escape (``\\u``) writes one."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
