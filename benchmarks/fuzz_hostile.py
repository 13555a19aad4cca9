"""The hostile generators of the fuzz run: paths, data files, `extends`,
deep nesting, limits, expensive constants and colliding names (see
``fuzz_gen.py`` for the case format and the other generators)."""
from __future__ import annotations

import json
import re

from fuzz_gen import PAYLOADS, PY_NAMES, Case, atoll_string, hostile_text, loguniform, template

def hostile_filename(rng) -> str:
    r = rng.random()
    if r < 0.5:
        stem = rng.choice([p for p in PAYLOADS if "\x00" not in p])
    else:
        stem = rng.choice(["a b", "ünï", "-x", "x'", 'x"', "x\\n", "x\r", "x\u2028", "", ".", "x\t",
                           "--help", "x{}", "x%s", "*", "x\x1b[31m", "é" * 60, "y" * 200, "x\n"])
    return stem.replace("/", "_")[:200]


def gen_hostile_path(rng) -> Case:
    name = hostile_filename(rng) + rng.choice([".atoll", ".atoll", "", ".ATOLL", ".atoll\n"])
    folder = hostile_filename(rng) if rng.random() < 0.3 else ""
    if folder in (".", ""):
        folder = ""
    main = f"{folder}/{name}" if folder else name
    if name in (".", "..", ""):
        main = (folder + "/" if folder else "") + "x.atoll"
    text = template()
    files = {main: text}
    tags = ["path"]
    if rng.random() < 0.4:     # a variant that extends the hostile name
        base_rel = main.split("/")[-1]
        files["v/variant.atoll"] = (f"extends {atoll_string('../' + main)}\n"
                                    "override game\ngame v { title: \"V\" players: 2..2 }\n")
        del base_rel
        tags.append("extends")
        main = "v/variant.atoll"
    return Case("hostile_path", tuple(tags), files, main, f"file {main!r}", cli=rng.random() < 0.5)


# ---------------------------------------------------------------- data and extends

DATA_GAME = """game d { title: "D" players: 2..2 }
data ⟨DECL⟩
state { n: int = 0 visible all }
flow { round { turns in seats: p } }
phase p { action go() { n = n + 1 end phase } }
ending e after_turn when n >= 3 => tie
"""
_DATA_DECLS = [("cards: list[int] from {path} key \"cards\"", "list"),
               ("names: list[str] from {path}", "strs"),
               ("title: str from {path} key \"title\"", "str"),
               ("table: map[str, int] from {path}", "map"),
               ("deep: list[list[list[int]]] from {path}", "deep")]


def _deep_json(rng) -> str:
    n = loguniform(rng, 50, 200_000)
    return rng.choice(["[" * n + "]" * n, '{"a":' * n + "1" + "}" * n, "[" * n])


def hostile_json(rng, kind: str) -> object:
    payload = rng.choice(PAYLOADS)
    options = [
        _deep_json(rng),
        '{"cards": [1], "cards": [2], "title": "a", "title": "b"}',
        '{"cards": [' + "9" * loguniform(rng, 10, 30000) + "]}",
        '{"cards": [1e400, -1e400, 1.5]}', '{"cards": [NaN, Infinity]}', '{"cards": [true, false]}',
        '{"cards": [-0, 00]}', "", "null", "[]", "{}", '"just a string"',
        '{"title": ' + json.dumps(payload) + "}",
        json.dumps([payload, hostile_text(rng)]),
        json.dumps({payload[:40]: 1, "k": 2}),
        b"\xff\xfe\x00\x01garbage", "\ufeff{\"cards\": [1]}",
        '{"cards": [' + ",".join(["1"] * loguniform(rng, 10, 400_000)) + "]}",
        '{"cards": [1, 2, 3], "title": "' + "x" * loguniform(rng, 10, 3_000_000) + '"}',
        '{"cards": "' + "\\ud800" + '"}',
    ]
    return rng.choice(options)


