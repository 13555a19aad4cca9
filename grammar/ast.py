"""The typed AST of an Atoll spec.

Every node is a frozen dataclass with a ``span`` that equality ignores, so
two parses of the same text at different places compare equal. Unions are
closed: ``Expr``, ``Stmt`` and ``Item`` list every node a field may hold.
``to_data`` dumps any node to plain JSON-able data (used by golden tests).
"""
from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields, is_dataclass
from typing import Optional, Union


@dataclass(frozen=True)
class Span:
    """A source range: 1-based line and column of its start and end."""
    file: str
    line: int
    column: int
    end_line: int
    end_column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


NO_SPAN = Span("<none>", 1, 1, 1, 1)


def _span() -> Span:
    return field(default=NO_SPAN, compare=False, repr=False)


def _names() -> tuple:
    """The names a destructuring binds (``(a, b)``); empty for one name. Left
    out of ``to_data`` when empty, so dumps of older forms do not change."""
    return field(default=(), metadata={"dump_if_set": True})


def _phrase() -> "Notes":
    """Notes that follow a condition (``done when c "in words"``): how the
    players' edition says it. Left out of ``to_data`` when empty."""
    return field(default_factory=lambda: Notes(), compare=False, repr=False,
                 metadata={"dump_if_set": True})


# ---------------------------------------------------------------- notes and types

@dataclass(frozen=True)
class Notes:
    summary: str = ""
    cites: tuple[str, ...] = ()
    assumption: str = ""


@dataclass(frozen=True)
class TypeRef:
    name: str
    args: tuple["TypeRef", ...] = ()
    span: Span = _span()

    def __str__(self) -> str:
        if not self.args:
            return self.name
        return f"{self.name}[{', '.join(map(str, self.args))}]"


# ---------------------------------------------------------------- expressions

@dataclass(frozen=True)
class IntLit:
    value: int
    span: Span = _span()


@dataclass(frozen=True)
class BoolLit:
    value: bool
    span: Span = _span()


@dataclass(frozen=True)
class StrLit:
    value: str
    span: Span = _span()


@dataclass(frozen=True)
class Name:
    name: str
    span: Span = _span()


@dataclass(frozen=True)
class IfExpr:
    cond: "Expr"
    then: "Expr"
    else_: "Expr"
    span: Span = _span()


@dataclass(frozen=True)
class BinOp:
    """``op`` is one of: or and == != < <= > >= + - * / % in notin."""
    op: str
    left: "Expr"
    right: "Expr"
    span: Span = _span()


@dataclass(frozen=True)
class Not:
    operand: "Expr"
    span: Span = _span()


@dataclass(frozen=True)
class Neg:
    operand: "Expr"
    span: Span = _span()


@dataclass(frozen=True)
class FieldAccess:
    obj: "Expr"
    name: str
    span: Span = _span()


@dataclass(frozen=True)
class Index:
    obj: "Expr"
    key: "Expr"
    span: Span = _span()


@dataclass(frozen=True)
class NamedArg:
    name: str
    value: "Expr"
    span: Span = _span()


