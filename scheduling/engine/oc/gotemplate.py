"""Go's text/template, the part `oc get -o go-template=...` templates use (cli-runtime
printers/template.go: the object as encoding/json decodes it, so numbers are float64, and
the function `base64decode` besides the builtins).

Actions: text, `{{pipeline}}`, `{{/* comment */}}`, trim markers `{{-` `-}}`, `{{if}}`
/`{{else if}}`/`{{else}}`/`{{end}}`, `{{range}}` (with `$i, $v :=` and `{{else}}`),
`{{with}}`, `{{$x := pipeline}}`, `{{$x = pipeline}}`; operands `.`, `.a.b`, `$`, `$x.a`,
strings ("..." and `...`), numbers, true/false/nil, `(pipeline)`; pipes `|`; functions
and, or, not, len, index, print, printf, println, eq, ne, lt, le, gt, ge, base64decode.
A missing map key prints `<no value>` as text/template prints it.
"""

from __future__ import annotations

import base64
import json
import re
from dataclasses import dataclass, field
from typing import Any, Mapping

from .jsonpath import text_of


class TemplateError(Exception):
    pass


NO_VALUE = object()  # a missing map key: "<no value>" when printed


@dataclass
class Block:
    kind: str  # root, if, range, with
    pipe: Any = None
    body: list = field(default_factory=list)
    orelse: list = field(default_factory=list)
    decl: tuple = ()


_ACTION = re.compile(r"\{\{(-\s)?(.*?)(\s-)?\}\}", re.S)
_TOKEN = re.compile(r"""\s*(?:
    (?P<string>"(?:[^"\\]|\\.)*")|(?P<raw>`[^`]*`)|(?P<char>'(?:[^'\\]|\\.)+')|
    (?P<number>[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+))|
    (?P<declare>:=)|(?P<assign>=)|(?P<pipe>\|)|(?P<lparen>\()|(?P<rparen>\))|(?P<comma>,)|
    (?P<var>\$[A-Za-z0-9_]*)(?P<varfields>(?:\.[A-Za-z0-9_]+)*)|
    (?P<field>(?:\.[A-Za-z0-9_]+)+|\.)|
    (?P<ident>[A-Za-z_][A-Za-z0-9_]*)(?P<identfields>(?:\.[A-Za-z0-9_]+)*)
)""", re.X)


def _tokens(text: str, line: int) -> list[tuple[str, Any]]:
    out = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            bad = text[pos:].strip()[:1]
            raise TemplateError(f"template: output:{line}: unexpected {json.dumps(bad)} in command")
        pos = m.end()
        kind = m.lastgroup
        if kind in ("varfields", "identfields"):
            kind = "var" if kind == "varfields" else "ident"
        if kind == "string":
            out.append(("const", json.loads(m.group("string"))))
        elif kind == "raw":
            out.append(("const", m.group("raw")[1:-1]))
        elif kind == "char":
            out.append(("const", ord(json.loads('"' + m.group("char")[1:-1] + '"'))))
        elif kind == "number":
            n = m.group("number")
            out.append(("const", float(n) if any(c in n for c in ".eE") else int(n)))
        elif m.group("var") is not None:
            fields = [f for f in (m.group("varfields") or "").split(".") if f]
            out.append(("var", (m.group("var"), fields)))
        elif m.group("field") is not None:
            f = m.group("field")
            out.append(("field", [x for x in f.split(".") if x]))
        elif m.group("ident") is not None:
            fields = [f for f in (m.group("identfields") or "").split(".") if f]
            name = m.group("ident")
            if name in ("true", "false"):
                out.append(("const", name == "true"))
            elif name == "nil":
                out.append(("const", None))
            else:
                out.append(("ident", (name, fields)))
        else:
            out.append((kind, m.group(kind)))
    return out