def gen_hostile_data(rng) -> Case:
    decl, kind = rng.choice(_DATA_DECLS)
    files = {}
    tags = ["data"]
    r = rng.random()
    if r < 0.45:
        path = "data/d.json"
        files[path] = hostile_json(rng, kind)
        tags.append("content")
    else:
        choice = rng.choice(["abs_secret", "up_secret", "leak", "dev_zero", "dev_urandom", "dev_null",
                             "fifo", "link_zero", "link_secret", "dir", "nul", "empty", "proc",
                             "long", "home"])
        tags.append(choice)
        path = {"abs_secret": "@WORKDIR@/secret_ok.json", "up_secret": "../secret_ok.json",
                "leak": "../secret_leak.json", "dev_zero": "/dev/zero", "dev_urandom": "/dev/urandom",
                "dev_null": "/dev/null", "fifo": "data/fifo.json", "link_zero": "data/z.json",
                "link_secret": "data/s.json", "dir": "data", "nul": "data/a\x00b.json", "empty": "",
                "proc": "/proc/self/status", "long": "x" * 5000 + ".json",
                "home": "~/secret_ok.json"}[choice]
        if choice == "fifo":
            files["data/fifo.json"] = ("fifo",)
        elif choice == "link_zero":
            files["data/z.json"] = ("symlink", "/dev/zero")
        elif choice == "link_secret":
            files["data/s.json"] = ("symlink", "../../secret_ok.json")
        elif choice == "dir":
            files["data/x.json"] = "[]"
        if choice in ("abs_secret", "up_secret", "link_secret", "leak", "home"):
            tags.append("escape")
    text = DATA_GAME.replace("⟨DECL⟩", decl.format(path=atoll_string(path)))
    if kind == "str" and rng.random() < 0.5:    # a string from data folded into a constant
        text += "const shown: str = title\nproperty t invariant shown != \"\"\n"
    return Case("hostile_data", tuple(tags), dict(files, **{"d.atoll": text}), "d.atoll",
                f"data {decl.format(path=repr(path))}", cli=rng.random() < 0.15)


def gen_hostile_extends(rng) -> Case:
    files = {"base.atoll": template()}
    head = "override game\ngame v { title: \"V\" players: 2..2 }\n"
    tags = ["extends"]
    if rng.random() < 0.3:       # a chain of variants
        n = loguniform(rng, 2, 3000)
        tags.append("chain")
        prev = "base.atoll"
        for i in range(n):
            files[f"v{i}.atoll"] = f"extends {atoll_string(prev)}\n" + (head if i == 0 else "")
            prev = f"v{i}.atoll"
        return Case("hostile_extends", tuple(tags), files, prev, f"a chain of {n} variants")
    choice = rng.choice(["abs_secret", "up_secret", "dev_zero", "dev_urandom", "dev_null", "fifo",
                         "link_zero", "link_secret", "dir", "nul", "empty", "self", "link_self",
                         "json", "long", "proc"])
    tags.append(choice)
    path = {"abs_secret": "@WORKDIR@/secret.atoll", "up_secret": "../secret.atoll",
            "dev_zero": "/dev/zero", "dev_urandom": "/dev/urandom", "dev_null": "/dev/null",
            "fifo": "fifo.atoll", "link_zero": "z.atoll", "link_secret": "s.atoll", "dir": ".",
            "nul": "a\x00b.atoll", "empty": "", "self": "v.atoll", "link_self": "l.atoll",
            "json": "../secret_leak.json", "long": "x" * 5000, "proc": "/proc/self/status"}[choice]
    if choice == "fifo":
        files["fifo.atoll"] = ("fifo",)
    elif choice == "link_zero":
        files["z.atoll"] = ("symlink", "/dev/zero")
    elif choice == "link_secret":
        files["s.atoll"] = ("symlink", "../secret.atoll")
    elif choice == "link_self":
        files["l.atoll"] = ("symlink", "v.atoll")
    if choice in ("abs_secret", "up_secret", "link_secret"):
        tags.append("escape")
    if choice == "json":
        tags.append("leak")
    files["v.atoll"] = f"extends {atoll_string(path)}\n" + head
    return Case("hostile_extends", tuple(tags), files, "v.atoll", f"extends {path!r}",
                cli=rng.random() < 0.15)


