"""Cron schedules as the CronJob API reads them: robfig/cron v3's ParseStandard (five
fields, minute hour day-of-month month day-of-week, or a descriptor: @yearly, @annually,
@monthly, @weekly, @daily, @midnight, @hourly, @every <duration>) with its error messages,
and SpecSchedule.Next: the first activation strictly after a time, in a time zone.

`parse(spec)` returns a Schedule or raises CronError whose str() is robfig's message (what
the API server puts after `spec.schedule: Invalid value: "<spec>": `).
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

UTC = datetime.timezone.utc
STAR = 1 << 63  # robfig's starBit: the field was `*` or `?` (a day field then does not restrict)

# (min, max, names) of the five fields
MINUTES = (0, 59, None)
HOURS = (0, 23, None)
DOM = (1, 31, None)
MONTHS = (1, 12, {m: i for i, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct",
                                              "nov", "dec"), start=1)})
DOW = (0, 6, {d: i for i, d in enumerate(("sun", "mon", "tue", "wed", "thu", "fri", "sat"))})

DESCRIPTORS = {
    "@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *", "@monthly": "0 0 1 * *", "@weekly": "0 0 * * 0",
    "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@hourly": "0 * * * *",
}
_DURATION_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_DURATION_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)")


class CronError(ValueError):
    """A schedule robfig/cron refuses; str() is its message."""


@dataclass(frozen=True)
class Schedule:
    """A parsed schedule: the bits of each field (SpecSchedule), or `every` seconds (@every)."""

    minute: int = 0
    hour: int = 0
    dom: int = 0
    month: int = 0
    dow: int = 0
    every: float | None = None

    def next(self, after: datetime.datetime) -> datetime.datetime | None:
        """The first activation strictly after `after` (an aware datetime, in the schedule's
        zone); None when there is none within five years (robfig gives the zero time)."""
        if self.every is not None:
            return after.replace(microsecond=0) + datetime.timedelta(seconds=self.every)
        t = after.replace(second=0, microsecond=0) + datetime.timedelta(minutes=1)
        limit = t.year + 5
        while t.year <= limit:
            if not self.month & (1 << t.month):
                t = _first_of_next_month(t)
                continue
            if not self._day_matches(t):
                t = (t + datetime.timedelta(days=1)).replace(hour=0, minute=0)
                continue
            if not self.hour & (1 << t.hour):
                t = (t + datetime.timedelta(hours=1)).replace(minute=0)
                continue
            if not self.minute & (1 << t.minute):
                t = t + datetime.timedelta(minutes=1)
                continue
            return t
        return None

    def _day_matches(self, t: datetime.datetime) -> bool:
        """dayMatches: both day fields must match when either is a star, either one otherwise."""
        dom = bool(self.dom & (1 << t.day))
        dow = bool(self.dow & (1 << ((t.weekday() + 1) % 7)))
        if self.dom & STAR or self.dow & STAR:
            return dom and dow
        return dom or dow


def _first_of_next_month(t: datetime.datetime) -> datetime.datetime:
    year, month = (t.year + 1, 1) if t.month == 12 else (t.year, t.month + 1)
    return t.replace(year=year, month=month, day=1, hour=0, minute=0)


def _parse_int(expr: str) -> int:
    """mustParseInt (strconv.Atoi's error text)."""
    if not re.fullmatch(r"[+-]?\d+", expr):
        raise CronError(f'failed to parse int from {expr}: strconv.Atoi: parsing "{expr}": invalid syntax')
    num = int(expr)
    if num < 0:
        raise CronError(f"negative number ({num}) not allowed: {expr}")
    return num


def _int_or_name(expr: str, names: dict | None) -> int:
    if names is not None and expr.lower() in names:
        return names[expr.lower()]
    return _parse_int(expr)


def _range(expr: str, bounds: tuple) -> int:
    """getRange: `*`, `?`, `a`, `a-b`, each with an optional `/step`."""
    low, high, names = bounds
    range_and_step = expr.split("/")
    low_and_high = range_and_step[0].split("-")
    single = len(low_and_high) == 1
    extra = 0
    if low_and_high[0] in ("*", "?"):
        start, end, extra = low, high, STAR
    else:
        start = _int_or_name(low_and_high[0], names)
        if len(low_and_high) == 1:
            end = start
        elif len(low_and_high) == 2:
            end = _int_or_name(low_and_high[1], names)
        else:
            raise CronError(f"too many hyphens: {expr}")
    if len(range_and_step) == 1:
        step = 1
    elif len(range_and_step) == 2:
        step = _parse_int(range_and_step[1])
        if single:
            end = high
        if step > 1:
            extra = 0
    else:
        raise CronError(f"too many slashes: {expr}")
    if start < low:
        raise CronError(f"beginning of range ({start}) below minimum ({low}): {expr}")
    if end > high:
        raise CronError(f"end of range ({end}) above maximum ({high}): {expr}")
    if start > end:
        raise CronError(f"beginning of range ({start}) beyond end of range ({end}): {expr}")
    if step == 0:
        raise CronError(f"step of range should be a positive number: {expr}")
    bits = 0
    for i in range(start, end + 1, step):
        bits |= 1 << i
    return bits | extra


def _field(text: str, bounds: tuple) -> int:
    bits = 0
    for expr in text.split(","):
        bits |= _range(expr, bounds)
    return bits


def _go_duration(text: str) -> float:
    """time.ParseDuration for the units it knows; CronError with Go's message otherwise."""
    rest = text
    sign = 1.0
    if rest[:1] in "+-" and rest:
        sign, rest = (-1.0 if rest[0] == "-" else 1.0), rest[1:]
    if rest == "0":
        return 0.0
    total, pos = 0.0, 0
    while pos < len(rest):
        m = _DURATION_PART.match(rest, pos)
        if m is None:
            raise CronError(f'time: invalid duration "{text}"')
        total += float(m.group(1)) * _DURATION_UNITS[m.group(2)]
        pos = m.end()
    if not rest:
        raise CronError(f'time: invalid duration "{text}"')
    return sign * total


def parse(spec: str) -> Schedule:
    """cron.ParseStandard."""
    if not spec:
        raise CronError("empty spec string")
    if spec.startswith("TZ=") or spec.startswith("CRON_TZ="):
        zone, _, spec = spec.partition(" ")
        name = zone.partition("=")[2]
        try:
            ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            raise CronError(f"provided bad location {name}: unknown time zone {name}") from None
        spec = spec.strip()
    if spec.startswith("@"):
        if spec.startswith("@every "):
            try:
                seconds = _go_duration(spec[len("@every "):])
            except CronError as exc:
                raise CronError(f"failed to parse duration {spec}: {exc}") from None
            return Schedule(every=max(1.0, float(int(seconds))))  # Every: at least a second, whole seconds
        if spec not in DESCRIPTORS:
            raise CronError(f"unrecognized descriptor: {spec}")
        spec = DESCRIPTORS[spec]
    fields = spec.split()
    if len(fields) != 5:
        raise CronError(f"expected exactly 5 fields, found {len(fields)}: [{' '.join(fields)}]")
    return Schedule(_field(fields[0], MINUTES), _field(fields[1], HOURS), _field(fields[2], DOM),
                    _field(fields[3], MONTHS), _field(fields[4], DOW))


def zone(name: str | None) -> datetime.tzinfo:
    """The schedule's time zone (spec.timeZone; None: the controller manager's, UTC here)."""
    if not name:
        return UTC
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return UTC


def time_zone_error(name: str) -> str | None:
    """time.LoadLocation's refusal of a zone name (None: it loads)."""
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return f"unknown time zone {name}"
    return None
