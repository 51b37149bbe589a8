"""What every `oc` command shares: the result, the errors, pflag-style flag parsing with
pflag's messages, dry-run strategies, the resource names of the simulated kinds and the
name printer.

kubectl/oc print command errors through `cmdutil.CheckErr`: `error: <message>`; usage
errors add `See '<command path> -h' for help and examples`; flag parsing errors (pflag's,
through the root command's FlagErrorFunc, kubectl pkg/util/templates) add `See '<command
path> --help' for usage.`; API errors are printed as the
server words them (`Error from server (NotFound): nodes "x" not found`). The dispatcher
(engine.oc.commands) turns an `OcError` into that text; commands raise it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from scheduling.engine.api.kinds import BY_KIND as KINDS_BY_NAME, TABLE, Kind


TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


@dataclass
class OcResult:
    stdout: str = ""
    stderr: str = ""
    exit_code: int = 0
    actions: list = field(default_factory=list)
    # A drain that has not finished on this call (engine.oc.drain.DrainPlan as a dict):
    # the caller continues it on the clock (see engine.oc.drain).
    pending: dict | None = None
    # What a `--dry-run=server` would have applied (the console's what-if preview).
    would: list = field(default_factory=list)
    # (stream, text) in the order printed, when a command interleaves stdout and stderr.
    lines: list = field(default_factory=list)
    # `oc edit`: the file kubectl would open in the editor (engine.oc.edit); the caller shows it.
    edit: str | None = None


class OcError(Exception):
    """A command error: `message` is kubectl's text (printed `error: <message>`; usage
    errors add the `See '<cmd> -h' for help and examples` line; `raw` ones are printed as
    they are: `Error from server ...`, `The Node "x" is invalid: ...`; `flag` ones, pflag's
    parse errors, add `See '<cmd> --help' for usage.`)."""

    def __init__(self, message: str, usage: bool = False, raw: bool = False, flag: bool = False):
        super().__init__(message)
        self.message = message
        self.usage = usage
        self.raw = raw
        self.flag = flag


# --- flags (spf13/pflag) ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Flag:
    """One flag: kind is bool, string, int, duration, strings (repeatable) or dryrun
    (`--dry-run` alone means "unchanged", i.e. client)."""

    name: str
    kind: str = "bool"
    short: str = ""
    default: Any = None


NAMESPACE = Flag("namespace", "string", "n", "")
HELP = Flag("help", "bool", "h", False)
DRY_RUN = Flag("dry-run", "dryrun", "", "none")
OUTPUT = Flag("output", "string", "o", "")
SELECTOR = Flag("selector", "string", "l", "")
ALL = Flag("all", "bool", "", False)
OVERWRITE = Flag("overwrite", "bool", "", False)
FILENAME = Flag("filename", "strings", "f", ())
GLOBAL_FLAGS = (NAMESPACE, HELP)


class Flags:
    """Parsed flag values by name (`flags.dry_run`, `flags["dry-run"]`) and which were given."""

    def __init__(self, specs: Sequence[Flag]):
        self._values = {f.name: (list(f.default) if f.kind == "strings" else f.default) for f in specs}
        self.given: set[str] = set()

    def __getattr__(self, name: str) -> Any:
        try:
            return self.__dict__["_values"][name.replace("_", "-")]
        except KeyError:
            raise AttributeError(name) from None

    def __getitem__(self, name: str) -> Any:
        return self._values[name]

    def set(self, name: str, value: Any) -> None:
        self._values[name] = value

    def changed(self, name: str) -> bool:
        return name in self.given


_TRUE = ("1", "t", "T", "TRUE", "true", "True")
_FALSE = ("0", "f", "F", "FALSE", "false", "False")


def _parse_bool(flag: str, value: str) -> bool:
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise OcError(f'invalid argument "{value}" for "{flag}" flag: strconv.ParseBool: parsing "{value}": invalid syntax', flag=True)


_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def parse_duration(text: str) -> float:
    """time.ParseDuration -> seconds; ValueError with Go's message."""
    s = text
    if s in ("0", "+0", "-0"):
        return 0.0
    if not s:
        raise ValueError(f'time: invalid duration "{text}"')
    sign = -1.0 if s.startswith("-") else 1.0
    s = s.lstrip("+-")
    total = 0.0
    pos = 0
    pattern = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)?")
    while pos < len(s):
        m = pattern.match(s, pos)
        if not m:
            raise ValueError(f'time: invalid duration "{text}"')
        if m.group(2) is None:
            raise ValueError(f'time: missing unit in duration "{text}"')
        total += float(m.group(1)) * _UNITS[m.group(2)]
        pos = m.end()
    return sign * total


