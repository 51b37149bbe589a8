"""The one label-selector matcher, and the label-selector syntax of `kubectl -l` / `oc ...
--selector` (apimachinery `labels.Parse`): `k=v`, `k==v`, `k!=v`, `k`, `!k`, `k in (a,b)`,
`k notin (a,b)`, `k>1`, `k<1`, comma-separated.

Every selector of the simulator is a `Selector` of `Requirement`s built here and evaluated by
`Requirement.matches` (labels.Requirement.Matches), whether parsed from text (the board's
node filter, the `oc` commands) or built from a document: a LabelSelector's matchLabels and
matchExpressions (`label_selector_as_selector`, metav1.LabelSelectorAsSelector), a node
selector term's matchExpressions (`node_selector_requirements_as_selector`, nodeaffinity's
nodeSelectorRequirementsAsSelector), a plain map (`selector_from_set`, labels.SelectorFromSet)
and a term's matchFields (`node_field_selector_matches`). Errors are apimachinery's texts;
Gt and Lt parse their operands as Go's strconv.ParseInt(s, 10, 64).

Upstream: staging/src/k8s.io/apimachinery/pkg/labels/selector.go (Lexer, Parser,
NewRequirement, Requirement.Matches, Requirement.String), apimachinery pkg/apis/meta/v1
helpers.go (LabelSelectorAsSelector, FormatLabelSelector), component-helpers
scheduling/corev1/nodeaffinity/nodeaffinity.go.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterable, Mapping

from scheduling.engine.api.validation.field import is_qualified_name, is_valid_label_value


class SelectorError(ValueError):
    """A selector that does not parse; str() is apimachinery's message."""


# selection.Operator values
IN, NOT_IN, EQUALS, DOUBLE_EQUALS, NOT_EQUALS = "in", "notin", "=", "==", "!="
EXISTS, DOES_NOT_EXIST, GREATER_THAN, LESS_THAN = "exists", "!", "gt", "lt"
BINARY_OPERATORS = (IN, NOT_IN, EQUALS, DOUBLE_EQUALS, NOT_EQUALS, GREATER_THAN, LESS_THAN)


def go_parse_int(text: str) -> int | None:
    """strconv.ParseInt(text, 10, 64); None where Go returns an error: an optional sign
    then ASCII digits only (no spaces, no underscores, no other digits), within int64."""
    body = text[1:] if text[:1] in "+-" else text
    if not body or not body.isascii() or not body.isdigit():
        return None
    n = int(text)
    return n if -(2**63) <= n < 2**63 else None