@dataclass(frozen=True)
class Call:
    func: str
    args: tuple["Expr", ...]
    named: tuple[NamedArg, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class CompFor:
    """``for var in iter if c ...``; with ``names``, ``for (a, b) in iter``
    (each item is a tuple; ``var`` is then empty)."""
    var: str
    iter: "Expr"
    conds: tuple["Expr", ...] = ()
    span: Span = _span()
    names: tuple[str, ...] = _names()


@dataclass(frozen=True)
class Aggregate:
    """``func(elem for x in xs if c ...)``: sum, count, min, max, all, any, ..."""
    func: str
    elem: "Expr"
    fors: tuple[CompFor, ...]
    span: Span = _span()


@dataclass(frozen=True)
class ListLit:
    items: tuple["Expr", ...]
    span: Span = _span()


@dataclass(frozen=True)
class SetLit:
    items: tuple["Expr", ...]
    span: Span = _span()


@dataclass(frozen=True)
class MapLit:
    keys: tuple["Expr", ...]
    values: tuple["Expr", ...]
    span: Span = _span()


@dataclass(frozen=True)
class Comprehension:
    """``kind`` is list, set or map; ``key`` is set for maps only."""
    kind: str
    elem: "Expr"
    fors: tuple[CompFor, ...]
    key: Optional["Expr"] = None
    span: Span = _span()


@dataclass(frozen=True)
class MatchArm:
    pattern: Union[int, str, None]   # int literal, enum member name, None for _
    value: "Expr"
    span: Span = _span()


@dataclass(frozen=True)
class Match:
    subject: "Expr"
    arms: tuple[MatchArm, ...]
    span: Span = _span()


@dataclass(frozen=True)
class CaseArm:
    name: str
    cond: "Expr"
    value: "Expr"
    span: Span = _span()


@dataclass(frozen=True)
class Cases:
    """A rule stated as named cases: the value of the case whose condition
    holds. The verifier checks that exactly one case applies to every input
    (or that overlapping cases agree); at run time, no case is an error."""
    arms: tuple[CaseArm, ...]
    span: Span = _span()


@dataclass(frozen=True)
class TupleLit:
    """``(a, b, ...)``: two or more items (``(e)`` is only brackets)."""
    items: tuple["Expr", ...]
    span: Span = _span()


@dataclass(frozen=True)
class LetBinding:
    """``var = value``, or with ``names``, ``(a, b) = value`` (``var`` empty)."""
    var: str
    value: "Expr"
    span: Span = _span()
    names: tuple[str, ...] = _names()


@dataclass(frozen=True)
class LetExpr:
    """``let x = e1, y = e2 in body``: each value is evaluated once, in order;
    its names are visible in the later values and in the body."""
    bindings: tuple[LetBinding, ...]
    body: "Expr"
    span: Span = _span()


Expr = Union[IntLit, BoolLit, StrLit, Name, IfExpr, BinOp, Not, Neg, FieldAccess,
             Index, Call, Aggregate, ListLit, SetLit, MapLit, Comprehension, Match, Cases,
             TupleLit, LetExpr]


def bound_names(node) -> tuple[str, ...]:
    """The names a binding form binds (a `for`, a comprehension's `for`, a
    `let` statement or a `let` binding): its one name, or its destructured ones."""
    return node.names or (node.var if hasattr(node, "var") else node.name,)


@dataclass(frozen=True)
class With:
    """``obj with {k: v, ...}``: the map ``obj`` with those keys set (added or
    replaced; later entries win), or the record ``obj`` with those fields
    replaced (then each key is a bare field name)."""
    obj: "Expr"
    keys: tuple["Expr", ...]
    values: tuple["Expr", ...]
    span: Span = _span()


@dataclass(frozen=True)
class EmptyOf:
    """``list[T]()``, ``set[T]()``, ``bag[T]()``, ``map[K, V]()``: an empty
    collection whose type is written out."""
    type: TypeRef
    span: Span = _span()


Expr = Union[Expr, With, EmptyOf]


# ---------------------------------------------------------------- statements

@dataclass(frozen=True)
class LValue:
    name: str
    indices: tuple[Expr, ...] = ()
    span: Span = _span()


@dataclass(frozen=True)
class Assign:
    target: LValue
    value: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Let:
    """``let name = value``; with ``names``, ``let (a, b) = value`` (``name`` empty)."""
    name: str
    value: Expr
    span: Span = _span()
    names: tuple[str, ...] = _names()


@dataclass(frozen=True)
class If:
    cond: Expr
    then: tuple["Stmt", ...]
    else_: tuple["Stmt", ...] = ()
    span: Span = _span()
    notes: "Notes" = _phrase()      # ``if c "in words" { }``


@dataclass(frozen=True)
class For:
    """``for var in iter { }``; with ``names``, ``for (a, b) in iter`` (``var`` empty)."""
    var: str
    iter: Expr
    body: tuple["Stmt", ...]
    span: Span = _span()
    names: tuple[str, ...] = _names()


@dataclass(frozen=True)
class Draw:
    """Chance: take one item at random from a bag and bind it to ``name``."""
    name: str
    source: LValue
    span: Span = _span()


@dataclass(frozen=True)
class Roll:
    """Chance with replacement: one item of a collection at random, each as
    likely as its copies in it (the collection is not changed); bound to ``name``."""
    name: str
    source: Expr
    span: Span = _span()
    seen: str = "all"     # who sees the outcome in play: all, owner (the player acting), nobody


@dataclass(frozen=True)
class Deal:
    """Chance: move ``count`` random items (fewer if it runs out) from a bag to a list."""
    count: Expr
    source: LValue
    dest: LValue
    span: Span = _span()


@dataclass(frozen=True)
class End:
    what: str   # "phase" or "turn"
    span: Span = _span()


@dataclass(frozen=True)
class Win:
    players: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Tie:
    span: Span = _span()


@dataclass(frozen=True)
class CallStmt:
    """``name(args)``: run the procedure ``name`` (a `proc`) with these
    arguments. ``params`` and ``body`` are the procedure's parameter names and
    statements, filled in once the procedures are known (``atoll.compiler.procs``),
    so that every reader of effects (and ``walk``) sees what a call does; the
    body is the procedure's own nodes, shared by all its calls."""
    proc: str
    args: tuple[Expr, ...]
    span: Span = _span()
    params: tuple[str, ...] = field(default=(), compare=False, repr=False)
    body: tuple["Stmt", ...] = field(default=(), compare=False, repr=False)
    emit: bool = field(default=False, metadata={"dump_if_set": True})   # written `emit E(args)`


@dataclass(frozen=True)
class Choose:
    """``choose name: type in domain by player``: the effect stops until
    ``player`` picks one item of ``domain``; the whole effect is one
    transaction (nothing of it happens until every choice in it is made)."""
    name: str
    type: Optional[TypeRef]
    domain: Expr
    player: Expr
    span: Span = _span()


Stmt = Union[Assign, Let, If, For, Draw, Roll, Deal, End, Win, Tie, CallStmt, Choose]


# ---------------------------------------------------------------- declarations

@dataclass(frozen=True)
class MetaEntry:
    key: str
    value: Union[str, int, tuple[int, int]]
    span: Span = _span()


@dataclass(frozen=True)
class GameDecl:
    name: str
    meta: tuple[MetaEntry, ...]
    span: Span = _span()


@dataclass(frozen=True)
class ExtendsDecl:
    path: str
    span: Span = _span()


@dataclass(frozen=True)
class OverrideDecl:
    """In a variant: the next declaration of ``name`` replaces the base one."""
    name: str
    span: Span = _span()


@dataclass(frozen=True)
class UnmodelledDecl:
    """A rule the model leaves out on purpose; the docs list it."""
    name: str
    notes: Notes = Notes()
    span: Span = _span()


@dataclass(frozen=True)
class EnumDecl:
    name: str
    members: tuple[str, ...]
    notes: Notes = Notes()
    span: Span = _span()


@dataclass(frozen=True)
class FieldDecl:
    name: str
    type: TypeRef
    span: Span = _span()


@dataclass(frozen=True)
class RecordDecl:
    name: str
    fields: tuple[FieldDecl, ...]
    notes: Notes = Notes()
    span: Span = _span()


@dataclass(frozen=True)
class DataDecl:
    name: str
    type: TypeRef
    path: str
    key: Optional[str] = None
    notes: Notes = Notes()
    span: Span = _span()


@dataclass(frozen=True)
class OptionDecl:
    kind: str   # "option" or "house" (a rulebook gap given a default)
    name: str
    type: TypeRef
    default: Expr
    notes: Notes = Notes()
    span: Span = _span()


@dataclass(frozen=True)
class RequireDecl:
    cond: Expr
    notes: Notes = Notes()
    span: Span = _span()


@dataclass(frozen=True)
class ConstDecl:
    name: str
    type: TypeRef
    value: Expr
    notes: Notes = Notes()
    span: Span = _span()


@dataclass(frozen=True)
class Param:
    name: str
    type: TypeRef
    span: Span = _span()


@dataclass(frozen=True)
class DefDecl:
    name: str
    params: tuple[Param, ...]
    type: TypeRef
    body: Expr
    notes: Notes = Notes()
    span: Span = _span()


@dataclass(frozen=True)
class ProcDecl:
    """``proc name(params) { statements }``: named effects, run by a call
    statement; they see their parameters and the game's global names only."""
    name: str
    params: tuple[Param, ...]
    body: tuple["Stmt", ...]
    notes: Notes = Notes()
    span: Span = _span()
    origin: str = field(default="", metadata={"dump_if_set": True})   # "event"/"trigger": made from one


@dataclass(frozen=True)
class EventDecl:
    """``event name(params)``: something that happens, which triggers answer."""
    name: str
    params: tuple[Param, ...]
    notes: Notes = Notes()
    span: Span = _span()


@dataclass(frozen=True)
class TriggerDecl:
    """``trigger name on event(names) [from x in D] [when c] [optional [by p]
    [when c2]] { body }``: effects run at each `emit` of the event, once per
    item ``x`` of ``D`` (once without `from`) for which ``c`` holds; an
    optional trigger (where ``c2`` holds) first asks ``p`` whether to use it."""
    name: str
    event: str
    names: tuple[str, ...]
    body: tuple["Stmt", ...]
    var: Optional[str] = None
    domain: Optional[Expr] = None
    when: Optional[Expr] = None
    optional: bool = False
    by: Optional[Expr] = None
    optional_when: Optional[Expr] = None
    notes: Notes = Notes()
    span: Span = _span()


@dataclass(frozen=True)
class ModifyDecl:
    """``modify f(names) by name [when c] => e``: where ``c`` holds, the
    result of the `def` ``f`` becomes ``e``, in which ``value`` is the result
    so far. Modifiers of one def apply in declaration order."""
    func: str
    names: tuple[str, ...]
    name: str
    when: Optional[Expr]
    value: Expr
    notes: Notes = Notes()
    span: Span = _span()


@dataclass(frozen=True)
class TeamsDecl:
    value: Expr
    notes: Notes = Notes()
    span: Span = _span()


@dataclass(frozen=True)
class VarDecl:
    scope: str   # "global", "player" or "phase"
    name: str
    type: TypeRef
    init: Expr
    visibility: str = "all"
    notes: Notes = Notes()
    span: Span = _span()


@dataclass(frozen=True)
class StateDecl:
    vars: tuple[VarDecl, ...]
    span: Span = _span()


@dataclass(frozen=True)
class SetupDecl:
    body: tuple[Stmt, ...]
    notes: Notes = Notes()
    span: Span = _span()


@dataclass(frozen=True)
class Stage:
    kind: str   # "turns", "simultaneous" or "around"
    players: Expr
    phases: tuple[str, ...]
    phase_spans: tuple[Span, ...] = field(default=(), compare=False, repr=False)
    span: Span = _span()
    until: Optional[Expr] = None     # "around": the stage ends when this holds
    keeper: Optional[str] = None     # "around": the global variable naming whose turn it is
    keeper_span: Optional[Span] = field(default=None, compare=False, repr=False)
    until_notes: "Notes" = _phrase()   # ``until c "in words"``


@dataclass(frozen=True)
class RoundDecl:
    cond: Optional[Expr]
    stages: tuple[Stage, ...]
    span: Span = _span()
    notes: "Notes" = _phrase()      # ``round when c "in words"``


@dataclass(frozen=True)
class FlowDecl:
    rounds: tuple[RoundDecl, ...]
    notes: Notes = Notes()
    span: Span = _span()


@dataclass(frozen=True)
class ActionParam:
    name: str
    type: TypeRef
    domain: Expr
    span: Span = _span()


@dataclass(frozen=True)
class Guard:
    kind: str   # "when" (checked before) or "ensures" (checked on the result)
    cond: Expr
    notes: Notes = Notes()
    span: Span = _span()


@dataclass(frozen=True)
class ActionDecl:
    name: str
    params: tuple[ActionParam, ...]
    guards: tuple[Guard, ...]
    body: tuple[Stmt, ...]
    notes: Notes = Notes()
    span: Span = _span()


@dataclass(frozen=True)
class PhaseDecl:
    name: str
    vars: tuple[VarDecl, ...]
    actions: tuple[ActionDecl, ...]
    enter: tuple[Stmt, ...] = ()
    auto: tuple[Stmt, ...] = ()
    done: Optional[Expr] = None
    repeat: Optional[Expr] = None
    notes: Notes = Notes()
    span: Span = _span()
    done_notes: Notes = _phrase()    # ``done when c "in words"``
    repeat_notes: Notes = _phrase()  # ``repeat when c "in words"``


@dataclass(frozen=True)
class OutcomeWin:
    players: Expr
    span: Span = _span()


@dataclass(frozen=True)
class OutcomeTie:
    span: Span = _span()


@dataclass(frozen=True)
class OutcomeRank:
    var: str
    keys: tuple[Expr, ...]
    tie: str = "tie"   # "tie" (nobody wins) or "shared" (all leaders win)
    span: Span = _span()


Outcome = Union[OutcomeWin, OutcomeTie, OutcomeRank]


@dataclass(frozen=True)
class EndingDecl:
    name: str
    time: str   # "immediately", "after_turn", "after_round"
    cond: Expr
    outcome: Outcome
    notes: Notes = Notes()
    span: Span = _span()


@dataclass(frozen=True)
class ScoreDecl:
    var: str
    value: Expr
    notes: Notes = Notes()
    span: Span = _span()



@dataclass(frozen=True)
class Binder:
    name: str
    type: TypeRef
    domain: Expr
    span: Span = _span()


@dataclass(frozen=True)
class ScriptStep:
    """``name(args) * times`` in a probability's `by` list: the action to
    play, the values of its parameters, how many times in a row. ``op`` is
    the operator written before ``times`` (only ``*`` is meaningful)."""
    name: str
    args: tuple[Expr, ...] = ()
    times: int = 1
    op: str = "*"
    span: Span = _span()


@dataclass(frozen=True)
class Rational:
    """An exact value ``num/den`` written in a property (``op`` the operator
    written between them; only ``/`` is meaningful)."""
    num: int
    den: int = 1
    op: str = "/"
    span: Span = _span()


@dataclass(frozen=True)
class PropertyDecl:
    """A property for `atoll verify`. ``kind``: theorem, witness, well_defined,
    invariant, action_invariant, deadlock_free, no_leak, terminates, reachable,
    almost_surely, probability, expectation. ``expect``: the verdict the author
    expects (proved, holds, violated, witness, no_witness, unknown), or None
    (expects it to hold)."""
    name: str
    kind: str
    body: Optional[Expr] = None
    binders: tuple[Binder, ...] = ()
    quantifier: str = ""   # "forall" (theorem) or "exists" (witness)
    when: Optional[Expr] = None
    objective: Optional[tuple[str, Expr]] = None
    show: int = 1
    step: str = ""
    expect: Optional[str] = None
    probability: Optional[int] = None   # `terminates with probability 1`
    fors: tuple[CompFor, ...] = ()       # `probability(E for r in D ...)`: the draws
    script: tuple[ScriptStep, ...] = ()  # `probability(E by a(), b() * 2)`: the actions
    compare: str = ""                    # the comparison with the stated value
    value: Optional[Rational] = None     # the stated probability or expectation
    action: str = ""                     # `invariant forall conquer(line): ...`: the action
    action_params: tuple[str, ...] = ()  # and the names given to its parameters
    assuming: tuple[str, ...] = ()       # `invariant E assuming A, B`: invariants assumed by its induction
    notes: Notes = Notes()
    span: Span = _span()


# ---------------------------------------------------------------- worked examples

def _name_span() -> Optional[Span]:
    """The span of a name inside a node (for diagnostics); not compared, not dumped."""
    return field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class ExSetting:
    """``with 4 players`` (kind players), ``seed 3`` (kind seed), ``refill =
    stage_ends`` (kind option). ``word``: the word written (`players`,
    `seed`, or the option's name); ``value``: an int, or the option's value."""
    kind: str
    word: str
    value: object
    span: Span = _span()


@dataclass(frozen=True)
class ExAction:
    """An action of an example: ``build("harbour", b: [...])``, optionally
    ``by PLAYER``. With ``choice``, a choice inside the effect of the action
    before it, ``choose NAME = VALUE``: ``name`` is the choice's name and
    ``args`` holds the value."""
    name: str
    args: tuple[Expr, ...] = ()
    named: tuple[NamedArg, ...] = ()
    by: Optional[Expr] = None
    span: Span = _span()
    choice: bool = False


@dataclass(frozen=True)
class ExValue:
    """A value of the position: ``hand[0] = [...]``; ``play.pending = []``
    for a phase's variable (``phase`` is then its phase)."""
    name: str
    phase: Optional[str]
    indices: tuple[Expr, ...]
    value: Expr
    span: Span = _span()


@dataclass(frozen=True)
class ExGiven:
    """``given player P in PHASE { values }``: the position, over the state after setup."""
    player: Optional[Expr]
    phase: Optional[str]
    values: tuple[ExValue, ...]
    span: Span = _span()
    name_span: Optional[Span] = _name_span()


@dataclass(frozen=True)
class ExPlay:
    """``play a(...), b(...)``: actions played in turn (``word`` is the word written)."""
    word: str
    actions: tuple[ExAction, ...]
    span: Span = _span()


@dataclass(frozen=True)
class ExRefusal:
    """Why an action is illegal: a `when` (kind when, ``cond``), an `ensures`
    (kind ensures), a parameter whose choices leave the value out (kind
    choice, ``name``), or another phase (kind phase)."""
    kind: str
    cond: Optional[Expr] = None
    name: str = ""
    span: Span = _span()


@dataclass(frozen=True)
class ExExpect:
    """``expect ...``: kind true (``value`` holds), legal / illegal
    (``action``, with ``refusal``), win (``value``: the winners), tie, score
    (``value``: the scores in seat order), ending (``name``), player
    (``value``: who is to act, in phase ``name`` if given)."""
    kind: str
    value: Optional[Expr] = None
    action: Optional[ExAction] = None
    refusal: Optional[ExRefusal] = None
    name: str = ""
    span: Span = _span()
    name_span: Optional[Span] = _name_span()


ExStep = Union[ExGiven, ExPlay, ExExpect]


@dataclass(frozen=True)
class ExampleDecl:
    """A worked example of the rulebook, run by `atoll verify`."""
    name: str
    settings: tuple[ExSetting, ...]
    steps: tuple[ExStep, ...]
    notes: Notes = Notes()
    span: Span = _span()


Item = Union[GameDecl, ExtendsDecl, OverrideDecl, UnmodelledDecl, EnumDecl, RecordDecl, DataDecl,
             OptionDecl, RequireDecl, ConstDecl, DefDecl, ProcDecl, EventDecl, TriggerDecl, ModifyDecl,
             TeamsDecl, StateDecl,
             SetupDecl, PhaseDecl, FlowDecl, EndingDecl, ScoreDecl, PropertyDecl, ExampleDecl]


@dataclass(frozen=True)
class Spec:
    file: str
    items: tuple[Item, ...]


# Fields that hold source positions, not parts of the tree.
_NOT_NODES = ("span", "phase_spans", "name_span")


_PARTS: dict = {}   # class -> the names of its fields that may hold nodes, or None (see walk)


def _parts(cls):
    try:
        return _PARTS[cls]
    except KeyError:
        names = tuple(f.name for f in fields(cls) if f.name not in _NOT_NODES) if is_dataclass(cls) else None
        _PARTS[cls] = names
        return names


def walk(node):
    """Every node inside ``node`` (itself included), depth first (in the
    order of the fields; a stack instead of recursion)."""
    stack = [node]
    pop, push = stack.pop, stack.extend
    while stack:
        n = pop()
        cls = n.__class__
        if cls is tuple or cls is list:
            push(reversed(n))
            continue
        names = None if cls is type else _parts(cls)
        if names is not None:
            yield n
            push([getattr(n, f) for f in reversed(names)])
        elif cls is type:   # pragma: no cover - a class object in the tree
            if is_dataclass(n):
                yield n
                push([getattr(n, f.name) for f in reversed(fields(n)) if f.name not in _NOT_NODES])
        elif isinstance(n, (tuple, list)):   # (a leaf, not of a dataclass, is_dataclass would say)
            push(reversed(n))


def to_data(node):
    """Dump an AST (or any part of it) to JSON-able data, without spans."""
    if is_dataclass(node):
        out = {"node": type(node).__name__}
        for f in fields(node):
            if f.name in _NOT_NODES:
                continue
            if f.metadata.get("dump_if_set") and getattr(node, f.name) in ((), None, Notes()):
                continue
            out[f.name] = to_data(getattr(node, f.name))
        return out
    if isinstance(node, (tuple, list)):
        return [to_data(x) for x in node]
    return node


# ---------------------------------------------------------------- quicker constructors

def _quick_init(cls) -> None:
    """Give a frozen dataclass of this module an ``__init__`` that fills the
    instance's ``__dict__`` directly (what the generated one does through
    ``object.__setattr__``, one call per field): the same arguments,
    defaults and default factories; about 40% less time per node, and the
    parser makes tens of thousands. The code is made from the field names
    only."""
    params, body, scope = [], [], {"_MISSING": object()}
    for i, f in enumerate(fields(cls)):
        if not f.init:   # pragma: no cover - no such field here
            raise TypeError(f"{cls.__name__}.{f.name}: a field left out of __init__")
        if f.default is not MISSING:
            scope[f"_d{i}"] = f.default
            params.append(f"{f.name}=_d{i}")
            body.append(f"    d[{f.name!r}] = {f.name}")
        elif f.default_factory is not MISSING:
            scope[f"_f{i}"] = f.default_factory
            params.append(f"{f.name}=_MISSING")
            body.append(f"    d[{f.name!r}] = _f{i}() if {f.name} is _MISSING else {f.name}")
        else:
            params.append(f.name)
            body.append(f"    d[{f.name!r}] = {f.name}")
    src = f"def __init__(self, {', '.join(params)}):\n    d = self.__dict__\n" + "\n".join(body) + "\n"
    exec(compile(src, f"<ast.{cls.__name__}.__init__>", "exec"), scope)
    init = scope["__init__"]
    init.__qualname__ = f"{cls.__name__}.__init__"
    cls.__init__ = init


def _quick_inits() -> None:
    for value in list(globals().values()):
        if isinstance(value, type) and value.__module__ == __name__ and is_dataclass(value) \
                and value.__dataclass_params__.frozen and "__post_init__" not in vars(value) \
                and not hasattr(value, "__slots__"):
            _quick_init(value)


_quick_inits()
