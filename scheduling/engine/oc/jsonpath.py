"""kubectl's JSONPath (k8s.io/client-go util/jsonpath: parser.go, jsonpath.go), ported: the
template grammar (text and `{...}` actions; fields `.a.b` with `\\.` escapes, `*`, `..`,
`[n]`, `[s:e:step]`, `[*]`, `['key']`, unions `[a,b]`, filters `[?(@.x=="y")]` with
== != < > <= >= and existence, quoted strings, numbers, `range`/`end`), its evaluation
(missing keys allowed, as kubectl's printers allow them; arrays out of bounds are errors) and
its printing (strings as they are, numbers and booleans as Go's fmt prints them, maps and
lists as compact JSON with sorted keys, values of one action joined by a space).

`parse(template)` raises JSONPathError with the parser's message; `execute` the executor's.
kubectl wraps them: `error parsing jsonpath <template>, <message>` and
`error executing jsonpath "<template>": Error executing template: <message>. Printing more
information for debugging the template: ...` (cli-runtime printers/jsonpath.go).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any, Mapping

_SLICE = re.compile(r"^(-?[\d]*)(:-?[\d]*)?(:-?[\d]*)?$")
_DICT_KEY = re.compile(r"^'([^']*)'$")
_FILTER = re.compile(r"^([^!<>=]+)([!<>=]+)(.+?)$", re.S)


class JSONPathError(Exception):
    pass


# --- nodes -----------------------------------------------------------------------------------------------------


@dataclass
class Node:
    kind: str  # list text field array filter int float bool wildcard recursive union identifier
    value: Any = None
    nodes: list = field(default_factory=list)


def _list() -> Node:
    return Node("list")


# --- parser (parser.go) ----------------------------------------------------------------------------------------


def _is_space(ch: str) -> bool:
    return ch in (" ", "\t")


def _is_eol(ch: str) -> bool:
    return ch in ("\r", "\n")


def _is_alnum(ch: str) -> bool:
    return ch == "_" or ch.isalpha() or ch.isdigit()


def _is_terminator(ch: str) -> bool:
    return ch == "" or _is_space(ch) or _is_eol(ch) or ch in ".,[]$@{}"


def _unquote(text: str) -> str:
    """UnquoteExtend: strconv.Unquote, single quotes allowed."""
    if len(text) < 2 or text[0] != text[-1] or text[0] not in "\"'":
        raise JSONPathError(f"unquote string {text} error invalid syntax")
    body = text[1:-1]
    if "\\" not in body:
        return body
    if text[0] == "'":
        body = body.replace("\\'", "'").replace('"', '\\"')
    try:
        return json.loads('"' + body + '"')
    except ValueError:
        raise JSONPathError(f"unquote string {text} error invalid syntax") from None


class _Parser:
    def __init__(self, text: str):
        self.input = text
        self.pos = 0
        self.start = 0
        self._width = 0
        self.root = _list()

    def next(self) -> str:
        if self.pos >= len(self.input):
            self._width = 0
            return ""
        ch = self.input[self.pos]
        self._width = 1
        self.pos += 1
        return ch

    def peek(self) -> str:
        ch = self.next()
        self.backup()
        return ch

    def backup(self) -> None:
        self.pos -= self._width

    def consume(self) -> str:
        value = self.input[self.start:self.pos]
        self.start = self.pos
        return value

    def parse(self) -> Node:
        self.parse_text(self.root)
        return self.root

    def parse_text(self, cur: Node) -> None:
        while True:
            if self.input.startswith("{", self.pos):
                if self.pos > self.start:
                    cur.nodes.append(Node("text", self.consume()))
                self.pos += 1
                self.consume()
                action = _list()
                cur.nodes.append(action)
                self.inside(action)
                return
            if self.next() == "":
                break
        if self.pos > self.start:
            cur.nodes.append(Node("text", self.consume()))

    def inside(self, cur: Node) -> None:
        while True:
            rest = self.input[self.pos:]
            if rest.startswith("}"):
                self.pos += 1
                self.consume()
                self.parse_text(self.root)
                return
            if rest.startswith("[?("):
                self.parse_filter(cur)
                continue
            if rest.startswith(".."):
                if cur.nodes and cur.nodes[-1].kind == "recursive":
                    raise JSONPathError("invalid multiple recursive descent")
                self.pos += 2
                self.consume()
                cur.nodes.append(Node("recursive"))
                if _is_alnum(self.peek()):
                    self.parse_field(cur)
                continue
            ch = self.next()
            if ch == "" or _is_eol(ch):
                raise JSONPathError("unclosed action")
            if ch == " " or ch in "@$":
                self.consume()
            elif ch == "[":
                self.parse_array(cur)
            elif ch in "\"'":
                self.parse_quote(cur, ch)
            elif ch == ".":
                self.parse_field(cur)
            elif ch in "+-" or ch.isdigit():
                self.backup()
                self.parse_number(cur)
            elif _is_alnum(ch):
                self.backup()
                self.parse_identifier(cur)
            else:
                raise JSONPathError(f"unrecognized character in action: U+{ord(ch):04X} {_go_quote_rune(ch)}")

    def parse_identifier(self, cur: Node) -> None:
        while True:
            ch = self.next()
            if _is_terminator(ch):
                self.backup()
                break
        value = self.consume()
        if value in ("true", "false"):
            cur.nodes.append(Node("bool", value == "true"))
        else:
            cur.nodes.append(Node("identifier", value))

    def parse_number(self, cur: Node) -> None:
        if self.peek() in "+-" and self.peek() != "":
            self.next()
        while True:
            ch = self.next()
            if ch != "." and not ch.isdigit() or ch == "":
                self.backup()
                break
        value = self.consume()
        try:
            cur.nodes.append(Node("int", int(value)))
            return
        except ValueError:
            pass
        try:
            cur.nodes.append(Node("float", float(value)))
        except ValueError:
            raise JSONPathError(f"cannot parse number {value}") from None

    def parse_array(self, cur: Node) -> None:
        while True:
            ch = self.next()
            if ch in ("", "\n"):
                raise JSONPathError("unterminated array")
            if ch == "]":
                break
        text = self.consume()[1:-1]
        if text == "*":
            text = ":"
        parts = text.split(",")
        if len(parts) > 1:
            union = []
            for part in parts:
                union.append(_action(f"[{part.strip(' ')}]"))
            cur.nodes.append(Node("union", nodes=union))
            return
        key = _DICT_KEY.match(text)
        if key:
            cur.nodes.extend(_action("." + key.group(1)).nodes)
            return
        m = _SLICE.match(text)
        if not m:
            raise JSONPathError(f"invalid array index {text}")
        values = list(m.groups(default=""))
        params: list[list[Any]] = []  # [known, value, derived]
        for i in range(3):
            v = values[i]
            if v:
                if i > 0:
                    v = v[1:]
                if i > 0 and v == "":
                    params.append([False, 0, False])
                else:
                    try:
                        params.append([True, int(v), False])
                    except ValueError:
                        raise JSONPathError(f"array index {v} is not a number") from None
            elif i == 1:
                params.append([True, params[0][1] + 1, True])
            else:
                params.append([False, 0, False])
        cur.nodes.append(Node("array", params))

    def parse_filter(self, cur: Node) -> None:
        self.pos += 3
        self.consume()
        begin = end = False
        pair = ""
        while True:
            ch = self.next()
            if ch in ("", "\n"):
                raise JSONPathError("unterminated filter")
            if ch in "\"'":
                if not begin:
                    begin, pair = True, ch
                    continue
                if self.input[self.pos - 2] != "\\" and ch == pair:
                    end = True
            elif ch == ")":
                if begin == end:
                    break
        if self.next() != "]":
            raise JSONPathError("unclosed array expect ]")
        text = self.consume()[:-2]
        m = _FILTER.match(text)
        if m is None:
            cur.nodes.append(Node("filter", ("exists", _action(text), _list())))
        else:
            cur.nodes.append(Node("filter", (m.group(2), _action(m.group(1)), _action(m.group(3)))))

    def parse_quote(self, cur: Node, end: str) -> None:
        while True:
            ch = self.next()
            if ch in ("", "\n"):
                raise JSONPathError("unterminated quoted string")
            if ch == end and self.input[self.pos - 2] != "\\":
                break
        cur.nodes.append(Node("text", _unquote(self.consume())))

    def parse_field(self, cur: Node) -> None:
        self.consume()
        while True:
            ch = self.next()
            if ch == "\\":
                self.next()
            elif _is_terminator(ch):
                self.backup()
                break
        value = self.consume()
        cur.nodes.append(Node("wildcard") if value == "*" else Node("field", value.replace("\\", "")))


def _go_quote_rune(ch: str) -> str:
    return "'" + ch + "'" if ch.isprintable() else json.dumps(ch)


def _action(text: str) -> Node:
    """parseAction: the list node of `{text}`."""
    return _Parser("{" + text + "}").parse().nodes[0]


def parse(template: str) -> Node:
    return _Parser(template).parse()


# --- evaluation (jsonpath.go) ------------------------------------------------------------------------------------


MISSING = object()  # no value (a sort key an object lacks)


class _Executor:
    def __init__(self, allow_missing: bool = True):
        self.allow_missing = allow_missing
        self.begin_range = self.in_range = self.end_range = 0
        self.last_end: int | None = None

    def find(self, root: Node, data: Any, nodes: list | None = None) -> list[list[Any]]:
        nodes = root.nodes if nodes is None else nodes
        current = [data]
        full: list[list[Any]] = []
        i = 0
        while i < len(nodes):
            node = nodes[i]
            results = self.walk(current, node)
            if self.end_range > 0 and self.end_range <= self.in_range:
                self.end_range -= 1
                self.last_end = id(node)
                break
            if self.begin_range > 0:
                self.begin_range -= 1
                self.in_range += 1
                rest = nodes[i + 1:]
                if results:
                    for value in results:
                        full.extend(self.find(root, value, rest))
                else:
                    self.find(root, None, rest)
                self.in_range -= 1
                for k in range(i + 1, len(nodes)):
                    if id(nodes[k]) == self.last_end:
                        i = k
                        break
                i += 1
                continue
            full.append(results)
            i += 1
        return full

    def walk(self, values: list, node: Node) -> list:
        kind = node.kind
        if kind == "list":
            for n in node.nodes:
                values = self.walk(values, n)
            return values
        if kind == "text":
            return [node.value]
        if kind in ("int", "float", "bool"):
            return [node.value for _ in values]
        if kind == "field":
            out = []
            for v in values:
                if isinstance(v, Mapping) and node.value in v:
                    out.append(v[node.value])
            if not out and not self.allow_missing:
                raise JSONPathError(f"{node.value} is not found")
            return out
        if kind == "wildcard":
            out = []
            for v in values:
                if isinstance(v, Mapping):
                    out.extend(v[k] for k in sorted(v))
                elif isinstance(v, (list, str)):
                    out.extend(v)
            return out
        if kind == "recursive":
            return self._recursive(values)
        if kind == "array":
            return self._array(values, node.value)
        if kind == "union":
            out = []
            for n in node.nodes:
                out.extend(self.walk(values, n))
            return out
        if kind == "filter":
            return self._filter(values, *node.value)
        if kind == "identifier":
            if node.value == "range":
                self.begin_range += 1
                return values
            if node.value == "end":
                if self.in_range > 0:
                    self.end_range += 1
                    return []
                raise JSONPathError("not in range, nothing to end")
            raise JSONPathError(f"unrecognized identifier {node.value}")
        raise JSONPathError(f"unexpected Node {node.kind}")

    def _recursive(self, values: list) -> list:
        result = []
        for v in values:
            if v is None:
                continue
            if isinstance(v, Mapping):
                children = [v[k] for k in sorted(v)]
            elif isinstance(v, list):
                children = list(v)
            elif isinstance(v, str):
                children = list(v.encode())  # a string's elements are its bytes, which have none
            else:
                children = []
            if children:
                result.append(v)
                result.extend(self._recursive(children))
        return result

    def _array(self, values: list, params: list) -> list:
        result = []
        for v in values:
            if v is None:
                continue
            if not isinstance(v, list):
                raise JSONPathError(f"{_go_type(v)} is not array or slice")
            (k0, start, _), (k1, stop, derived), (k2, step, _) = params
            length = len(v)
            if not k0:
                start = 0
            if start < 0:
                start += length
            if not k1:
                stop = length
            if stop < 0 or (stop == 0 and derived):
                stop += length
            if stop == start:
                return result
            if start >= length or start < 0:
                raise JSONPathError(f"array index out of bounds: index {start}, length {length}")
            if stop > length or stop < 0:
                raise JSONPathError(f"array index out of bounds: index {stop - 1}, length {length}")
            if start > stop:
                raise JSONPathError(f"starting index {start} is greater than ending index {stop}")
            if k2 and step <= 0:
                raise JSONPathError("step must be > 0")
            result.extend(v[start:stop:step if k2 else 1])
        return result

    def _filter(self, values: list, operator: str, left: Node, right: Node) -> list:
        results = []
        for v in values:
            if not isinstance(v, list):
                raise JSONPathError(f"{go_value(v)} is not array or slice and cannot be filtered")
            for item in v:
                try:
                    lefts = self.walk([item], left)
                except JSONPathError:
                    if operator == "exists":
                        continue
                    raise
                if operator == "exists":
                    if lefts:
                        results.append(item)
                    continue
                if not lefts:
                    continue
                if len(lefts) > 1:
                    raise JSONPathError("can only compare one element at a time")
                rights = self.walk([item], right)
                if not rights:
                    continue
                if len(rights) > 1:
                    raise JSONPathError("can only compare one element at a time")
                if _compare(operator, lefts[0], rights[0]):
                    results.append(item)
        return results


def _basic_kind(v: Any) -> str:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "float"
    if isinstance(v, str):
        return "string"
    return "invalid"


def _compare(op: str, left: Any, right: Any) -> bool:
    """text/template's eq/ne/lt/... as client-go's forked template package compares: ints
    with ints (a float and an int compare as numbers), strings with strings."""
    if op not in ("==", "!=", "<", ">", "<=", ">="):
        raise JSONPathError(f"unrecognized filter operator {op}")
    lk, rk = _basic_kind(left), _basic_kind(right)
    if op in ("==", "!="):
        if lk == "invalid" or rk == "invalid":
            equal = left == right
        elif lk != rk and not ({lk, rk} <= {"int", "float"}):
            raise JSONPathError("incompatible types for comparison")
        else:
            equal = left == right
        return equal if op == "==" else not equal
    if lk in ("invalid", "bool") or rk in ("invalid", "bool"):
        raise JSONPathError("invalid type for comparison")
    if lk != rk and not ({lk, rk} <= {"int", "float"}):
        raise JSONPathError("incompatible types for comparison")
    if op == "<":
        return left < right
    if op == ">":
        return left > right
    if op == "<=":
        return left <= right
    if op == ">=":
        return left >= right
    raise JSONPathError(f"unrecognized filter operator {op}")


# --- printing ------------------------------------------------------------------------------------------------------


def go_float(f: float) -> str:
    """fmt's %v of a float64 (strconv 'g', shortest, exponent from 1e21 / below 1e-4)."""
    if math.isinf(f):
        return "+Inf" if f > 0 else "-Inf"
    if math.isnan(f):
        return "NaN"
    if f == 0:
        return "0"
    r = repr(f)
    mantissa, _, exp_text = r.partition("e")
    digits = mantissa.replace("-", "").replace(".", "").lstrip("0") or "0"
    exp = int(math.floor(math.log10(abs(f)))) if not exp_text else int(exp_text) + (len(mantissa.split(".")[0].lstrip("-")) - 1)
    if exp < -4 or exp >= 21:
        digits = digits.rstrip("0") or "0"
        m = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        sign = "-" if f < 0 else ""
        return f"{sign}{m}e{'+' if exp >= 0 else '-'}{abs(exp):02d}"
    text = f"{f:.17g}" if len(r) > 17 else r
    if "e" in text:
        text = format(f, "f")
    if text.endswith(".0"):
        text = text[:-2]
    return text