def _parse_pipeline(tokens: list, line: int) -> tuple[list, list]:
    """(declared variables, commands); each command a list of operands."""
    decl: list = []
    if len(tokens) >= 2 and tokens[0][0] == "var" and tokens[1][0] in ("declare", "assign"):
        decl = [tokens[0][1][0]]
        tokens = tokens[2:]
    elif (len(tokens) >= 4 and tokens[0][0] == "var" and tokens[1][0] == "comma" and tokens[2][0] == "var"
          and tokens[3][0] in ("declare", "assign")):
        decl = [tokens[0][1][0], tokens[2][1][0]]
        tokens = tokens[4:]
    commands: list = [[]]
    stack = [commands]
    for tok in tokens:
        if tok[0] == "pipe":
            stack[-1].append([])
        elif tok[0] == "lparen":
            inner: list = [[]]
            stack[-1][-1].append(("pipeline", inner))
            stack.append(inner)
        elif tok[0] == "rparen":
            if len(stack) == 1:
                raise TemplateError(f"template: output:{line}: unexpected right paren")
            stack.pop()
        else:
            stack[-1][-1].append(tok)
    if len(stack) != 1:
        raise TemplateError(f"template: output:{line}: unclosed left paren")
    if any(not c for c in commands):
        raise TemplateError(f"template: output:{line}: missing value for command")
    return decl, commands


def parse(template: str) -> Block:
    root = Block("root")
    stack = [root]
    pos = 0
    pieces: list = []
    for m in _ACTION.finditer(template):
        pieces.append(("text", template[pos:m.start()]))
        pieces.append(("action", m.group(2), bool(m.group(1)), bool(m.group(3)), template.count("\n", 0, m.start()) + 1))
        pos = m.end()
    pieces.append(("text", template[pos:]))
    if "{{" in template[pos:]:
        raise TemplateError(f"template: output:{template.count(chr(10)) + 1}: unclosed action")
    # trim markers
    for i, piece in enumerate(pieces):
        if piece[0] == "action":
            if piece[2] and i > 0:
                pieces[i - 1] = ("text", pieces[i - 1][1].rstrip(" \t\r\n"))
            if piece[3] and i + 1 < len(pieces):
                pieces[i + 1] = ("text", pieces[i + 1][1].lstrip(" \t\r\n"))

    def target() -> list:
        block = stack[-1]
        return block.orelse if getattr(block, "_in_else", False) else block.body

    for piece in pieces:
        if piece[0] == "text":
            if piece[1]:
                target().append(("text", piece[1]))
            continue
        body, line = piece[1].strip(), piece[4]
        if body.startswith("/*"):
            if not body.endswith("*/"):
                raise TemplateError(f"template: output:{line}: unclosed comment")
            continue
        word = body.split(None, 1)[0] if body else ""
        rest = body[len(word):].strip()
        if word in ("if", "range", "with"):
            decl, pipe = _parse_pipeline(_tokens(rest, line), line)
            if not rest:
                raise TemplateError(f"template: output:{line}: missing value for {word}")
            block = Block(word, pipe, decl=tuple(decl))
            target().append(("block", block))
            stack.append(block)
        elif word == "else":
            block = stack[-1]
            if block.kind == "root" or getattr(block, "_in_else", False):
                raise TemplateError(f"template: output:{line}: unexpected {{{{else}}}}")
            if rest.startswith("if ") or rest.startswith("with "):
                inner_word, inner_rest = rest.split(None, 1)
                decl, pipe = _parse_pipeline(_tokens(inner_rest, line), line)
                inner = Block(inner_word, pipe, decl=tuple(decl))
                block._in_else = True
                block.orelse.append(("block", inner))
                inner._chained = True
                stack.append(inner)
            else:
                block._in_else = True
        elif word == "end":
            if len(stack) == 1:
                raise TemplateError(f"template: output:{line}: unexpected {{{{end}}}}")
            block = stack.pop()
            while getattr(block, "_chained", False):
                block = stack.pop()
        elif word in ("define", "template", "block", "break", "continue"):
            raise TemplateError(f"template: output:{line}: the simulator does not support {{{{{word}}}}}")
        else:
            decl, pipe = _parse_pipeline(_tokens(body, line), line)
            target().append(("action", decl, pipe))
    if len(stack) != 1:
        raise TemplateError(f"template: output:{template.count(chr(10)) + 1}: unexpected EOF")
    return root


# --- execution ----------------------------------------------------------------------------------------------------


def _truth(v: Any) -> bool:
    if v is NO_VALUE or v is None:
        return False
    if isinstance(v, (bool, int, float, str, list, dict)) or isinstance(v, Mapping):
        return bool(v)
    return True


def _text(v: Any) -> str:
    """fmt's printing of a value, as JSONPath prints it, and `<no value>` for a missing field."""
    return "<no value>" if v is NO_VALUE else text_of(v)


