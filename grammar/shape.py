"""The shape of a parse tree, before it becomes an AST (see ``parse``).

* ``rebalance``: a long chain of one associative operator (`a + b + c + ...`)
  is regrouped as a balanced tree, so that its depth is about log2 of its
  length (the operands keep their order);
* ``within_limits``: the tree nests at most ``limits.MAX_NESTING`` levels
  (each binding of a `let` counts as one level: it holds the rest inside it),
  loops at most ``limits.MAX_LOOPS`` (an action's choices count as loops),
  numbers have at most ``limits.MAX_INT_DIGITS`` digits (A0005 otherwise).

Both walk the tree without recursion: it may be deeper than Python allows,
which is what they protect the later passes (all recursive) from.
"""
from __future__ import annotations

from lark import Token, Tree
from lark.tree import Meta

from atoll.compiler import limits
from atoll.diagnostics import Reporter
from atoll.grammar import ast as A


def span_of(file: str, meta) -> A.Span:
    if getattr(meta, "empty", True):
        return A.NO_SPAN
    return A.Span(file, meta.line, meta.column, meta.end_line, meta.end_column)


def token_span(file: str, tok: Token) -> A.Span:
    return A.Span(file, tok.line, tok.column, tok.end_line or tok.line,
                  tok.end_column or tok.column + len(tok))



# Operators whose chains can be regrouped without changing a value: `+` (on
# ints, lists, sets and bags), `*` on ints, `and`, `or`. Operands are still
# evaluated left to right.
_ASSOCIATIVE = ("add", "and_op", "or_op", "arith")
_CHAIN = 16   # a chain up to this long keeps the parser's grouping


def _same_op(node, op: str) -> bool:
    if not isinstance(node, Tree) or node.data != op:
        return False
    return op != "arith" or node.children[1] == "*"


def _operands(node: Tree) -> list:
    """The operands of the chain of ``node``'s operator rooted at ``node``, in order."""
    op = node.data
    out, todo = [], [node]
    while todo:
        n = todo.pop()
        if _same_op(n, op):
            todo.extend(reversed([n.children[0], n.children[-1]]))
        else:
            out.append(n)
    return out


def _meta(first, last) -> Meta:
    m = Meta()
    a = first.meta if isinstance(first, Tree) else first
    b = last.meta if isinstance(last, Tree) else last
    if getattr(a, "empty", False) or getattr(b, "empty", False):
        return m
    m.empty = False
    m.line, m.column, m.start_pos = a.line, a.column, a.start_pos
    m.end_line, m.end_column, m.end_pos = b.end_line, b.end_column, b.end_pos
    return m


def _balanced(op: str, star, items: list):
    if len(items) == 1:
        return items[0]
    mid = len(items) // 2
    left, right = _balanced(op, star, items[:mid]), _balanced(op, star, items[mid:])
    children = [left, star, right] if op == "arith" else [left, right]
    return Tree(op, children, _meta(items[0], items[-1]))


def rebalance(tree: Tree) -> Tree:
    """Regroup each long chain of an associative operator as a balanced tree
    (depth log2 of its length instead of its length), so that a sum of
    thousands of terms nests no deeper than a few brackets. Iterative: the
    tree may be deeper than Python's recursion allows."""
    todo = [tree]
    while todo:
        node = todo.pop()
        for i, child in enumerate(node.children):
            if not isinstance(child, Tree):
                continue
            if child.data in _ASSOCIATIVE and _same_op(child, child.data):
                items = _operands(child)
                if len(items) > _CHAIN:
                    star = child.children[1] if child.data == "arith" else None
                    child = node.children[i] = _balanced(child.data, star, items)
                    todo.extend(x for x in items if isinstance(x, Tree))
                    continue
            todo.append(child)
    return tree


def within_limits(tree: Tree, file: str, reporter: Reporter) -> bool:
    """Report the first place nested deeper than MAX_NESTING, or loops nested
    deeper than MAX_LOOPS, and every number longer than MAX_INT_DIGITS.
    Iterative, like ``rebalance``."""
    ok = True
    deep_reported = loops_reported = False
    todo = [(tree, 0, 0)]
    while todo:
        node, depth, loops = todo.pop()
        if isinstance(node, Token):
            if node.type == "INT" and len(node) > limits.MAX_INT_DIGITS:
                reporter.add("A0005", f"this number has {len(node)} digits; the limit is "
                             f"{limits.MAX_INT_DIGITS}", token_span(file, node),
                             "numbers in a spec are at most "
                             f"{limits.MAX_INT_DIGITS} digits long")
                ok = False
            continue
        if not isinstance(node, Tree):
            continue
        if node.data in ("for_stmt", "for_tuple_stmt", "deal_stmt"):
            loops += 1
        if node.data == "action_decl":   # each choice is a loop of the generated code
            params = sum(1 for c in node.children if isinstance(c, Tree) and c.data == "action_param")
            if params > limits.MAX_LOOPS:
                reporter.add("A0005", f"this action has {params} choices; the limit is {limits.MAX_LOOPS}",
                             token_span(file, node.children[0]),
                             "group choices into a record or a list, or split the action")
                ok = False
        if depth > limits.MAX_NESTING and not deep_reported:
            reporter.add("A0005", f"this is nested more than {limits.MAX_NESTING} levels deep",
                         span_of(file, node.meta),
                         f"the limit on nesting (brackets, calls, operators, blocks inside one "
                         f"another) is {limits.MAX_NESTING}: name a part with `let`, a `def` or a "
                         "`const`, or join conditions with `and`")
            deep_reported, ok = True, False
            continue
        if loops > limits.MAX_LOOPS and not loops_reported:
            reporter.add("A0005", f"loops are nested more than {limits.MAX_LOOPS} deep here",
                         span_of(file, node.meta),
                         f"at most {limits.MAX_LOOPS} `for` and `deal` statements may run inside "
                         "one another: move the inner part into a separate rule")
            loops_reported, ok = True, False
            continue
        if node.data == "let_expr":   # each binding holds the rest inside it: one level more
            todo.extend((c, depth + 1 + i, loops) for i, c in reversed(list(enumerate(node.children))))
            continue
        todo.extend((c, depth + 1, loops) for c in reversed(node.children))
    return ok
