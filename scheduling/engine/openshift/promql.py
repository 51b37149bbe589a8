"""A small PromQL evaluator: enough of the language for the update risks of the graph
data (selectors with = != =~ !~ matchers, range selectors read as instants, group / max /
min / sum / count / topk / bottomk with `by`, max_over_time, label_replace, arithmetic and
comparison with scalars, `or`, and vector matching `on (...)` / `group_left (...)`), over
an instant vector of simulated series. The CVO asks for one sample whose value is 0 or 1;
anything else is an evaluation error (engine.openshift.graph turns it into EvaluationFailed).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

NAME = "__name__"
Labels = tuple[tuple[str, str], ...]  # sorted (name, value) pairs


class PromQLError(Exception):
    pass


@dataclass(frozen=True)
class Sample:
    labels: Labels
    value: float

    def get(self, name: str) -> str:
        for k, v in self.labels:
            if k == name:
                return v
        return ""


def labels(mapping: Mapping[str, Any]) -> Labels:
    return tuple(sorted((str(k), str(v)) for k, v in mapping.items() if str(v) != ""))


def series(metric: str, value: float = 1, **label_values: Any) -> Sample:
    return Sample(labels({NAME: metric, **label_values}), float(value))


# --- lexer -------------------------------------------------------------------------------------------------

_TOKEN = re.compile(
    r"\s*(?:(?P<num>\d+(?:\.\d+)?)|(?P<dur>\[\d+[smhdw]\])|(?P<str>\"(?:[^\"\\]|\\.)*\")|"
    r"(?P<op>==|!=|>=|<=|=~|!~|[-+*/(){},=<>])|(?P<ident>[A-Za-z_:][A-Za-z0-9_:]*))"
)


def _tokens(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise PromQLError(f"unexpected character at position {pos}: {text[pos]!r}")
        pos = m.end()
        kind = m.lastgroup or ""
        value = m.group(kind)
        if kind == "str":
            value = bytes(value[1:-1], "utf-8").decode("unicode_escape")
        out.append((kind, value))
    return out


# --- parser: expressions become small tuples ---------------------------------------------------------------

_AGGREGATIONS = {"group", "max", "min", "sum", "count", "topk", "bottomk"}
_FUNCTIONS = {"max_over_time", "label_replace"}
_PRECEDENCE = [("or",), ("and", "unless"), ("==", "!=", ">", "<", ">=", "<="), ("+", "-"), ("*", "/")]


class _Parser:
    def __init__(self, text: str):
        self.toks = _tokens(text)
        self.i = 0

    def peek(self, offset: int = 0) -> tuple[str, str]:
        j = self.i + offset
        return self.toks[j] if j < len(self.toks) else ("eof", "")

    def take(self, value: str | None = None) -> tuple[str, str]:
        tok = self.peek()
        if value is not None and tok[1] != value:
            raise PromQLError(f"expected {value!r}, found {tok[1] or 'end of input'!r}")
        self.i += 1
        return tok

    def parse(self):
        node = self.binary(0)
        if self.peek()[0] != "eof":
            raise PromQLError(f"unexpected {self.peek()[1]!r}")
        return node

    def label_list(self) -> tuple[str, ...]:
        self.take("(")
        names: list[str] = []
        while self.peek()[1] != ")":
            names.append(self.take()[1])
            if self.peek()[1] == ",":
                self.take(",")
        self.take(")")
        return tuple(names)

    def binary(self, level: int):
        if level == len(_PRECEDENCE):
            return self.unary()
        left = self.binary(level + 1)
        while self.peek()[1] in _PRECEDENCE[level] and self.peek()[0] in ("op", "ident"):
            op = self.take()[1]
            on = None
            group_left = None
            if self.peek()[1] == "on":
                self.take()
                on = self.label_list()
            if self.peek()[1] == "group_left":
                self.take()
                group_left = self.label_list() if self.peek()[1] == "(" else ()
            right = self.binary(level + 1)
            left = ("bin", op, left, right, on, group_left)
        return left

    def unary(self):
        if self.peek()[1] == "-":
            self.take()
            return ("bin", "*", ("num", -1.0), self.unary(), None, None)
        return self.primary()

    def primary(self):
        kind, value = self.peek()
        if kind == "num":
            self.take()
            return ("num", float(value))
        if value == "(":
            self.take()
            node = self.binary(0)
            self.take(")")
            return node
        if kind != "ident":
            raise PromQLError(f"unexpected {value or 'end of input'!r}")
        if value in _AGGREGATIONS and self.peek(1)[1] in ("(", "by", "without"):
            return self.aggregation()
        if value in _FUNCTIONS and self.peek(1)[1] == "(":
            self.take()
            self.take("(")
            args = [self.binary(0)]
            while self.peek()[1] == ",":
                self.take(",")
                args.append(self.binary(0) if self.peek()[0] != "str" else ("str", self.take()[1]))
            self.take(")")
            return ("call", value, args)
        return self.selector()

    def aggregation(self):
        op = self.take()[1]
        by = None
        if self.peek()[1] == "by":
            self.take()
            by = self.label_list()
        elif self.peek()[1] == "without":
            raise PromQLError("without is not supported")
        self.take("(")
        param = None
        if op in ("topk", "bottomk"):
            param = self.binary(0)
            self.take(",")
        inner = self.binary(0)
        self.take(")")
        if self.peek()[1] == "by":
            self.take()
            by = self.label_list()
        return ("agg", op, by, param, inner)

    def selector(self):
        name = self.take()[1]
        matchers: list[tuple[str, str, str]] = [(NAME, "=", name)]
        if self.peek()[1] == "{":
            self.take("{")
            while self.peek()[1] != "}":
                label = self.take()[1]
                op = self.take()[1]
                if op not in ("=", "!=", "=~", "!~"):
                    raise PromQLError(f"unexpected matcher operator {op!r}")
                kind, value = self.take()
                if kind != "str":
                    raise PromQLError("label matcher value must be a string")
                matchers.append((label, op, value))
                if self.peek()[1] == ",":
                    self.take(",")
            self.take("}")
        if self.peek()[0] == "dur":
            self.take()  # the simulated series are constant: a range reads as the instant
        return ("sel", tuple(matchers))


# --- evaluation ---------------------------------------------------------------------------------------------


def _matches(sample: Sample, matchers) -> bool:
    for label, op, value in matchers:
        have = sample.get(label)
        if op == "=" and have != value:
            return False
        if op == "!=" and have == value:
            return False
        if op in ("=~", "!~"):
            hit = re.fullmatch(value, have) is not None
            if hit != (op == "=~"):
                return False
    return True


def _drop_name(ls: Labels) -> Labels:
    return tuple(p for p in ls if p[0] != NAME)


def _only(ls: Labels, names: Sequence[str]) -> Labels:
    return tuple(p for p in ls if p[0] in names)


def _signature(ls: Labels, on: Sequence[str] | None) -> Labels:
    return _only(ls, on) if on is not None else _drop_name(ls)


_ARITH = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / b if b else math.copysign(math.inf, a) if a else math.nan,
}
_COMPARE = {
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, ">": lambda a, b: a > b,
    "<": lambda a, b: a < b, ">=": lambda a, b: a >= b, "<=": lambda a, b: a <= b,
}


class Dataset:
    """Samples with an index by metric name, built once for every query evaluated on them
    (a selector naming its metric reads only that metric's samples, in the same order)."""

    def __init__(self, samples: Iterable[Sample]):
        self.samples = list(samples)
        self.by_name: dict[str, list[Sample]] = {}
        for s in self.samples:
            self.by_name.setdefault(s.get(NAME), []).append(s)

    def select(self, matchers) -> list[Sample]:
        candidates = self.samples
        for label, op, value in matchers:
            if label == NAME and op == "=":
                candidates = self.by_name.get(value, [])
                break
        return [s for s in candidates if _matches(s, matchers)]


class Evaluator:
    def __init__(self, data: Iterable[Sample] | Dataset):
        self.data = data if isinstance(data, Dataset) else Dataset(data)

    def eval(self, node):
        kind = node[0]
        if kind == "num":
            return node[1]
        if kind == "str":
            return node[1]
        if kind == "sel":
            return self.data.select(node[1])
        if kind == "agg":
            return self._agg(*node[1:])
        if kind == "call":
            return self._call(node[1], node[2])
        return self._bin(*node[1:])

    def _vector(self, node) -> list[Sample]:
        value = self.eval(node)
        if not isinstance(value, list):
            raise PromQLError("expected an instant vector")
        return value

    def _agg(self, op, by, param, inner):
        vec = self._vector(inner)
        groups: dict[Labels, list[Sample]] = {}
        for s in vec:
            groups.setdefault(_only(s.labels, by or ()), []).append(s)
        out: list[Sample] = []
        if op in ("topk", "bottomk"):
            k = self.eval(param)
            if not isinstance(k, float):
                raise PromQLError("topk parameter must be a scalar")
            for members in groups.values():
                ranked = sorted(members, key=lambda s: s.value, reverse=(op == "topk"))
                out += [Sample(_drop_name(s.labels), s.value) for s in ranked[: int(k)]]
            return out
        for key, members in groups.items():
            values = [s.value for s in members]
            value = {"group": lambda v: 1.0, "max": max, "min": min, "sum": sum, "count": lambda v: float(len(v))}[op](values)
            out.append(Sample(key, float(value)))
        return out

    def _call(self, name, args):
        if name == "max_over_time":
            return [Sample(_drop_name(s.labels), s.value) for s in self._vector(args[0])]
        if len(args) != 5 or not all(isinstance(a, tuple) and a[0] == "str" for a in args[1:]):
            raise PromQLError("label_replace takes a vector and four strings")
        dst, repl, src, regex = (a[1] for a in args[1:])
        out = []
        for s in self._vector(args[0]):
            m = re.fullmatch(regex, s.get(src))
            if m is None:
                out.append(s)
                continue
            value = re.sub(r"\$(\d+)", lambda g: m.group(int(g.group(1))) or "", repl)
            d = dict(s.labels)
            d[dst] = value
            out.append(Sample(labels(d), s.value))
        return out

    def _bin(self, op, lnode, rnode, on, group_left):
        left, right = self.eval(lnode), self.eval(rnode)
        if op in ("or", "and", "unless"):
            if not isinstance(left, list) or not isinstance(right, list):
                raise PromQLError(f"set operator {op} not allowed in binary scalar expression")
            sigs = {_signature(s.labels, on) for s in left}
            if op == "or":
                return left + [s for s in right if _signature(s.labels, on) not in sigs]
            rsigs = {_signature(s.labels, on) for s in right}
            keep = (lambda s: _signature(s.labels, on) in rsigs) if op == "and" else (lambda s: _signature(s.labels, on) not in rsigs)
            return [s for s in left if keep(s)]
        compare = op in _COMPARE
        fn = _COMPARE[op] if compare else _ARITH[op]
        if isinstance(left, float) and isinstance(right, float):
            if compare:
                raise PromQLError("comparisons between scalars must use BOOL modifier")
            return fn(left, right)
        if isinstance(right, float):
            if compare:
                return [s for s in left if fn(s.value, right)]
            return [Sample(_drop_name(s.labels), fn(s.value, right)) for s in left]
        if isinstance(left, float):
            if compare:
                return [s for s in right if fn(left, s.value)]
            return [Sample(_drop_name(s.labels), fn(left, s.value)) for s in right]
        # vector to vector
        by_sig: dict[Labels, list[Sample]] = {}
        for s in right:
            by_sig.setdefault(_signature(s.labels, on), []).append(s)
        out: list[Sample] = []
        seen: set[Labels] = set()
        for s in left:
            sig = _signature(s.labels, on)
            matches = by_sig.get(sig, [])
            if not matches:
                continue
            if len(matches) > 1:
                raise PromQLError("found duplicate series for the match group on the right hand-side of the operation")
            r = matches[0]
            if group_left is None:
                if sig in seen:
                    raise PromQLError("multiple matches for labels: many-to-one matching must be explicit (group_left/group_right)")
                seen.add(sig)
            if compare:
                if fn(s.value, r.value):
                    out.append(s)
                continue
            result = dict(_drop_name(s.labels))
            for name in group_left or ():
                value = r.get(name)
                if value:
                    result[name] = value
                else:
                    result.pop(name, None)
            out.append(Sample(labels(result), fn(s.value, r.value)))
        return out


def parse(query: str):
    return _Parser(query).parse()


def evaluate(query: str, data: Iterable[Sample] | Dataset):
    """The query's value: a float (scalar) or a list of Samples (instant vector)."""
    return Evaluator(data).eval(parse(query))


def match(query: str, data: Iterable[Sample] | Dataset) -> bool:
    """What the CVO's PromQL cluster condition answers: the risk applies (True) or not
    (False); PromQLError when the query cannot be evaluated."""
    value = evaluate(query, data)
    if isinstance(value, float):
        raise PromQLError("invalid PromQL result type is scalar, not vector")
    if len(value) != 1:
        raise PromQLError(f"invalid PromQL result length must be one, but is {len(value)}")
    v = value[0].value
    if v == 0:
        return False
    if v == 1:
        return True
    raise PromQLError(f"invalid PromQL result (must be 0 or 1): {v:g}")
