"""The label-selector syntax of `kubectl -l` / `oc ... --selector` (apimachinery
`labels.Parse`): `k=v`, `k==v`, `k!=v`, `k`, `!k`, `k in (a,b)`, `k notin (a,b)`,
`k>1`, `k<1`, comma-separated. The one parser of selector strings: the board's node filter
and the `oc` commands both read selectors with it, and its errors are apimachinery's texts.

Structured selectors (a LabelSelector's matchLabels/matchExpressions, node selector terms)
are built from documents, not parsed from text: see scheduler/predicates/node_selector.py.

Upstream: staging/src/k8s.io/apimachinery/pkg/labels/selector.go (Lexer, Parser,
NewRequirement, Requirement.Matches).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from scheduling.engine.api.validation import is_qualified_name, is_valid_label_value


class SelectorError(ValueError):
    """A selector that does not parse; str() is apimachinery's message."""


# selection.Operator values
IN, NOT_IN, EQUALS, DOUBLE_EQUALS, NOT_EQUALS = "in", "notin", "=", "==", "!="
EXISTS, DOES_NOT_EXIST, GREATER_THAN, LESS_THAN = "exists", "!", "gt", "lt"
BINARY_OPERATORS = (IN, NOT_IN, EQUALS, DOUBLE_EQUALS, NOT_EQUALS, GREATER_THAN, LESS_THAN)


def _go_int(text: str) -> int | None:
    """strconv.ParseInt(text, 10, 64); None where Go returns an error."""
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
        have = _go_int(labels[self.key]) if self.key in labels else None
        want = _go_int(self.values[0]) if len(self.values) == 1 else None
        if have is None or want is None:
            return False
        return have > want if op == GREATER_THAN else have < want


@dataclass(frozen=True)
class Selector:
    """A parsed selector: every requirement must match; no requirement selects everything."""

    requirements: tuple[Requirement, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        return all(r.matches(labels) for r in self.requirements)

    def __bool__(self) -> bool:
        return bool(self.requirements)


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
        if _go_int(values[0]) is None:
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
