"""Output helpers shared by the commands: simulated time as timestamps and ages, kubectl's
tabwriter tables, `-o yaml` (sigs.k8s.io/yaml: keys sorted, lists not indented under their
key), `-o json` and simple `-o jsonpath` templates.

Simulated time: documents of a stored cluster hold times as numbers of simulated seconds;
second 0 is EPOCH (2026-01-01T00:00:00Z), so `--now 2026-01-01T00:10:00Z` is simulated
second 600 and a pod created at 300 shows `AGE 5m`. Imported documents (snapshots,
must-gathers) hold RFC 3339 strings; both map onto the same scale.
"""

from __future__ import annotations

import json
import math
import re
from datetime import datetime, timedelta, timezone
from typing import Any, Mapping, Sequence

from .core import OcError

EPOCH = datetime(2026, 1, 1, tzinfo=timezone.utc)
EPOCH_TEXT = "2026-01-01T00:00:00Z"

_RFC3339 = re.compile(r"(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})")


def parse_time(text: str) -> float:
    """An RFC 3339 timestamp (fractional seconds allowed) -> simulated seconds; ValueError."""
    m = _RFC3339.fullmatch(text.strip())
    if not m:
        raise ValueError(f'parsing time "{text}" as "2006-01-02T15:04:05Z07:00": cannot parse')
    year, month, day, hour, minute, second = (int(g) for g in m.groups()[:6])
    frac = float(m.group(7)) if m.group(7) else 0.0
    zone = m.group(8)
    tz = timezone.utc
    if zone not in ("Z", "z"):
        sign = 1 if zone[0] == "+" else -1
        tz = timezone(sign * timedelta(hours=int(zone[1:3]), minutes=int(zone[4:6])))
    moment = datetime(year, month, day, hour, minute, second, tzinfo=tz)
    return (moment - EPOCH).total_seconds() + frac


# The times a timestamp can show: Go's RFC 3339 formatting stops at years 0001 and 9999.
_FIRST_SECOND = (datetime(1, 1, 1, tzinfo=timezone.utc) - EPOCH).total_seconds()
_LAST_SECOND = (datetime(9999, 12, 31, 23, 59, 59, tzinfo=timezone.utc) - EPOCH).total_seconds()


def _on_the_clock(number: float) -> float | None:
    """A number of seconds that is a time (finite, years 1-9999), else None (not a time)."""
    return number if _FIRST_SECOND <= number <= _LAST_SECOND else None  # NaN compares False