@dataclass(frozen=True)
class Requirement:
    key: str
    operator: str
    values: tuple[str, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        """labels.Requirement.Matches."""
        op = self.operator
        if op in (IN, EQUALS, DOUBLE_EQUALS):
            return self.key in labels and labels[self.key] in self.values
        if op in (NOT_IN, NOT_EQUALS):
            return self.key not in labels or labels[self.key] not in self.values
        if op == EXISTS:
            return self.key in labels
        if op == DOES_NOT_EXIST:
            return self.key not in labels
        if op not in (GREATER_THAN, LESS_THAN):
            return False
        have = go_parse_int(labels[self.key]) if self.key in labels else None
        want = go_parse_int(self.values[0]) if len(self.values) == 1 else None
        if have is None or want is None:
            return False
        return have > want if op == GREATER_THAN else have < want

    def __str__(self) -> str:
        """labels.Requirement.String."""
        if self.operator == EXISTS:
            return self.key
        if self.operator == DOES_NOT_EXIST:
            return "!" + self.key
        if self.operator in (IN, NOT_IN):
            return f"{self.key} {self.operator} ({','.join(self.values)})"
        symbol = {GREATER_THAN: ">", LESS_THAN: "<"}.get(self.operator, self.operator)
        return f"{self.key}{symbol}{','.join(self.values)}"


@dataclass(frozen=True)
class Selector:
    """A selector: every requirement must match; no requirement selects everything;
    `nothing` (labels.Nothing()) selects no object."""

    requirements: tuple[Requirement, ...] = ()
    nothing: bool = False

    def matches(self, labels: Mapping[str, str]) -> bool:
        return not self.nothing and all(r.matches(labels) for r in self.requirements)

    def empty(self) -> bool:
        """labels.Selector.Empty: selects everything."""
        return not self.nothing and not self.requirements

    def __bool__(self) -> bool:
        return bool(self.requirements)

    def __str__(self) -> str:
        """labels.Selector.String: the requirements, comma-separated."""
        return ",".join(str(r) for r in self.requirements)


EVERYTHING = Selector()
NOTHING = Selector(nothing=True)


def new_requirement(key: str, op: str, values: list[str]) -> Requirement:
    """labels.NewRequirement: raises SelectorError with apimachinery's message."""
    errs = is_qualified_name(key)
    if errs:
        raise SelectorError(f"invalid label key {_go_quote(key)}: {'; '.join(errs)}")
    if op in (IN, NOT_IN):
        if not values:
            raise SelectorError("for 'in', 'notin' operators, values set can't be empty")
    elif op in (EQUALS, DOUBLE_EQUALS, NOT_EQUALS):
        if len(values) != 1:
            raise SelectorError("exact-match compatibility requires one single value")
    elif op in (EXISTS, DOES_NOT_EXIST):
        if values:
            raise SelectorError("values set must be empty for exists and does not exist")
    elif op in (GREATER_THAN, LESS_THAN):
        if len(values) != 1:
            raise SelectorError("for 'Gt', 'Lt' operators, exactly one value is required")
        if go_parse_int(values[0]) is None:
            raise SelectorError("for 'Gt', 'Lt' operators, the value must be an integer")
    else:
        raise SelectorError(f"operator '{op}' is not recognized")
    for v in values:
        errs = is_valid_label_value(v)
        if errs:
            raise SelectorError(f"invalid label value: {_go_quote(v)}: {'; '.join(errs)}")
    return Requirement(key, op, tuple(sorted(values)))


def _go_quote(text: str) -> str:
    """Go's %q for the plain text a selector holds."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


# --- selectors built from documents ---------------------------------------------------------------

# The API's operator names -> selection.Operator: a LabelSelector's (metav1.LabelSelectorOperator)
# and a node selector's (v1.NodeSelectorOperator, which adds Gt and Lt).
LABEL_SELECTOR_OPERATORS = {"In": IN, "NotIn": NOT_IN, "Exists": EXISTS, "DoesNotExist": DOES_NOT_EXIST}
NODE_SELECTOR_OPERATORS = {**LABEL_SELECTOR_OPERATORS, "Gt": GREATER_THAN, "Lt": LESS_THAN}
# The operators that take no values (a requirement with values is refused).
VALUELESS_OPERATORS = ("Exists", "DoesNotExist")

Expression = tuple[str, str, tuple[str, ...]]  # (key, the API's operator name, values)


@lru_cache(maxsize=4096)
def _label_selector(match_labels: tuple[tuple[str, str], ...], expressions: tuple[Expression, ...]) -> Selector | str:
    try:
        built = [new_requirement(k, EQUALS, [v]) for k, v in match_labels]
        for key, op, values in expressions:
            if op not in LABEL_SELECTOR_OPERATORS:
                raise SelectorError(f"{_go_quote(op)} is not a valid pod selector operator")
            built.append(new_requirement(key, LABEL_SELECTOR_OPERATORS[op], list(values)))
    except SelectorError as e:
        return str(e)
    return Selector(tuple(sorted(built, key=lambda r: r.key)))


def label_selector_as_selector(match_labels: Iterable[tuple[str, str]] | None,
                               expressions: Iterable[Expression] = ()) -> Selector:
    """metav1.LabelSelectorAsSelector: `match_labels` None (a nil selector) selects nothing,
    an empty selector everything; raises SelectorError with apimachinery's message."""
    if match_labels is None:
        return NOTHING
    labels, exprs = tuple(match_labels), tuple(expressions)
    if not labels and not exprs:
        return EVERYTHING
    result = _label_selector(labels, exprs)
    if isinstance(result, str):
        raise SelectorError(result)
    return result


@lru_cache(maxsize=4096)
def _node_selector(expressions: tuple[Expression, ...]) -> Selector | str:
    if not expressions:
        return NOTHING
    try:
        built = []
        for key, op, values in expressions:
            if op not in NODE_SELECTOR_OPERATORS:
                raise SelectorError(f"{_go_quote(op)} is not a valid node selector operator")
            built.append(new_requirement(key, NODE_SELECTOR_OPERATORS[op], list(values)))
    except SelectorError as e:
        return str(e)
    return Selector(tuple(built))


def node_selector_requirements_as_selector(expressions: Iterable[Expression]) -> Selector:
    """nodeaffinity's nodeSelectorRequirementsAsSelector (v1helper.NodeSelectorRequirementsAsSelector):
    no expression selects nothing; raises SelectorError with apimachinery's message."""
    result = _node_selector(tuple(expressions))
    if isinstance(result, str):
        raise SelectorError(result)
    return result


@lru_cache(maxsize=4096)
def _selector_from_items(items: tuple[tuple[str, str], ...]) -> Selector:
    try:
        return Selector(tuple(new_requirement(k, EQUALS, [v]) for k, v in items))
    except SelectorError:
        return EVERYTHING


def selector_from_set(labels: Mapping[str, Any] | None) -> Selector:
    """labels.SelectorFromSet (labels.Set(m).AsSelector): an empty map selects everything, and
    so does a map with an invalid key or value (the function gives up and returns the empty selector)."""
    if not labels:
        return EVERYTHING
    return _selector_from_items(tuple(sorted((k, str(v)) for k, v in labels.items())))


def _field_error(expressions: tuple[Expression, ...]) -> str | None:
    for _, op, values in expressions:
        if op not in ("In", "NotIn"):
            return f"{_go_quote(op)} is not a valid node field selector operator"
        if len(values) != 1:
            return f"unexpected number of value ({len(values)}) for node field selector operator {_go_quote(op)}"
    return None


def node_field_selector_matches(expressions: Iterable[Expression], fields: Mapping[str, str]) -> bool:
    """A term's matchFields (v1helper.NodeSelectorRequirementsAsFieldSelector, only In/NotIn
    with one value, then fields.Selector.Matches): no expression or an invalid one matches
    nothing; a missing field reads as "" (OneTermEqualSelector / OneTermNotEqualSelector)."""
    exprs = tuple(expressions)
    if not exprs or _field_error(exprs) is not None:
        return False
    return all(Requirement(key, IN if op == "In" else NOT_IN, values).matches({key: fields.get(key, "")})
               for key, op, values in exprs)


def format_label_selector(match_labels: Mapping[str, Any] | None, expressions: Iterable[Expression] = ()) -> str:
    """metav1.FormatLabelSelector: the selector's String(), "<none>" when empty, "<error>"
    when apimachinery refuses to build it."""
    try:
        text = str(label_selector_as_selector(sorted((k, str(v)) for k, v in (match_labels or {}).items()), expressions))
    except SelectorError:
        return "<error>"
    return text or "<none>"


def expressions_of(raw: Iterable[Mapping[str, Any]] | None) -> tuple[Expression, ...]:
    """The (key, operator, values) of a document's matchExpressions / matchFields."""
    return tuple((str(e.get("key") or ""), str(e.get("operator") or ""), tuple(str(v) for v in e.get("values") or ()))
                 for e in raw or () if isinstance(e, Mapping))


# --- the lexer ---------------------------------------------------------------------------------

_ERROR, _END, _CLOSE, _COMMA, _NOT, _DOUBLE_EQUALS, _EQUALS, _GT, _ID, _IN, _LT, _NOT_EQUALS, _NOT_IN, _OPEN = range(14)
_TOKENS = {
    ")": _CLOSE, ",": _COMMA, "!": _NOT, "==": _DOUBLE_EQUALS, "=": _EQUALS, ">": _GT, "in": _IN,
    "<": _LT, "!=": _NOT_EQUALS, "notin": _NOT_IN, "(": _OPEN,
}
_SPECIAL = set("=!(),><")
_SPACE = set(" \t\r\n")


def _lex(text: str) -> list[tuple[int, str]]:
    items, pos, n = [], 0, len(text)
    while True:
        while pos < n and text[pos] in _SPACE:
            pos += 1
        if pos >= n:
            items.append((_END, ""))
            return items
        if text[pos] in _SPECIAL:
            # the longest run of special symbols that is still a token
            buffer, last = "", None
            while pos < n and text[pos] in _SPECIAL:
                buffer += text[pos]
                if buffer in _TOKENS:
                    last = (_TOKENS[buffer], buffer)
                    pos += 1
                elif last is not None:
                    break
                else:
                    pos += 1
            items.append(last if last is not None else (_ERROR, f"error expected: keyword found '{buffer}'"))
        else:
            start = pos
            while pos < n and text[pos] not in _SPECIAL and text[pos] not in _SPACE:
                pos += 1
            word = text[start:pos]
            items.append((_TOKENS.get(word, _ID), word))


# --- the parser -----------------------------------------------------------------------------------


class _Parser:
    def __init__(self, text: str):
        self.items = _lex(text)
        self.position = 0

    def lookahead(self, values: bool = True) -> tuple[int, str]:
        tok, lit = self.items[self.position]
        return (_ID if values and tok in (_IN, _NOT_IN) else tok), lit

    def consume(self, values: bool = True) -> tuple[int, str]:
        tok, lit = self.lookahead(values)
        self.position += 1
        return tok, lit

    def parse(self) -> list[Requirement]:
        requirements = []
        while True:
            tok, lit = self.lookahead()
            if tok in (_ID, _NOT):
                try:
                    requirements.append(self.requirement())
                except SelectorError as exc:
                    raise SelectorError(f"unable to parse requirement: {exc}") from None
                tok, lit = self.consume()
                if tok == _END:
                    return requirements
                if tok == _COMMA:
                    tok2, lit2 = self.lookahead()
                    if tok2 not in (_ID, _NOT):
                        raise SelectorError(f"found '{lit2}', expected: identifier after ','")
                else:
                    raise SelectorError(f"found '{lit}', expected: ',' or 'end of string'")
            elif tok == _END:
                return requirements
            else:
                raise SelectorError(f"found '{lit}', expected: !, identifier, or 'end of string'")

    def requirement(self) -> Requirement:
        key, op = self.key_and_inferred_operator()
        if op in (EXISTS, DOES_NOT_EXIST):
            return new_requirement(key, op, [])
        op = self.operator()
        values = self.values() if op in (IN, NOT_IN) else self.exact_value()
        return new_requirement(key, op, sorted(values))

    def key_and_inferred_operator(self) -> tuple[str, str]:
        op = ""
        tok, lit = self.consume()
        if tok == _NOT:
            op = DOES_NOT_EXIST
            tok, lit = self.consume()
        if tok != _ID:
            raise SelectorError(f"found '{lit}', expected: identifier")
        errs = is_qualified_name(lit)
        if errs:
            raise SelectorError(f"invalid label key {_go_quote(lit)}: {'; '.join(errs)}")
        if self.lookahead()[0] in (_END, _COMMA) and op != DOES_NOT_EXIST:
            op = EXISTS
        return lit, op

    def operator(self) -> str:
        tok, lit = self.consume(values=False)
        ops = {_IN: IN, _EQUALS: EQUALS, _DOUBLE_EQUALS: DOUBLE_EQUALS, _GT: GREATER_THAN, _LT: LESS_THAN,
               _NOT_IN: NOT_IN, _NOT_EQUALS: NOT_EQUALS}
        if tok not in ops:
            raise SelectorError(f"found '{lit}', expected: {', '.join(BINARY_OPERATORS)}")
        return ops[tok]

    def values(self) -> set[str]:
        tok, lit = self.consume()
        if tok != _OPEN:
            raise SelectorError(f"found '{lit}' expected: '('")
        tok, lit = self.lookahead()
        if tok in (_ID, _COMMA):
            found = self.identifiers()
            if self.consume()[0] != _CLOSE:
                raise SelectorError(f"found '{lit}', expected: ')'")
            return found
        if tok == _CLOSE:
            self.consume()
            return {""}
        raise SelectorError(f"found '{lit}', expected: ',', ')' or identifier")

    def identifiers(self) -> set[str]:
        found: set[str] = set()
        while True:
            tok, lit = self.consume()
            if tok == _ID:
                found.add(lit)
                tok2, lit2 = self.lookahead()
                if tok2 == _COMMA:
                    continue
                if tok2 == _CLOSE:
                    return found
                raise SelectorError(f"found '{lit2}', expected: ',' or ')'")
            if tok == _COMMA:
                if not found:
                    found.add("")  # "(,"
                tok2 = self.lookahead()[0]
                if tok2 == _CLOSE:
                    found.add("")  # ",)"
                    return found
                if tok2 == _COMMA:
                    found.add("")  # ",,"
                continue
            raise SelectorError(f"found '{lit}', expected: ',', or identifier")

    def exact_value(self) -> set[str]:
        tok = self.lookahead()[0]
        if tok in (_END, _COMMA):
            return {""}
        tok, lit = self.consume()
        if tok == _ID:
            return {lit}
        raise SelectorError(f"found '{lit}', expected: identifier")


def parse(text: str) -> Selector:
    """labels.Parse: the selector `text` means; SelectorError with apimachinery's message.
    An empty text selects everything. Requirements are sorted by key, as upstream."""
    requirements = _Parser(text or "").parse()
    return Selector(tuple(sorted(requirements, key=lambda r: r.key)))