# ---------------------------------------------------------------- deep, big, expensive

DEEP_GAME = """game deep { title: "Deep" players: 2..2 }
const k: int = ⟨CONST⟩
state { n: int = ⟨INIT⟩ visible all  flag: bool = ⟨BOOL⟩ visible all }
flow { round { turns in seats: p } }
phase p {
  action go() when ⟨GUARD⟩ {
    ⟨BODY⟩
    end phase
  }
}
ending e after_turn when n > 3 or ⟨END⟩ => tie
property inv invariant ⟨PROP⟩
"""


def deep_int(rng, d: int) -> tuple[str, str]:
    kind = rng.choice(["parens", "sum", "neg", "if", "list", "agg", "product", "mixed", "map"])
    if kind == "parens":
        return kind, "(" * d + "1" + ")" * d
    if kind == "sum":
        return kind, " + ".join(["1"] * d)
    if kind == "neg":
        return kind, "- " * d + "1"
    if kind == "if":
        return kind, "if true then " * d + "1" + " else 0" * d
    if kind == "list":
        return kind, "size(" + "[" * d + "1" + "]" * d + ")"
    if kind == "agg":
        return kind, "sum(" * d + "1" + " for x in [1])" * d
    if kind == "product":
        return kind, " * ".join(["1"] * d)
    if kind == "map":
        return kind, "size(" + "{1: " * d + "1" + "}" * d + ")"
    return kind, "".join(rng.choice(["(1 + ", "(- ", "(2 * "]) for _ in range(d)) + "1" + ")" * d