def text_of(v: Any) -> str:
    """fmt.Fprint of a value the JSON decoder made."""
    if v is None:
        return "<nil>"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return go_float(v)
    if isinstance(v, Mapping):
        return "map[" + " ".join(f"{k}:{text_of(v[k])}" for k in sorted(v)) + "]"
    if isinstance(v, list):
        return "[" + " ".join(text_of(x) for x in v) + "]"
    return str(v)


def _go_json_numbers(v: Any) -> Any:
    """encoding/json writes a float64 without a fraction as an integer (1, not 1.0)."""
    if isinstance(v, Mapping):
        return {k: _go_json_numbers(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_go_json_numbers(x) for x in v]
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e21:
        return int(v)
    return v


def _json(v: Any) -> str:
    """encoding/json.Marshal: compact, map keys sorted, <, >, & escaped."""
    return json.dumps(_go_json_numbers(v), separators=(",", ":"), sort_keys=True, ensure_ascii=False).replace(
        "<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def print_results(results: list) -> str:
    out = []
    for i, r in enumerate(results):
        text = _json(r) if isinstance(r, (Mapping, list)) else text_of(r)
        out.append(text + (" " if i != len(results) - 1 else ""))
    return "".join(out)


def execute(template: str | Node, data: Any, allow_missing: bool = True) -> str:
    root = parse(template) if isinstance(template, str) else template
    results = _Executor(allow_missing).find(root, data)
    return "".join(print_results(r) for r in results)


def find_results(template: str | Node, data: Any, allow_missing: bool = True) -> list[list[Any]]:
    root = parse(template) if isinstance(template, str) else template
    return _Executor(allow_missing).find(root, data)


def _go_type(v: Any) -> str:
    if isinstance(v, Mapping):
        return "map[string]interface {}"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int64"
    if isinstance(v, float):
        return "float64"
    if isinstance(v, str):
        return "string"
    return "interface {}"


def go_value(v: Any) -> str:
    """fmt's %#v of an unstructured value (the object kubectl shows when a template fails)."""
    if v is None:
        return "interface {}(nil)"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return go_float(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, Mapping):
        return "map[string]interface {}{" + ", ".join(f"{json.dumps(str(k))}:{go_value(v[k])}" for k in sorted(v)) + "}"
    if isinstance(v, list):
        return "[]interface {}{" + ", ".join(go_value(x) for x in v) + "}"
    return str(v)


def printer_error_parse(template: str, exc: JSONPathError) -> str:
    """cli-runtime JSONPathPrintFlags: the message of a template that does not parse."""
    return f"error parsing jsonpath {template}, {exc}\n"


def printer_error_execute(template: str, exc: JSONPathError, obj: Any) -> str:
    """cli-runtime JSONPathPrinter.PrintObj: the message of a template that fails."""
    return (f'error executing jsonpath "{template}": Error executing template: {exc}. Printing more information for '
            f"debugging the template:\n\ttemplate was:\n\t\t{template}\n\tobject given to jsonpath engine was:\n\t\t"
            f"{go_value(obj)}\n\n\n")