def _field(v: Any, name: str) -> Any:
    if v is NO_VALUE or v is None:
        return NO_VALUE if v is NO_VALUE else None
    if isinstance(v, Mapping):
        return v.get(name, NO_VALUE)
    raise TemplateError(f"can't evaluate field {name} in type {_type(v)}")


def _type(v: Any) -> str:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "float64"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "[]interface {}"
    return "interface {}"


def _printf(fmt: str, *args: Any) -> str:
    out = []
    i = 0
    arg = 0
    while i < len(fmt):
        ch = fmt[i]
        if ch != "%":
            out.append(ch)
            i += 1
            continue
        m = re.match(r"%([-+# 0]*)(\d*)(?:\.(\d+))?([vsdqfgtxX%])", fmt[i:])
        if not m:
            out.append(ch)
            i += 1
            continue
        i += m.end()
        flags, width, prec, verb = m.groups()
        if verb == "%":
            out.append("%")
            continue
        if arg >= len(args):
            out.append(f"%!{verb}(MISSING)")
            continue
        v = args[arg]
        arg += 1
        if verb in ("v", "s"):
            text = _text(v)
        elif verb == "q":
            text = json.dumps(_text(v))
        elif verb == "d":
            text = str(int(v)) if isinstance(v, (int, float)) and not isinstance(v, bool) and float(v).is_integer() and isinstance(v, int) \
                else f"%!d({_type(v)}={_text(v)})"
        elif verb in ("f", "g"):
            text = (f"%.{prec or 6}f" % v) if verb == "f" else _text(float(v))
        elif verb == "t":
            text = _text(v)
        else:
            text = format(int(v), verb)
        if width:
            text = text.ljust(int(width)) if "-" in flags else text.rjust(int(width))
        out.append(text)
    return "".join(out)


def _compare_args(a: Any, b: Any) -> tuple:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool) and not isinstance(b, bool):
        return a, b
    if type(a) is type(b) and isinstance(a, str):
        return a, b
    raise TemplateError("incompatible types for comparison")


def _index(v: Any, *keys: Any) -> Any:
    for k in keys:
        if isinstance(v, Mapping):
            v = v.get(k, NO_VALUE) if isinstance(k, str) else NO_VALUE
        elif isinstance(v, (list, str)):
            if not isinstance(k, (int, float)) or isinstance(k, bool):
                raise TemplateError(f"cannot index slice/array with type {_type(k)}")
            if not 0 <= int(k) < len(v):
                raise TemplateError(f"error calling index: index out of range: {int(k)}")
            v = v[int(k)]
        elif v is None or v is NO_VALUE:
            raise TemplateError("error calling index: index of untyped nil")
        else:
            raise TemplateError(f"can't index item of type {_type(v)}")
    return v


def _base64decode(v: Any) -> str:
    try:
        return base64.b64decode(str(v), validate=True).decode("utf-8", "replace")
    except ValueError as exc:
        raise TemplateError(f"error calling base64decode: {exc}") from None


def _eq(a: Any, *rest: Any) -> bool:
    for b in rest:
        x, y = _compare_args(a, b) if not (isinstance(a, bool) and isinstance(b, bool)) else (a, b)
        if x == y:
            return True
    return False


FUNCS = {
    "and": None, "or": None,  # short-circuit, handled in _call
    "not": lambda v: not _truth(v),
    "len": lambda v: len(v) if isinstance(v, (str, list, Mapping)) else (_ for _ in ()).throw(
        TemplateError(f"error calling len: len of type {_type(v)}")),
    "index": _index,
    "print": lambda *a: "".join(_text(x) for x in a),
    "println": lambda *a: " ".join(_text(x) for x in a) + "\n",
    "printf": lambda f, *a: _printf(f, *a),
    "eq": _eq,
    "ne": lambda a, b: not _eq(a, b),
    "lt": lambda a, b: (lambda x, y: x < y)(*_compare_args(a, b)),
    "le": lambda a, b: (lambda x, y: x <= y)(*_compare_args(a, b)),
    "gt": lambda a, b: (lambda x, y: x > y)(*_compare_args(a, b)),
    "ge": lambda a, b: (lambda x, y: x >= y)(*_compare_args(a, b)),
    "base64decode": _base64decode,
}