def deep_bool(rng, d: int) -> tuple[str, str]:
    kind = rng.choice(["not", "and", "or", "parens", "cmp"])
    if kind == "not":
        return kind, "not " * (2 * (d // 2)) + "true"
    if kind == "and":
        return kind, " and ".join(["true"] * d)
    if kind == "or":
        return kind, " or ".join(["false"] * d) + " or true"
    if kind == "parens":
        return kind, "(" * d + "true" + ")" * d
    return kind, " and ".join(f"n >= -{i}" for i in range(d))


def deep_body(rng, d: int) -> tuple[str, str]:
    kind = rng.choice(["if", "for", "many", "let", "ifelse"])
    if kind == "if":
        return kind, "if n >= 0 { " * d + "n = n + 1" + " }" * d
    if kind == "ifelse":
        return kind, "if n < 0 { n = 0 } else { " * d + "n = n + 1" + " }" * d
    if kind == "for":
        return kind, "for i in [1] { " * d + "n = n + 1" + " }" * d
    if kind == "let":
        return kind, " ".join(f"let v{i} = {'n' if i == 0 else f'v{i - 1}'} + 1" for i in range(d)) \
            + f" n = v{d - 1} - {d - 1}"
    return kind, "n = n + 1 " * d


def gen_deep(rng) -> Case:
    d = loguniform(rng, 5, 6000)
    site = rng.choice(["CONST", "INIT", "BOOL", "GUARD", "BODY", "END", "PROP"])
    fill = {"CONST": "1", "INIT": "0", "BOOL": "true", "GUARD": "true", "BODY": "n = n + 1",
            "END": "false", "PROP": "true"}
    if site in ("CONST", "INIT"):
        kind, fill[site] = deep_int(rng, d)
    elif site == "BODY":
        kind, fill[site] = deep_body(rng, d)
    else:
        kind, fill[site] = deep_bool(rng, d)
    text = re.sub(r"⟨([A-Z]+)⟩", lambda m: fill[m.group(1)], DEEP_GAME)
    return Case("deep", ("deep", site, kind), {"deep.atoll": text}, "deep.atoll",
                f"{kind} nested {d} deep in {site}", cli=rng.random() < 0.05)


def gen_limits(rng) -> Case:
    kind = rng.choice(["literal", "folded", "players", "players_hi", "range_param", "state_int",
                       "deal", "show", "runtime_growth", "negative_range", "big_list"])
    fill = {"CONST": "1", "INIT": "0", "BOOL": "true", "GUARD": "true", "BODY": "n = n + 1",
            "END": "false", "PROP": "true"}
    text = None
    if kind == "literal":
        fill[rng.choice(["CONST", "INIT"])] = "1" * rng.choice([19, 20, 300, 4300, 4301, 5000, 50000])
    elif kind == "folded":
        base = "9" * rng.choice([10, 100, 1000])
        fill["CONST"] = " * ".join([base] * rng.choice([2, 5, 30, 300]))
    elif kind == "runtime_growth":
        fill["BODY"] = "n = n * n + 99999999999999999999"
        fill["END"] = "false"
        text = re.sub(r"⟨([A-Z]+)⟩", lambda m: fill[m.group(1)], DEEP_GAME).replace("n > 3 or ", "")
    elif kind in ("players", "players_hi"):
        hi = rng.choice(["99999999999999999999", "100000", "5000", "300", "1" + "0" * 5000, "0"])
        lo = "2" if kind == "players" else hi
        text = template(players=f"{lo}..{hi}")
    elif kind == "range_param":
        n = rng.choice(["1000", "100000", "99999999999999999999"])
        text = template().replace("int in pile)", f"int in range({n}))")
    elif kind == "state_int":
        fill["INIT"] = str(10 ** rng.choice([18, 19, 100, 4000]))
    elif kind == "negative_range":
        text = template().replace("int in pile)", "int in between(0 - 99999999999999999999, 3))")
    elif kind == "deal":
        text = template().replace("let", "deal 99999999999999999999 from pile to pile let", 1)
    elif kind == "show":
        text = template() + "property w witness exists x: int in [1, 2]: x > 0 show 99999999999999999999\n"
    elif kind == "big_list":
        fill["CONST"] = "size(range(" + rng.choice(["10000000", "100000000000", "99999999999999999999"]) + "))"
    if text is None:
        text = re.sub(r"⟨([A-Z]+)⟩", lambda m: fill[m.group(1)], DEEP_GAME)
    return Case("limits", ("limits", kind), {"l.atoll": text}, "l.atoll", kind, cli=rng.random() < 0.1)


def gen_expensive(rng) -> Case:
    kind = rng.choice(["nested_sum", "reverse_consts", "many_actions", "cartesian", "subsets",
                       "many_states", "def_recursion", "wide_lines"])
    fill = {"CONST": "1", "INIT": "0", "BOOL": "true", "GUARD": "true", "BODY": "n = n + 1",
            "END": "false", "PROP": "true"}
    base = re.sub(r"⟨([A-Z]+)⟩", lambda m: fill[m.group(1)], DEEP_GAME)
    if kind == "nested_sum":
        n = rng.choice([100, 1000, 100000])
        text = base.replace("const k: int = 1", f"const k: int = sum(x * y for x in range({n}) for y in range({n}))")
    elif kind == "reverse_consts":
        n = loguniform(rng, 100, 4000)
        text = base + "".join(f"const r{i}: int = r{i + 1} + 1\n" for i in range(n)) + f"const r{n}: int = 0\n"
    elif kind == "many_actions":
        n = loguniform(rng, 50, 3000)
        text = base.replace("action go()", "".join(f"action a{i}() when n == {i} {{ n = n + 1 end phase }}\n"
                                                  for i in range(n)) + "action go()")
    elif kind == "cartesian":
        n = rng.choice([10, 50, 100, 300])
        text = base.replace("action go()", f"action go(a: int in range({n}), b: int in range({n}), "
                                           f"c: int in range({n}))")
    elif kind == "subsets":
        n = rng.choice([10, 18, 25, 40])
        text = base.replace("const k: int = 1", f"const k: int = size(subsets(range({n})))")
    elif kind == "many_states":
        n = loguniform(rng, 50, 3000)
        text = base.replace("state {", "state {\n" + "".join(f"  s{i}: int = {i} visible all\n"
                                                             for i in range(n)))
    elif kind == "def_recursion":
        text = base + "def f(x: int): int = g(x)\ndef g(x: int): int = f(x)\nconst z: int = f(1)\n"
    else:
        n = rng.choice([10, 30, 100])
        text = base.replace("const k: int = 1",
                            f"const k: int = size(lines([pos(x, y) for x in range({n}) for y in range({n})]))")
    return Case("expensive", ("expensive", kind), {"e.atoll": text}, "e.atoll", kind)


# ---------------------------------------------------------------- colliding names, with an oracle

_SUFFIXES = ["", "_1", "_2", "_gen", "_why", "_effect", "_ensures", "_ok", "_choices", "_post",
             "_post_1", "_1_post", "_enter", "_done", "_auto", "_repeat", "_1_1", "__1"]


def gen_collide(rng) -> Case:
    """Actions named from one stem and generated-looking suffixes, each with
    a plain guard (`when flag == c`), or one that asks `can` of another now
    or after setting `flag`. The oracle: which are legal at the start, and that each
    one, applied, sets `last` to its own number."""
    stem = rng.choice(["b", "go", "x", "take", "a", "can"])
    names = [stem]         # the stem, and more often the suffixes of specialised helpers
    while len(names) < rng.randint(3, 7):
        n = stem + rng.choice(_SUFFIXES[1:] + ["_1", "_1", "_2"])
        if n not in names:
            names.append(n)
    rng.shuffle(names)
    plain = {n: rng.randint(0, 1) for n in names
             if n == stem or re.fullmatch(re.escape(stem) + r"_\d", n) or rng.random() < 0.3}
    others = sorted(set(plain) - {stem}) or [stem]
    lines = []
    kinds = []
    for i, n in enumerate(names):
        r = rng.random()
        if n in plain:
            c = plain[n]
            kinds.append((n, "when", c, None, None))
            lines.append(f"  action {n}() when flag == {c} {{ last = {i + 1}  end phase }}")
        elif r < 0.5:       # `can` on the state as it is: the plain helper
            j = rng.choice(others if rng.random() < 0.6 else sorted(plain))
            neg = rng.random() < 0.4
            kinds.append((n, "can", 0, j, neg))
            lines.append(f"  action {n}() when {'not ' if neg else ''}can({j}) "
                         f"{{ last = {i + 1}  end phase }}")
        else:                # `can` after the effect set `flag`: a specialised helper
            j = stem if rng.random() < 0.6 else rng.choice(sorted(plain))
            v = rng.randint(0, 1)
            neg = rng.random() < 0.4
            kinds.append((n, "ensures", v, j, neg))
            lines.append(f"  action {n}() ensures {'not ' if neg else ''}can({j}) "
                         f"{{ flag = {v}  last = {i + 1}  end phase }}")
    legal = sorted(n for n, kind, c, j, neg in kinds
                   if (kind == "when" and c == 0) or (kind != "when" and ((plain[j] == c) != neg)))
    order = list(range(len(lines)))
    rng.shuffle(order)
    text = ('game c { title: "C" players: 2..2 }\n'
            "state { flag: int = 0 visible all  last: int = 0 visible all }\n"
            "flow { round { turns in seats: p } }\n"
            "phase p {\n" + "\n".join(lines[k] for k in order) + "\n}\n"
            "ending e after_turn when last > 0 => tie\n")
    oracle = {"legal": legal, "last": {n: i + 1 for i, n in enumerate(names)}}
    return Case("collide", ("collide",), {"c.atoll": text}, "c.atoll",
                "actions " + ", ".join(names), oracle=oracle)