def go_duration(seconds: float) -> str:
    """time.Duration.String(): 5s, 1m30s, 2h0m0s, 1.5s, 0s."""
    if seconds == 0:
        return "0s"
    sign = "-" if seconds < 0 else ""
    seconds = abs(seconds)
    if seconds < 1:
        ms = seconds * 1000
        return f"{sign}{ms:g}ms"
    hours = int(seconds // 3600)
    minutes = int((seconds % 3600) // 60)
    secs = seconds - hours * 3600 - minutes * 60
    sec_text = f"{secs:.9f}".rstrip("0").rstrip(".") + "s"
    if hours:
        return f"{sign}{hours}h{minutes}m{sec_text}"
    if minutes:
        return f"{sign}{minutes}m{sec_text}"
    return f"{sign}{sec_text}"


def _convert(spec: Flag, shown: str, value: str) -> Any:
    if spec.kind == "bool":
        return _parse_bool(shown, value)
    if spec.kind == "int":
        try:
            return int(value, 10)
        except ValueError:
            raise OcError(f'invalid argument "{value}" for "{shown}" flag: strconv.ParseInt: parsing "{value}": invalid syntax',
                          flag=True) from None
    if spec.kind == "duration":
        try:
            return parse_duration(value)
        except ValueError as exc:
            raise OcError(f'invalid argument "{value}" for "{shown}" flag: {exc}', flag=True) from None
    return value


def parse_flags(args: Sequence[str], specs: Sequence[Flag]) -> tuple[list[str], Flags]:
    """pflag-style parsing, flags interspersed with arguments; `--` ends flags. The
    command's flags plus the global ones (-n, -h)."""
    specs = tuple(specs) + tuple(f for f in GLOBAL_FLAGS if f.name not in {s.name for s in specs})
    by_name = {f.name: f for f in specs}
    by_short = {f.short: f for f in specs if f.short}
    flags = Flags(specs)
    positional: list[str] = []
    i = 0

    def store(spec: Flag, value: Any) -> None:
        flags.given.add(spec.name)
        if spec.kind == "strings":
            flags._values[spec.name] = list(flags._values[spec.name]) + [value]
        else:
            flags._values[spec.name] = value

    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--":
            positional.extend(args[i:])
            break
        if arg.startswith("--") and len(arg) > 2:
            name, eq, value = arg[2:].partition("=")
            spec = by_name.get(name)
            if spec is None:
                raise OcError(f"unknown flag: --{name}", flag=True)
            shown = f"--{name}"
            if spec.kind == "bool":
                store(spec, _parse_bool(shown, value) if eq else True)
            elif spec.kind == "dryrun":
                store(spec, value if eq else "unchanged")
            else:
                if not eq:
                    if i >= len(args):
                        raise OcError(f"flag needs an argument: --{name}", flag=True)
                    value = args[i]
                    i += 1
                store(spec, _convert(spec, shown, value))
        elif arg.startswith("-") and len(arg) > 1:
            j = 1
            while j < len(arg):
                short = arg[j]
                spec = by_short.get(short)
                if spec is None:
                    raise OcError(f"unknown shorthand flag: '{short}' in {arg}", flag=True)
                shown = f"-{short}, --{spec.name}"
                rest = arg[j + 1:]
                if spec.kind == "bool":
                    if rest.startswith("="):
                        store(spec, _parse_bool(shown, rest[1:]))
                        break
                    store(spec, True)
                    j += 1
                    continue
                value = rest[1:] if rest.startswith("=") else rest
                if not rest:
                    if i >= len(args):
                        raise OcError(f"flag needs an argument: '{short}' in -{short}", flag=True)
                    value = args[i]
                    i += 1
                store(spec, _convert(spec, shown, value))
                break
        else:
            positional.append(arg)
    return positional, flags


def dry_run_strategy(value: str) -> str:
    """cmdutil.GetDryRunStrategy: none, client or server (a bare --dry-run means client)."""
    if value in ("none", "false", ""):
        return "none"
    if value in ("client", "true", "unchanged"):
        return "client"
    if value == "server":
        return "server"
    raise OcError(f'Invalid dry-run value ({value}). Must be "none", "server", or "client".')


def dry_run_suffix(dry_run: str) -> str:
    return {"client": " (dry run)", "server": " (server dry run)"}.get(dry_run, "")


# --- resources --------------------------------------------------------------------------------------------


# Every simulated kind with the names `oc` accepts: the one kinds table (engine.api.kinds).
Resource = Kind
RESOURCES: tuple[Resource, ...] = TABLE
BY_KIND = KINDS_BY_NAME


def find_resource(word: str) -> Resource | None:
    """A resource by any of its names, case-insensitive, optionally group-qualified
    (`deployments.apps`, `machineconfigpools.machineconfiguration.openshift.io`)."""
    word = word.lower()
    name, _, group = word.partition(".")
    for r in RESOURCES:
        if name in r.names() or (not group and word == r.kind.lower()):
            if not group or group == r.group or r.group.startswith(group):
                return r
    return None


def resource_or_error(word: str) -> Resource:
    r = find_resource(word)
    if r is None:
        raise OcError(f'the server doesn\'t have a resource type "{word}"')
    return r


def not_found(resource: Resource, name: str) -> OcError:
    return OcError(f'Error from server (NotFound): {resource.resource_string} "{name}" not found', raw=True)


def split_type_names(words: Sequence[str]) -> list[tuple[Resource, str | None]]:
    """`TYPE NAME...`, `TYPE/NAME ...` or `TYPE1,TYPE2` -> (resource, name or None) pairs."""
    if not words:
        return []
    if "/" in words[0]:
        pairs = []
        for w in words:
            t, slash, n = w.partition("/")
            if not slash:
                raise OcError("there is no need to specify a resource type as a separate argument when passing arguments in "
                              "resource/name form (e.g. 'oc get resource/<resource_name>' instead of 'oc get resource "
                              "resource/<resource_name>'")
            pairs.append((resource_or_error(t), n))
        return pairs
    types = [resource_or_error(t) for t in words[0].split(",") if t]
    if len(words) == 1:
        return [(t, None) for t in types]
    return [(t, n) for t in types for n in words[1:]]


# --- output -------------------------------------------------------------------------------------------------


def name_line(resource: Resource, name: str, operation: str = "", dry_run: str = "none") -> str:
    """The name printer: `node/n1 tainted (dry run)`."""
    op = f" {operation}{dry_run_suffix(dry_run)}" if operation else ""
    return f"{resource.kind_string}/{name}{op}\n"


def meta(doc: Mapping[str, Any]) -> Mapping[str, Any]:
    return doc.get("metadata") or {}


def format_errors(errors: Sequence[OcError]) -> str:
    """checkErr: one error -> `error: <msg>` (raw ones as is); several -> one per line."""
    if len(errors) == 1:
        e = errors[0]
        return (e.message if e.raw else error_line(e.message)) + "\n"
    return "".join(e.message + "\n" for e in errors)


def error_line(message: str) -> str:
    return message if message.startswith("error: ") else f"error: {message}"


def finish(out: Sequence[str], errors: Sequence[OcError], actions: list, dry_run: str = "none") -> OcResult:
    """The result; with a server dry run the actions become `would` (nothing is applied)."""
    applied, would = (actions, []) if dry_run == "none" else ([], actions if dry_run == "server" else [])
    if errors:
        return OcResult("".join(out), format_errors(errors), 1, applied, would=would)
    return OcResult("".join(out), "", 0, applied, would=would)
