"""The template output formats of `oc get` and `--sort-by` (kubectl pkg/cmd/get:
customcolumn.go, sorter.go; cli-runtime printers: jsonpath.go, template.go):

* `-o jsonpath=TEMPLATE` (engine.oc.jsonpath), `-o jsonpath-as-json=TEMPLATE`;
* `-o custom-columns=HEADER:PATH,...` (RelaxedJSONPathExpression: `.a.b`, `a.b`, `{.a.b}`),
  `<none>` for a column without a value, several values joined by commas;
* `-o go-template=TEMPLATE` / `-o template=TEMPLATE` (engine.oc.gotemplate);
* `--sort-by=PATH`: the items ordered by the first value the path finds (missing first;
  numbers as numbers, strings as Kubernetes quantities when both parse, else as strings).

Each printer takes the object kubectl hands it: the List of what was found, or the one
object named (kubectl's singleItemImplied)."""

from __future__ import annotations

import functools
import json
import re
from typing import Any, Callable, Mapping, Sequence

from scheduling.engine.api.quantity import parse_quantity

from . import gotemplate
from . import jsonpath as jp
from .core import OcError
from .output import tabwriter

_RELAXED = re.compile(r"^\{\.?([^{}]+)\}$|^\.?([^{}]+)$")


def relaxed_jsonpath(expression: str) -> str:
    """RelaxedJSONPathExpression."""
    if not expression:
        return expression
    m = _RELAXED.match(expression)
    if m is None:
        raise OcError("unexpected path string, expected a 'name1.name2' or '.name1.name2' or '{name1.name2}' or "
                      "'{.name1.name2}'")
    return "{." + (m.group(1) or m.group(2)) + "}"


Printer = Callable[[Any], str]


def _jsonpath_printer(template: str, as_json: bool) -> Printer:
    try:
        root = jp.parse(template)
    except jp.JSONPathError as exc:
        raise OcError(jp.printer_error_parse(template, exc)) from None

    def render(obj: Any) -> str:
        try:
            results = jp.find_results(root, obj)
        except jp.JSONPathError as exc:
            raise OcError(jp.printer_error_execute(template, exc, obj)) from None
        if as_json:
            flat = [v for r in results for v in r]
            return json.dumps(flat, indent=4, sort_keys=True, ensure_ascii=False) + "\n"
        return "".join(jp.print_results(r) for r in results)

    return render


def custom_columns(spec: str, no_headers: bool) -> Printer:
    if not spec:
        raise OcError("custom-columns format specified but no custom columns given")
    columns: list[tuple[str, Any]] = []
    for part in spec.split(","):
        header, colon, path = part.partition(":")
        if not colon:
            raise OcError(f"unexpected custom-columns spec: {part}, expected <header>:<json-path-expr>")
        expression = relaxed_jsonpath(path)
        try:
            columns.append((header, jp.parse(expression)))
        except jp.JSONPathError as exc:
            raise OcError(str(exc)) from None

    def render(obj: Any) -> str:
        items = obj.get("items") if isinstance(obj, Mapping) and obj.get("kind") == "List" else [obj]
        rows: list[list[str]] = [] if no_headers else [[h for h, _ in columns]]
        for item in items or ():
            row = []
            for _, root in columns:
                try:
                    results = jp.find_results(root, item)
                except jp.JSONPathError as exc:
                    raise OcError(str(exc)) from None
                values = [jp.text_of(v) for r in results for v in r]
                row.append(",".join(values) if results and results[0] else "<none>")
            rows.append(row)
        return tabwriter(rows) if rows else ""

    return render


def _go_template_printer(template: str) -> Printer:
    try:
        parsed = gotemplate.parse(template)
    except gotemplate.TemplateError as exc:
        raise OcError(f"error parsing template {template}, {exc}\n") from None

    def render(obj: Any) -> str:
        try:
            return gotemplate.execute(parsed, obj)
        except gotemplate.TemplateError as exc:
            raise OcError(f"error executing template \"{template}\": {exc}") from None

    return render


def printer(fmt: str, template: str, no_headers: bool = False) -> Printer | None:
    """The printer of a template format (None for the others); OcError when the template
    does not parse, with kubectl's message."""
    if fmt == "jsonpath":
        if not template:
            raise OcError("template format specified but no template given")
        return _jsonpath_printer(template, False)
    if fmt == "jsonpath-as-json":
        if not template:
            raise OcError("template format specified but no template given")
        return _jsonpath_printer(template, True)
    if fmt == "custom-columns":
        return custom_columns(template, no_headers)
    if fmt in ("go-template", "template"):
        if not template:
            raise OcError("template format specified but no template given")
        return _go_template_printer(template)
    return None


TEMPLATE_FORMATS = ("jsonpath", "jsonpath-as-json", "custom-columns", "go-template", "template")


# --- --sort-by -----------------------------------------------------------------------------------------------------


def _quantity(text: str):
    try:
        return parse_quantity(text)
    except (ValueError, TypeError, ArithmeticError):
        return None
    except Exception:  # noqa: BLE001 - the parser's own error type
        return None


def _less(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        raise OcError(f"Field is an unsortable type: bool")
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and type(a) is type(b):
        return a < b
    if isinstance(a, str) and isinstance(b, str):
        qa, qb = _quantity(a), _quantity(b)
        if qa is not None and qb is not None:
            return qa < qb
        return a < b
    if isinstance(a, list) and isinstance(b, list):
        for x, y in zip(a, b):
            if not _less(x, y):
                return False
        return True
    if a is None or b is None:
        return a is None and b is not None
    raise OcError(f"unsortable type: {type(a).__name__}")


def sort_items(items: Sequence[Mapping[str, Any]], field: str) -> list:
    """kubectl's RuntimeSort (a stable sort): objects without the field first."""
    expression = relaxed_jsonpath(field)
    try:
        root = jp.parse(expression)
    except jp.JSONPathError as exc:
        raise OcError(str(exc)) from None
    keyed = []
    for item in items:
        try:
            results = jp.find_results(root, item)
        except jp.JSONPathError as exc:
            raise OcError(f"couldn't find any field with path \"{expression}\" in the list of objects: {exc}") from None
        keyed.append((results[0][0] if results and results[0] else jp.MISSING, item))
    missing = [item for value, item in keyed if value is jp.MISSING]
    present = [(value, item) for value, item in keyed if value is not jp.MISSING]

    def compare(x, y) -> int:
        if _less(x[0], y[0]):
            return -1
        if _less(y[0], x[0]):
            return 1
        return 0

    return missing + [item for _, item in sorted(present, key=functools.cmp_to_key(compare))]
