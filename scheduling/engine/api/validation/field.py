"""Validation formats, Go value printing and field errors: what every API group shares
(k8s.io/apimachinery pkg/util/validation and pkg/util/validation/field, 1.11 wording),
and small readers of plain documents.
"""

from __future__ import annotations

import datetime
import functools
import json
import re
import unicodedata
from dataclasses import dataclass
from decimal import Decimal
from typing import Iterable


# ==========================================================================
# 1. Format checks (k8s.io/apimachinery/pkg/util/validation, 1.11 wording)
# ==========================================================================

QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
QUALIFIED_NAME_ERR_MSG = (
    "must consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)
QUALIFIED_NAME_MAX_LENGTH = 63
LABEL_VALUE_FMT = "(" + QUALIFIED_NAME_FMT + ")?"
LABEL_VALUE_ERR_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, "
    "'-', '_' or '.', and must start and end with an alphanumeric character"
)
LABEL_VALUE_MAX_LENGTH = 63
DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
DNS1123_LABEL_ERR_MSG = (
    "a DNS-1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character"
)
DNS1123_LABEL_MAX_LENGTH = 63
DNS1123_SUBDOMAIN_FMT = DNS1123_LABEL_FMT + r"(\." + DNS1123_LABEL_FMT + ")*"
DNS1123_SUBDOMAIN_ERR_MSG = (
    "a DNS-1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character"
)
DNS1123_SUBDOMAIN_MAX_LENGTH = 253
DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?"
DNS1035_LABEL_ERR_MSG = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', "
    "start with an alphabetic character, and end with an alphanumeric character"
)
DNS1035_LABEL_MAX_LENGTH = 63
PERCENT_FMT = "[0-9]+%"
PERCENT_ERR_MSG = "a valid percent string must be a numeric string followed by an ending '%'"

_QUALIFIED_NAME_RE = re.compile(QUALIFIED_NAME_FMT)
_LABEL_VALUE_RE = re.compile(LABEL_VALUE_FMT)
_DNS1123_LABEL_RE = re.compile(DNS1123_LABEL_FMT)
_DNS1123_SUBDOMAIN_RE = re.compile(DNS1123_SUBDOMAIN_FMT)
_DNS1035_LABEL_RE = re.compile(DNS1035_LABEL_FMT)
_PERCENT_RE = re.compile(PERCENT_FMT)
_PORT_NAME_CHARSET_RE = re.compile("[-a-z0-9]+")
_PORT_NAME_ONE_LETTER_RE = re.compile("[a-z]")

EMPTY_ERROR = "must be non-empty"
IS_NEGATIVE_ERROR_MSG = "must be greater than or equal to 0"


def max_len_error(length: int) -> str:
    # Kubernetes 1.35 says "bytes" for label keys and values; 1.11 says "characters".
    return f"must be no more than {length} characters"


def regex_error(msg: str, fmt: str, *examples: str) -> str:
    """``RegexError``.  Each example is written as ``'X', `` and the next one is
    prefixed with `` or `` — hence the two spaces before every "or"."""
    if not examples:
        return msg + " (regex used for validation is '" + fmt + "')"
    msg += " (e.g. "
    for i, example in enumerate(examples):
        if i > 0:
            msg += " or "
        msg += "'" + example + "', "
    return msg + "regex used for validation is '" + fmt + "')"


def inclusive_range_error(lo: int, hi: int) -> str:
    return f"must be between {lo} and {hi}, inclusive"


def byte_len(text: str) -> int:
    """Go's ``len()`` counts UTF-8 bytes, not characters."""
    return len(text) if text.isascii() else len(text.encode("utf-8"))