class _Exec:
    def __init__(self, root: Any):
        self.vars: list[dict] = [{"$": root}]

    def lookup(self, name: str) -> Any:
        for scope in reversed(self.vars):
            if name in scope:
                return scope[name]
        raise TemplateError(f'undefined variable "{name}"')

    def operand(self, tok, dot: Any) -> Any:
        kind, value = tok
        if kind == "const":
            return value
        if kind == "field":
            v = dot
            for name in value:
                v = _field(v, name)
            return v
        if kind == "var":
            v = self.lookup(value[0])
            for name in value[1]:
                v = _field(v, name)
            return v
        if kind == "pipeline":
            return self.pipeline(value, dot)
        if kind == "ident":
            return self.call(value[0], [], dot, None)
        raise TemplateError(f"unexpected {kind}")

    def call(self, name: str, args: list, dot: Any, piped: Any) -> Any:
        if name not in FUNCS:
            raise TemplateError(f'function "{name}" not defined')
        if name in ("and", "or"):
            values = [self.operand(a, dot) for a in args] + ([piped] if piped is not None else [])
            result = values[0] if values else None
            for v in values:
                result = v
                if (name == "and") != _truth(v):
                    return v
            return result
        values = [self.operand(a, dot) for a in args]
        if piped is not None:
            values.append(piped)
        try:
            return FUNCS[name](*values)
        except TypeError:
            raise TemplateError(f"wrong number of args for {name}: got {len(values)}") from None

    def command(self, cmd: list, dot: Any, piped: Any) -> Any:
        head = cmd[0]
        if head[0] == "ident":
            name, fields = head[1]
            v = self.call(name, cmd[1:], dot, piped)
            for f in fields:
                v = _field(v, f)
            return v
        if len(cmd) > 1 or piped is not None:
            raise TemplateError(f"can't give argument to non-function {head[1]}")
        return self.operand(head, dot)

    def pipeline(self, commands: list, dot: Any) -> Any:
        value = None
        for i, cmd in enumerate(commands):
            value = self.command(cmd, dot, value if i else None)
        return value

    def run(self, nodes: list, dot: Any) -> str:
        out = []
        for node in nodes:
            if node[0] == "text":
                out.append(node[1])
            elif node[0] == "action":
                _, decl, pipe = node
                value = self.pipeline(pipe, dot)
                if decl:
                    self.vars[-1][decl[0]] = value
                else:
                    out.append(_text(value))
            else:
                out.append(self.block(node[1], dot))
        return "".join(out)

    def block(self, b: Block, dot: Any) -> str:
        value = self.pipeline(b.pipe, dot)
        self.vars.append({})
        try:
            if b.kind == "if":
                if b.decl:
                    self.vars[-1][b.decl[0]] = value
                return self.run(b.body if _truth(value) else b.orelse, dot)
            if b.kind == "with":
                if b.decl:
                    self.vars[-1][b.decl[0]] = value
                return self.run(b.body, value) if _truth(value) else self.run(b.orelse, dot)
            # range
            if value is None or value is NO_VALUE:
                items: list = []
            elif isinstance(value, Mapping):
                items = [(k, value[k]) for k in sorted(value)]
            elif isinstance(value, list):
                items = list(enumerate(value))
            elif isinstance(value, int) and not isinstance(value, bool):
                items = [(i, i) for i in range(value)]
            else:
                raise TemplateError(f"range can't iterate over {_text(value)}")
            if not items:
                return self.run(b.orelse, dot)
            out = []
            for k, v in items:
                if len(b.decl) == 1:
                    self.vars[-1][b.decl[0]] = v
                elif len(b.decl) == 2:
                    self.vars[-1][b.decl[0]], self.vars[-1][b.decl[1]] = k, v
                out.append(self.run(b.body, v))
            return "".join(out)
        finally:
            self.vars.pop()


def _as_json_numbers(v: Any) -> Any:
    """The object as encoding/json decodes it into interface{}: every number a float64."""
    if isinstance(v, Mapping):
        return {k: _as_json_numbers(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_as_json_numbers(x) for x in v]
    if isinstance(v, int) and not isinstance(v, bool):
        return float(v)
    return v


def execute(template: Block | str, data: Any) -> str:
    root = parse(template) if isinstance(template, str) else template
    data = _as_json_numbers(data)
    try:
        return _Exec(data).run(root.body, data)
    except TemplateError as exc:
        message = str(exc)
        if not message.startswith("template: "):
            message = f"template: output:1:2: executing \"output\": {message}"
        raise TemplateError(message) from None