def seconds(value: Any) -> float | None:
    """A time from a document (simulated seconds or RFC 3339) on the simulated scale;
    None for no time, or a value that is not one (a snapshot is taken as given)."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        try:
            return _on_the_clock(float(value))
        except OverflowError:  # an int past float's range
            return None
    if isinstance(value, str):
        try:
            return _on_the_clock(float(value))
        except ValueError:
            pass
        try:
            return parse_time(value)
        except ValueError:
            return None
    return None


def timestamp(value: Any) -> str:
    """RFC 3339 (seconds precision, UTC) for a document time."""
    s = seconds(value)
    if s is None:
        return "" if value is None else str(value)
    return (EPOCH + timedelta(seconds=math.floor(s))).strftime("%Y-%m-%dT%H:%M:%SZ")


def human_duration(d: float) -> str:
    """duration.HumanDuration (apimachinery/pkg/util/duration)."""
    secs = int(d)
    if secs < -1:
        return "<invalid>"
    if secs < 0:
        return "0s"
    if secs < 60 * 2:
        return f"{secs}s"
    minutes = int(d // 60)
    if minutes < 10:
        s = int(d) % 60
        return f"{minutes}m" if s == 0 else f"{minutes}m{s}s"
    if minutes < 60 * 3:
        return f"{minutes}m"
    hours = int(d // 3600)
    if hours < 8:
        m = minutes % 60
        return f"{hours}h" if m == 0 else f"{hours}h{m}m"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        h = hours % 24
        return f"{hours // 24}d" if h == 0 else f"{hours // 24}d{h}h"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        dy = (hours // 24) % 365
        return f"{hours // 24 // 365}y" if dy == 0 else f"{hours // 24 // 365}y{dy}d"
    return f"{hours // 24 // 365}y"


def age(value: Any, now: float) -> str:
    """translateTimestampSince: `<unknown>` without a time."""
    s = seconds(value)
    if s is None:
        return "<unknown>"
    return human_duration(now - s)


# --- tables ---------------------------------------------------------------------------------------------------


def tabwriter(rows: Sequence[Sequence[str]], minwidth: int = 6, padding: int = 3) -> str:
    """A table as kubectl prints it (GetNewTabWriter: minwidth 6, padding 3)."""
    return go_tabwriter("".join("\t".join(r) + "\n" for r in rows), minwidth, padding)


# --- documents as oc prints them -------------------------------------------------------------------------------

TIME_FIELDS = frozenset({"creationTimestamp", "deletionTimestamp", "lastTransitionTime", "lastHeartbeatTime", "timeAdded",
                         "lastProbeTime", "startTime", "lastUpdateTime", "startedAt", "finishedAt", "completionTime",
                         "startedTime"})


def api_document(doc: Any, key: str = "") -> Any:
    """A stored document as the API returns it: simulated times as RFC 3339 strings."""
    if isinstance(doc, Mapping):
        return {k: api_document(v, k) for k, v in doc.items()}
    if isinstance(doc, list):
        return [api_document(v, key) for v in doc]
    if key in TIME_FIELDS and isinstance(doc, (int, float)) and not isinstance(doc, bool):
        return timestamp(doc)
    return doc


def json_text(doc: Any) -> str:
    """kubectl's -o json: the unstructured object as encoding/json marshals a map (keys
    sorted), indented by 4."""
    return json.dumps(doc, indent=4, ensure_ascii=False, sort_keys=True) + "\n"


_PLAIN = re.compile(r"^[A-Za-z0-9_./][A-Za-z0-9_./ :=@+-]*$")
_SPECIAL = {"", "true", "false", "yes", "no", "on", "off", "y", "n", "null", "~", "True", "False", "TRUE", "FALSE",
            "Yes", "No", "YES", "NO", "On", "Off", "ON", "OFF", "Null", "NULL", "Y", "N"}


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return json.dumps(value)
    text = str(value)
    needs_quotes = (
        text in _SPECIAL
        or not _PLAIN.match(text)
        or text != text.strip()
        or ": " in text
        or text.endswith(":")
        or " #" in text
        or re.fullmatch(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", text) is not None
        or re.fullmatch(r"0[xo][0-9a-fA-F]+", text) is not None
        or re.match(r"\d{4}-\d{1,2}-\d{1,2}", text) is not None
    )
    return json.dumps(text, ensure_ascii=False) if needs_quotes else text


def yaml_text(value: Any, indent: int = 0) -> str:
    """YAML as kubectl prints it (go-yaml via sigs.k8s.io/yaml): mapping keys sorted,
    sequences at their key's indentation, 2-space indent."""
    pad = " " * indent
    if isinstance(value, Mapping):
        if not value:
            return "{}\n"
        out = []
        for k in sorted(value):
            v = value[k]
            key = _scalar(str(k))
            if isinstance(v, Mapping) and v:
                out.append(f"{pad}{key}:\n{yaml_text(v, indent + 2)}")
            elif isinstance(v, list) and v:
                out.append(f"{pad}{key}:\n{yaml_text(v, indent)}")
            else:
                out.append(f"{pad}{key}: {_inline(v)}\n")
        return "".join(out)
    if isinstance(value, list):
        if not value:
            return "[]\n"
        out = []
        for item in value:
            if isinstance(item, Mapping) and item:
                body = yaml_text(item, indent + 2)
                out.append(f"{pad}- {body[indent + 2:]}")
            elif isinstance(item, list) and item:
                body = yaml_text(item, indent + 2)
                out.append(f"{pad}- {body[indent + 2:]}")
            else:
                out.append(f"{pad}- {_inline(item)}\n")
        return "".join(out)
    return f"{pad}{_inline(value)}\n"


def _inline(v: Any) -> str:
    if isinstance(v, Mapping):
        return "{}"
    if isinstance(v, list):
        return "[]"
    if isinstance(v, str) and "\n" in v:
        return json.dumps(v, ensure_ascii=False)
    return _scalar(v)


# --- jsonpath (the simple forms) -------------------------------------------------------------------------------