@functools.lru_cache(maxsize=8192)
def qualified_name_errors(value: str) -> tuple[str, ...]:
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part " + EMPTY_ERROR)
        else:
            errs.extend("prefix part " + m for m in dns1123_subdomain_errors(prefix))
    else:
        return (
            "a qualified name "
            + regex_error(QUALIFIED_NAME_ERR_MSG, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
        )
    if not name:
        errs.append("name part " + EMPTY_ERROR)
    elif byte_len(name) > QUALIFIED_NAME_MAX_LENGTH:
        errs.append("name part " + max_len_error(QUALIFIED_NAME_MAX_LENGTH))
    # Not an "else": an empty name part also fails the regex, so Go reports both.
    if not _QUALIFIED_NAME_RE.fullmatch(name):
        errs.append(
            "name part " + regex_error(QUALIFIED_NAME_ERR_MSG, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc")
        )
    return tuple(errs)


@functools.lru_cache(maxsize=8192)
def label_value_errors(value: str) -> tuple[str, ...]:
    errs = []
    if byte_len(value) > LABEL_VALUE_MAX_LENGTH:
        errs.append(max_len_error(LABEL_VALUE_MAX_LENGTH))
    if not _LABEL_VALUE_RE.fullmatch(value):
        errs.append(regex_error(LABEL_VALUE_ERR_MSG, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return tuple(errs)


@functools.lru_cache(maxsize=8192)
def dns1123_label_errors(value: str) -> tuple[str, ...]:
    errs = []
    if byte_len(value) > DNS1123_LABEL_MAX_LENGTH:
        errs.append(max_len_error(DNS1123_LABEL_MAX_LENGTH))
    if not _DNS1123_LABEL_RE.fullmatch(value):
        errs.append(regex_error(DNS1123_LABEL_ERR_MSG, DNS1123_LABEL_FMT, "my-name", "123-abc"))
    return tuple(errs)


@functools.lru_cache(maxsize=8192)
def dns1123_subdomain_errors(value: str) -> tuple[str, ...]:
    errs = []
    if byte_len(value) > DNS1123_SUBDOMAIN_MAX_LENGTH:
        errs.append(max_len_error(DNS1123_SUBDOMAIN_MAX_LENGTH))
    if not _DNS1123_SUBDOMAIN_RE.fullmatch(value):
        errs.append(regex_error(DNS1123_SUBDOMAIN_ERR_MSG, DNS1123_SUBDOMAIN_FMT, "example.com"))
    return tuple(errs)


@functools.lru_cache(maxsize=1024)
def _dns1035_label_errors(value: str) -> tuple[str, ...]:
    errs = []
    if byte_len(value) > DNS1035_LABEL_MAX_LENGTH:
        errs.append(max_len_error(DNS1035_LABEL_MAX_LENGTH))
    if not _DNS1035_LABEL_RE.fullmatch(value):
        errs.append(regex_error(DNS1035_LABEL_ERR_MSG, DNS1035_LABEL_FMT, "my-name", "abc-123"))
    return tuple(errs)


def is_qualified_name(key: str) -> list[str]:
    """``IsQualifiedName``: the rules for label keys, taint and toleration keys,
    node-selector keys and topology keys.  Returns the messages (empty if valid).

    The name part may contain upper case; a ``prefix/`` must be a lower-case
    DNS-1123 subdomain (≤ 253); the name part is ≤ 63.
    """
    return list(qualified_name_errors(key))


def is_valid_label_value(value: str) -> list[str]:
    """``IsValidLabelValue`` (also taint values and ``Equal`` toleration values)."""
    return list(label_value_errors(value))


def is_dns1123_label(value: str) -> list[str]:
    return list(dns1123_label_errors(value))


def is_dns1123_subdomain(value: str) -> list[str]:
    return list(dns1123_subdomain_errors(value))


def is_dns1035_label(value: str) -> list[str]:
    return list(_dns1035_label_errors(value))


def is_valid_port_num(port: int) -> list[str]:
    return [] if 1 <= port <= 65535 else [inclusive_range_error(1, 65535)]


def is_valid_port_name(port: str) -> list[str]:
    errs = []
    if len(port) > 15:
        errs.append(max_len_error(15))
    if not _PORT_NAME_CHARSET_RE.fullmatch(port):
        errs.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not _PORT_NAME_ONE_LETTER_RE.search(port):
        errs.append("must contain at least one letter or number (a-z, 0-9)")
    if "--" in port:
        errs.append("must not contain consecutive hyphens")
    if port and (port[0] == "-" or port[-1] == "-"):
        errs.append("must not begin or end with a hyphen")
    return errs


def is_valid_percent(value: str) -> list[str]:
    if _PERCENT_RE.fullmatch(value):
        return []
    return [regex_error(PERCENT_ERR_MSG, PERCENT_FMT, "1%", "93%")]


# Object-name functions: (name, prefix) -> messages.  ``prefix`` is True for a
# generateName, whose trailing dash is masked before checking.


def _mask_trailing_dash(name: str) -> str:
    # Upstream replaces the last *two* characters with "a" (sic).
    if name.endswith("-") and len(name) >= 2:
        return name[:-2] + "a"
    return name


def name_is_dns_subdomain(name: str, prefix: bool) -> list[str]:
    return is_dns1123_subdomain(_mask_trailing_dash(name) if prefix else name)


def name_is_dns_label(name: str, prefix: bool) -> list[str]:
    return is_dns1123_label(_mask_trailing_dash(name) if prefix else name)


def name_is_dns1035_label(name: str, prefix: bool) -> list[str]:
    return is_dns1035_label(_mask_trailing_dash(name) if prefix else name)


def name_is_path_segment(name: str, prefix: bool) -> list[str]:
    """``path.ValidatePathSegmentName``: what the generic registry requires of
    every name (and all that PodDisruptionBudget names are checked against)."""
    if not prefix:
        for illegal in (".", ".."):
            if name == illegal:
                return [f"may not be '{illegal}'"]
    return [f"may not contain '{c}'" for c in ("/", "%") if c in name]


# ==========================================================================
# 2. Printing values the way Go does
# ==========================================================================

# Go prints pointers in %#v as addresses, which cannot be reproduced.
FAKE_POINTER = "0xc420000000"
_GO_ESCAPES = {"\a": r"\a", "\b": r"\b", "\f": r"\f", "\n": r"\n", "\r": r"\r", "\t": r"\t", "\v": r"\v"}


def go_quote(text: str) -> str:
    """``strconv.Quote`` / ``%q``: Go string-literal quoting."""
    if text.isascii() and text.isprintable() and '"' not in text and "\\" not in text:
        return '"' + text + '"'
    out = ['"']
    for ch in text:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch in _GO_ESCAPES:
            out.append(_GO_ESCAPES[ch])
        elif ch == " " or unicodedata.category(ch)[0] in "LMNPS":
            out.append(ch)  # strconv.IsPrint
        else:
            code = ord(ch)
            if code < 0x20 or code == 0x7F:
                out.append(f"\\x{code:02x}")
            elif code < 0x10000:
                out.append(f"\\u{code:04x}")
            else:
                out.append(f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


EXCERPT_CHARS = 64


def excerpt(text: str, quote: bool = True, limit: int = EXCERPT_CHARS) -> str:
    """At most ``limit`` characters of ``text`` for a message (``...`` marks a cut),
    Go-quoted unless ``quote`` is false (then only control characters are escaped)."""
    cut = text if len(text) <= limit else text[:limit] + "..."
    if quote:
        return go_quote(cut)
    return "".join(ch if ch.isprintable() else go_quote(ch)[1:-1] for ch in cut)


def _go_float(number: float) -> str:
    """``%v`` of a float64: shortest digits, exponent form below 1e-4 or from 1e21."""
    if number == 0:
        return "0"
    exact = Decimal(repr(number)).normalize()
    exponent = exact.adjusted()
    if -4 <= exponent < 21:
        return format(exact, "f")
    sign, digits, _ = exact.as_tuple()
    text = "".join(map(str, digits))
    mantissa = text[0] + ("." + text[1:] if len(text) > 1 else "")
    return ("-" if sign else "") + f"{mantissa}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"


@dataclass(frozen=True)
class GoValue:
    """A bad value that Go prints with ``%#v`` (a struct, map or slice dump).

    ``text`` is the exact dump; :meth:`FieldError.body` prints it unquoted.
    """

    text: str

    def __str__(self) -> str:
        return self.text


def go_string_map(mapping: dict | None, type_name: str = "map[string]string") -> str:
    if mapping is None:
        return f"{type_name}(nil)"
    items = ", ".join(f"{go_quote(str(k))}:{go_quote(as_str(mapping[k]))}" for k in sorted(mapping, key=str))
    return f"{type_name}{{{items}}}"


def _go_string_slice(items: list | None, type_name: str = "[]string") -> str:
    if items is None:
        return f"{type_name}(nil)"
    return f"{type_name}{{{', '.join(go_quote(as_str(i)) for i in items)}}}"


def go_pointer(type_name: str, present: bool) -> str:
    return f"(*{type_name})({FAKE_POINTER if present else 'nil'})"


def go_label_selector(selector: dict) -> GoValue:
    exprs = selector.get("matchExpressions")
    if exprs is None:
        rendered = "[]v1.LabelSelectorRequirement(nil)"
    else:
        rendered = (
            "[]v1.LabelSelectorRequirement{"
            + ", ".join(
                f"v1.LabelSelectorRequirement{{Key:{go_quote(str_at(e, 'key'))}, "
                f"Operator:{go_quote(str_at(e, 'operator'))}, Values:{_go_string_slice(get_at(e, 'values'))}}}"
                for e in exprs
            )
            + "}"
        )
    return GoValue(
        f"v1.LabelSelector{{MatchLabels:{go_string_map(selector.get('matchLabels'))}, MatchExpressions:{rendered}}}"
    )


def go_int_or_string(value: object) -> GoValue:
    if isinstance(value, str):
        return GoValue(f'intstr.IntOrString{{Type:1, IntVal:0, StrVal:{go_quote(value)}}}')
    return GoValue(f'intstr.IntOrString{{Type:0, IntVal:{as_int(value)}, StrVal:""}}')


def go_taint(taint: dict) -> GoValue:
    return GoValue(
        f"core.Taint{{Key:{go_quote(str_at(taint, 'key'))}, Value:{go_quote(str_at(taint, 'value'))}, "
        f"Effect:{go_quote(str_at(taint, 'effect'))}, "
        f"TimeAdded:{go_pointer('v1.Time', get_at(taint, 'timeAdded') is not None)}}}"
    )


def go_toleration(toleration: dict) -> GoValue:
    return GoValue(
        f"core.Toleration{{Key:{go_quote(str_at(toleration, 'key'))}, "
        f"Operator:{go_quote(str_at(toleration, 'operator'))}, Value:{go_quote(str_at(toleration, 'value'))}, "
        f"Effect:{go_quote(str_at(toleration, 'effect'))}, "
        f"TolerationSeconds:{go_pointer('int64', get_at(toleration, 'tolerationSeconds') is not None)}}}"
    )


def go_resource_list(quantities: dict) -> GoValue:
    items = ", ".join(f"{go_quote(name)}:{quantities[name].go_repr()}" for name in sorted(quantities))
    return GoValue(f"core.ResourceList{{{items}}}")


def render_value(value: object) -> str:
    """How ``field.Error.ErrorBody`` (1.11) prints a bad value: strings with
    ``%q``, ints/bools/floats with ``%v``, nil as ``null``, anything else with
    ``%#v`` (pass a :class:`GoValue`; plain dicts/lists of strings are dumped
    as ``map[string]string{...}`` / ``[]string{...}``, other values as JSON)."""
    if value is None:
        return "null"
    if isinstance(value, GoValue):
        return value.text
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _go_float(value)
    if isinstance(value, str):
        return go_quote(value) if len(value) <= MAX_RENDERED_CHARS else excerpt(value, limit=MAX_RENDERED_CHARS)
    if isinstance(value, dict) and all(isinstance(v, str) for v in value.values()):
        return go_string_map(value)
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return _go_string_slice(list(value))
    return json_excerpt(value)


MAX_RENDERED_CHARS = 1024  # a value longer than this is cut (``...``) in a message


def json_excerpt(value: object) -> str:
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= MAX_RENDERED_CHARS else text[:MAX_RENDERED_CHARS] + "..."


# ==========================================================================
# 3. Errors
# ==========================================================================

REQUIRED = "Required value"
INVALID = "Invalid value"
NOT_SUPPORTED = "Unsupported value"
DUPLICATE = "Duplicate value"
FORBIDDEN = "Forbidden"
TOO_LONG = "Too long"
NOT_FOUND = "Not found"
INTERNAL = "Internal error"
DECODE_ERROR = "DecodeError"

# metav1.CauseType for each type, as the Status JSON carries it.
_CAUSE_TYPES = {
    REQUIRED: "FieldValueRequired",
    INVALID: "FieldValueInvalid",
    NOT_SUPPORTED: "FieldValueNotSupported",
    DUPLICATE: "FieldValueDuplicate",
    FORBIDDEN: "FieldValueForbidden",
    TOO_LONG: "FieldValueTooLong",
    NOT_FOUND: "FieldValueNotFound",
    INTERNAL: "InternalError",
    DECODE_ERROR: "FieldValueInvalid",
}
# field/errors.go: these types never print the bad value.
_VALUELESS = frozenset({REQUIRED, FORBIDDEN, TOO_LONG, INTERNAL})


@dataclass(frozen=True)
class FieldError:
    """One ``field.Error``.

    ``type`` is the human type string (``"Invalid value"``...), or
    ``"DecodeError"`` for a decoding failure (see the module docstring).
    ``value`` is the bad value: a str, int, bool, None, or a :class:`GoValue`
    for the struct/map dumps Go prints with ``%#v``.
    """

    type: str
    field: str
    value: object = None
    detail: str = ""

    def body(self) -> str:
        """``ErrorBody()``: the message without the field path."""
        if self.type == DECODE_ERROR:
            return self.detail
        if self.type in _VALUELESS:
            text = self.type
        else:
            text = f"{self.type}: {render_value(self.value)}"
        if self.detail:
            text += f": {self.detail}"
        return text

    def __str__(self) -> str:
        if self.type == DECODE_ERROR:
            return self.detail
        return f"{self.field}: {self.body()}"

    @property
    def cause_type(self) -> str:
        """The ``StatusCause.reason`` the API server sends for this error."""
        return _CAUSE_TYPES.get(self.type, "FieldValueInvalid")


def required_value(path: str, detail: str = "") -> FieldError:
    return FieldError(REQUIRED, path, "", detail)


def invalid(path: str, value: object, detail: str) -> FieldError:
    return FieldError(INVALID, path, value, detail)


def not_supported(path: str, value: object, valid: Iterable[str]) -> FieldError:
    valid = list(valid)
    detail = "supported values: " + ", ".join(go_quote(v) for v in valid) if valid else ""
    return FieldError(NOT_SUPPORTED, path, value, detail)


def duplicate(path: str, value: object, detail: str = "") -> FieldError:
    return FieldError(DUPLICATE, path, value, detail)


def forbidden(path: str, detail: str) -> FieldError:
    return FieldError(FORBIDDEN, path, "", detail)


def too_long(path: str, value: object, max_length: int) -> FieldError:
    return FieldError(TOO_LONG, path, value, f"must have at most {max_length} characters")


def _aggregate(errors: Iterable[FieldError]) -> str:
    """``ErrorList.ToAggregate().Error()``: duplicates dropped, several wrapped in [...]."""
    messages: list[str] = []
    for err in errors:
        text = str(err)
        if text not in messages:
            messages.append(text)
    if len(messages) == 1:
        return messages[0]
    return "[" + ", ".join(messages) + "]"


class InvalidError(Exception):
    """What the API server answers when a document is refused.

    ``str(e)`` is the Status ``message``: for validation failures (HTTP 422,
    reason ``Invalid``) ``<Kind>[.<group>] "<name>" is invalid: <errors>``;
    for a decode failure (HTTP 400, reason ``BadRequest``)
    ``<Kind> in version "<version>" cannot be handled as a <Kind>: <error>``.
    """

    def __init__(self, kind: str, name: str, errors: list[FieldError], group: str = "", version: str = "v1"):
        self.kind = kind
        self.name = name
        self.errors = list(errors)
        self.group = group
        self.version = version
        super().__init__(self.message)

    @property
    def is_decode_error(self) -> bool:
        return any(e.type == DECODE_ERROR for e in self.errors)

    @property
    def reason(self) -> str:
        return "BadRequest" if self.is_decode_error else "Invalid"

    @property
    def code(self) -> int:
        return 400 if self.is_decode_error else 422

    @property
    def qualified_kind(self) -> str:
        """``GroupKind.String()``: ``Deployment.apps``, ``Pod``."""
        return f"{self.kind}.{self.group}" if self.group else self.kind

    @property
    def message(self) -> str:
        if self.is_decode_error:
            decode = next(e for e in self.errors if e.type == DECODE_ERROR)
            version = go_quote(self.version)
            return f"{self.kind} in version {version} cannot be handled as a {self.kind}: {decode.detail}"
        return f"{self.qualified_kind} {go_quote(self.name)} is invalid: {_aggregate(self.errors)}"

    def __str__(self) -> str:
        return self.message

    def cli_message(self) -> str:
        """How ``oc``/``kubectl`` print it (``checkErr``); no trailing newline.

        One cause: ``The Pod "p" is invalid: spec.x: Invalid value: ...``; several:
        the prefix line (ending in ``": "``) and one ``* field: message`` line each.
        A decode failure prints as ``Error from server (BadRequest): <message>``.
        """
        if self.is_decode_error:
            return f"Error from server (BadRequest): {self.message}"
        prefix = f"The {self.kind} {go_quote(self.name)} is invalid: "
        causes = [f"{e.field}: {e.body()}" for e in self.errors]
        if len(causes) == 1:
            return prefix + causes[0]
        return "\n".join([prefix] + [f"* {c}" for c in causes])

    def status(self) -> dict:
        """The ``metav1.Status`` object the API server returns."""
        status = {
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
            "code": self.code,
        }
        if not self.is_decode_error:
            details = {"name": self.name, "kind": self.kind}
            if self.group:
                details["group"] = self.group
            details["causes"] = [{"reason": e.cause_type, "message": e.body(), "field": e.field} for e in self.errors]
            status["details"] = details
        return status


# ==========================================================================
# 5. Small helpers on plain documents
# ==========================================================================


def get_at(obj: object, key: str, default: object = None) -> object:
    if isinstance(obj, dict):
        value = obj.get(key)
        return default if value is None else value
    return default


def as_str(value: object) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime.datetime):
        text = value.isoformat()
        return text[:-6] + "Z" if text.endswith("+00:00") else text
    if isinstance(value, datetime.date):
        return value.isoformat()
    return str(value)


def as_int(value: object) -> int:
    if isinstance(value, bool) or value is None:
        return 0
    if isinstance(value, (int, float)):
        return int(value)
    return 0


def str_at(obj: object, key: str) -> str:
    return as_str(get_at(obj, key, ""))


def dict_at(obj: object, key: str) -> dict:
    value = get_at(obj, key)
    return value if isinstance(value, dict) else {}


def list_at(obj: object, key: str) -> list:
    value = get_at(obj, key)
    return value if isinstance(value, list) else []


def child_path(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def index_path(path: str, i: int) -> str:
    return f"{path}[{i}]"


def key_path(path: str, key: str) -> str:
    return f"{path}[{key}]"


Errors = list  # a list[FieldError] being filled in