def jsonpath(template: str, doc: Any) -> str:
    """`{.metadata.name}`, `{.items[*].metadata.name}`, `{.spec.taints[0].key}`, literal
    text between expressions, `{"\\n"}`, and `{range .items[*]}...{end}`."""
    out: list[str] = []
    pos = 0
    parts = re.split(r"(\{[^{}]*\})", template)
    i = 0

    def render(parts: list[str], data: Any) -> str:
        text: list[str] = []
        j = 0
        while j < len(parts):
            part = parts[j]
            j += 1
            if not part:
                continue
            if not (part.startswith("{") and part.endswith("}")):
                text.append(part)
                continue
            expr = part[1:-1].strip()
            if expr.startswith("range "):
                depth, body = 1, []
                while j < len(parts):
                    p = parts[j]
                    j += 1
                    inner = p[1:-1].strip() if p.startswith("{") and p.endswith("}") else None
                    if inner is not None and inner.startswith("range "):
                        depth += 1
                    elif inner == "end":
                        depth -= 1
                        if depth == 0:
                            break
                    body.append(p)
                for item in _select(expr[6:].strip(), data):
                    text.append(render(body, item))
                continue
            if expr.startswith('"') and expr.endswith('"'):
                text.append(json.loads(expr))
                continue
            values = _select(expr, data)
            text.append(" ".join(_jp_value(v) for v in values))
        return "".join(text)

    del pos, i, out
    return render(parts, doc)


def _jp_value(v: Any) -> str:
    if isinstance(v, (Mapping, list)):
        return json.dumps(v, separators=(",", ":"), sort_keys=True)  # encoding/json: map keys sorted
    if isinstance(v, bool):
        return "true" if v else "false"
    return "" if v is None else str(v)


_TOKEN = re.compile(r"\.([A-Za-z0-9_\-/]+|\*)|\[(\*|-?\d+|'[^']*'|\"[^\"]*\")\]|\.\[")


def _select(expr: str, data: Any) -> list[Any]:
    if expr in ("", "."):
        return [data]
    if expr.startswith("@"):
        expr = expr[1:]
    if not expr.startswith(".") and not expr.startswith("["):
        expr = "." + expr
    current = [data]
    pos = 0
    while pos < len(expr):
        m = _TOKEN.match(expr, pos)
        if not m:
            raise OcError(f"error parsing jsonpath {{{expr}}}, unrecognized character in action: U+{ord(expr[pos]):04X} '{expr[pos]}'")
        pos = m.end()
        key, index = m.group(1), m.group(2)
        nxt: list[Any] = []
        for item in current:
            if key == "*" or index == "*":
                if isinstance(item, Mapping):
                    nxt.extend(item.values())
                elif isinstance(item, list):
                    nxt.extend(item)
            elif key is not None:
                if isinstance(item, Mapping) and key in item:
                    nxt.append(item[key])
            elif index is not None:
                if index[0] in "'\"":
                    name = index[1:-1]
                    if isinstance(item, Mapping) and name in item:
                        nxt.append(item[name])
                elif isinstance(item, list):
                    k = int(index)
                    if -len(item) <= k < len(item):
                        nxt.append(item[k])
        current = nxt
    return current


def go_tabwriter(text: str, minwidth: int = 0, padding: int = 2) -> str:
    """Go's text/tabwriter (no flags, padchar ' '): tab-terminated cells are aligned in
    column blocks of consecutive lines; the last cell of a line is not aligned."""
    lines = [line.split("\t") for line in text.split("\n")]
    trailing = lines and lines[-1] == [""]
    if trailing:
        lines = lines[:-1]
    out: list[str] = []
    widths: list[int] = []

    def write(line0: int, line1: int) -> None:
        for cells in lines[line0:line1]:
            parts = []
            for j, cell in enumerate(cells):
                if j < len(cells) - 1 and j < len(widths):
                    parts.append(cell.ljust(widths[j]))
                else:
                    parts.append(cell)
            out.append("".join(parts))

    def fmt(line0: int, line1: int) -> None:
        column = len(widths)
        this = line0
        while this < line1:
            if column >= len(lines[this]) - 1:
                this += 1
                continue
            write(line0, this)
            line0 = this
            width = minwidth
            while this < line1 and column < len(lines[this]) - 1:
                width = max(width, len(lines[this][column]) + padding)
                this += 1
            widths.append(width)
            fmt(line0, this)
            widths.pop()
            line0 = this
        write(line0, line1)

    fmt(0, len(lines))
    return "\n".join(out) + ("\n" if trailing else "")


def rfc1123z(value: Any) -> str:
    """Go's time.RFC1123Z in UTC: `Thu, 01 Jan 2026 00:05:00 +0000`; an unset time is Go's
    zero time, as describe prints a metav1.Time it was not given."""
    s = seconds(value)
    if s is None:
        return "Mon, 01 Jan 0001 00:00:00 +0000"
    return (EPOCH + timedelta(seconds=math.floor(s))).strftime("%a, %d %b %Y %H:%M:%S +0000")
