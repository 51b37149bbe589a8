"""Kubernetes YAML in and out.

`load_documents` turns the text a user pastes or a file holds (YAML or JSON, one or many
documents, `kind: List` unpacked) into validated documents with the API server's defaults
applied, or raises `DocumentError` naming every bad document, its field path and the
Kubernetes message. Nothing here touches the database, so the `simulate` command uses it
too. `dump_documents` writes multi-document YAML that loads back to the same objects.

Limits at the door. Every entry point (`simulate`, `import_cluster`, the web import, the
editor previews, the policy page) parses through `parse_documents` / `parse_value`, which
bound the work *before* any object is built:

* **Size.** Text longer than `MAX_TEXT_BYTES` is refused outright (the API server's
  "Request entity too large").
* **JSON** (text starting with `{` or `[`) is read with `json.loads`; its C decoder raises
  `RecursionError` rather than crashing on absurd nesting, and the walk below bounds depth.
* **YAML** is scanned and parsed by libyaml (`yaml.CSafeLoader`) when PyYAML has it (the
  pure-Python scanner is ~50x slower), but libyaml's events are built into values by our
  own loop (PyYAML's composer and constructor fused, with no node tree: `_Loader`).
  libyaml's own C composer recurses without a limit and segfaults the process on ~100,000
  nested `[`; ours counts depth and stops at `MAX_DEPTH`.
* **Anchors and aliases are allowed, within a budget.** kubectl accepts them (people write
  `<<: *defaults`), so refusing them would refuse real manifests. What makes an alias bomb
  is *expansion*: each alias stands for the whole subtree it names. The composer keeps the
  expanded node count of every composed subtree; each alias adds its target's count to the
  expansion, and once the nodes added by aliases exceed `ALIAS_BUDGET_MIN` or the
  document's own node count (whichever is larger) the input is refused with go-yaml's
  message `yaml: document contains excessive aliasing`. A recursive alias (`&a [*a]`) is
  refused too. The cost is linear in the input, so a 600-byte bomb is refused in
  microseconds instead of expanding to gigabytes downstream.
* **Only JSON values.** Kubernetes YAML is JSON written as YAML: explicit tags that build
  anything else (`!!binary`, `!!timestamp`, `!!set`, `!!omap`, `!!pairs`, `!!python/...`,
  local `!tags`) are refused, naming the field; implicit timestamps stay strings (as with
  kubectl). After construction one walk copies the value into plain dicts and lists
  (aliases are materialised, within the budget above) and refuses, naming the field:
  NUL characters and unpaired surrogates (neither database stores them), `.nan`/`.inf`
  and numbers beyond float range (JSON has neither), and keys that are not strings.
  Integer and boolean keys become strings, as sigs.k8s.io/yaml does; two keys that then
  collide (`1:` and `"1":`) are a duplicate.
* Messages quote at most `EXCERPT_CHARS` characters of a value.
"""

from __future__ import annotations

import json
import math
import re
from typing import Callable

import yaml
from yaml.composer import ComposerError
from yaml.constructor import ConstructorError
from yaml.events import (
    AliasEvent,
    MappingEndEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)
from yaml.nodes import ScalarNode

from scheduling.engine.api.defaults import KINDS, apply_defaults
from scheduling.engine.bulk import gc_paused
from scheduling.engine.framework import config as framework_config
from scheduling.engine.api.validation import decode_and_validate, excerpt, invalid_error


# Documents that are not cluster objects but are accepted beside them.
POLICY_KIND = "Policy"
# The OpenShift 4 scheduler's configuration documents (a cluster's, like its Policy).
SCHEDULER_CONFIG_KINDS = framework_config.CONFIG_KINDS
TIMELINE_KIND = "Timeline"

MAX_TEXT_BYTES = 20 * 1024 * 1024  # the web import's file limit; the same for every entry point
MAX_DEPTH = 100  # nested mappings/sequences; the objects the simulator reads nest ~15 deep
ALIAS_BUDGET_MIN = 10_000  # nodes aliases may add, or the document's own node count if larger
EXCESSIVE_ALIASING = "yaml: document contains excessive aliasing"
PROGRESS_EVERY = 20_000  # composed nodes between two progress reports

Progress = Callable[[str, float], None]  # (phase, fraction done)


class DocumentError(ValueError):
    """One or more documents are unusable; str() is the whole message for the user."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("\n".join(problems))


class _Refused(Exception):
    """Raised inside the loader; becomes a DocumentError with the source prepended."""

    def __init__(self, message: str, mark=None):
        super().__init__(message)
        self.mark = mark


# The scalar and collection tags a JSON value can carry; `merge` is the `<<` key.
_JSON_TAGS = frozenset(
    "tag:yaml.org,2002:" + t for t in ("str", "int", "float", "bool", "null", "map", "seq", "merge")
)
_TAG_PREFIX = "tag:yaml.org,2002:"


def _path(stack: list) -> str:
    out = ""
    for part in stack:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            part = excerpt(part, quote=False)
            out += f".{part}" if out else part
    if len(out) > 120:
        out = out[:60] + "..." + out[-40:]
    return out or "<document>"


_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _TextReader:
    """A text read in slices (what libyaml asks for), so no copy of all of it is made."""

    def __init__(self, text: str):
        self.text, self.position = text, 0

    def read(self, size: int = -1) -> str:
        end = len(self.text) if size is None or size < 0 else self.position + size
        chunk = self.text[self.position:end]
        self.position += len(chunk)
        return chunk


class _Loader(_BaseLoader):
    """libyaml's events built straight into plain JSON values, within depth and alias budgets.

    PyYAML's composer and constructor fused, for JSON values (what kubectl reads): no node
    tree is built. A scalar's value is the one PyYAML's SafeLoader constructs (YAML 1.1:
    `yes`, `0x1f`, `1_000`, `1:30`; timestamps stay strings); `<<` merges as PyYAML's
    flatten_mapping does; keys and values are checked as `_plain` checks a value, while they
    are built. A plain scalar of up to `_CACHED_CHARS` characters is resolved once per text
    (the same words come back thousands of times: `name`, `Equal`, `NoSchedule`).

    Three differences from PyYAML's tree, all refusals of what it would let through: a merged
    mapping's keys are already strings, so a merged `1:` and the mapping's own `1:` are two
    keys `"1"` (a duplicate) where PyYAML overrides one with the other; and a merge value
    with the wrong explicit tag (`<<: !!map []`) is refused as any such value is, where
    PyYAML never constructs it. And a value is checked where it stands, so a bad value
    under a key that a duplicate key later overrides is refused, where PyYAML drops it first."""

    def __init__(self, stream, progress: Progress | None = None):
        # libyaml reads a str whole as a UTF-8 copy; a reader it reads in chunks
        super().__init__(_TextReader(stream) if isinstance(stream, str) and _BaseLoader is not yaml.SafeLoader else stream)
        self._progress = progress
        self._length = max(1, len(stream))
        self._next_report = PROGRESS_EVERY
        self.anchors: dict[str, list] = {}  # anchor -> [value, size (None while it is built), start mark]
        self._nodes = 0  # nodes built from the text
        self._aliased = 0  # nodes the aliases add on expansion
        self._scalars: dict[str, object] = {}  # plain scalar text -> its value
        # Only a double-quoted scalar can hold a character its text does not (an escape):
        # with no NUL or lone surrogate in the text, only those need the text check.
        self._check_all = not isinstance(stream, str) or _UNSAFE_TEXT.search(stream) is not None

    def construct_yaml_int(self, node):
        try:
            return super().construct_yaml_int(node)
        except ValueError:  # more than sys.get_int_max_str_digits() digits
            raise _Refused(f"Invalid value: {excerpt(node.value)}: the number has too many digits", node.start_mark) from None

    def documents(self) -> list:
        """Every document's value (None for an empty one)."""
        values = []
        self.get_event()  # StreamStartEvent
        while not self.check_event(StreamEndEvent):
            self.get_event()  # DocumentStartEvent
            values.append(self._node(self.get_event(), None, 0)[0])
            self.get_event()  # DocumentEndEvent
            self.anchors = {}
        return values

    def _node(self, event, path, depth: int, key: bool = False):
        """(value, expanded node count) of the node that starts with `event`. `path` is
        (parent path, key or index) or None, `depth` its length; `key`: a mapping key (its
        mapping's path)."""
        if type(event) is AliasEvent:
            return self._alias(event, path)
        if depth >= MAX_DEPTH:
            raise _Refused(f"{_path(_keys(path))}: exceeded max depth of {MAX_DEPTH} nested mappings and sequences", event.start_mark)
        anchor = event.anchor
        if anchor is not None and anchor in self.anchors:
            raise ComposerError("found duplicate anchor %r; first occurrence" % anchor, self.anchors[anchor][2],
                                "second occurrence", event.start_mark)
        tag = event.tag
        if tag is not None and tag != "!" and not (tag.startswith(_TAG_PREFIX) and tag in _JSON_TAGS):
            shown = "!!" + tag[len(_TAG_PREFIX):] if tag.startswith(_TAG_PREFIX) else tag
            raise _Refused(
                f"{_path(_keys(path))}: Invalid value: {excerpt(shown)}: only JSON values are supported "
                "(strings, numbers, booleans, null, mappings and sequences), not explicit YAML tags",
                event.start_mark,
            )
        kind = type(event)
        if kind is ScalarEvent:
            value = self._scalar(event, path, key)
            self._nodes += 1
            if anchor is not None:
                self.anchors[anchor] = [value, 1, event.start_mark]
            return value, 1
        found = "sequence" if kind is SequenceStartEvent else "mapping"
        if tag is not None and tag != "!" and tag != (_SEQ if kind is SequenceStartEvent else _MAP):
            _wrong_node(tag, found, event.start_mark)
        entry = None
        if anchor is not None:
            entry = self.anchors[anchor] = [None, None, event.start_mark]
        if kind is SequenceStartEvent:
            value, size, end = self._sequence(path, depth)
        else:
            value, size, end = self._mapping(event, path, depth)
        self._nodes += 1
        if entry is not None:
            entry[0], entry[1] = value, size
        if self._progress is not None and self._nodes >= self._next_report:
            self._next_report = self._nodes + PROGRESS_EVERY
            self._progress("reading", min(1.0, end.index / self._length))
        return value, size

    def _alias(self, event, path):
        entry = self.anchors.get(event.anchor)
        if entry is None:
            raise ComposerError(None, None, f"found undefined alias {event.anchor!r}", event.start_mark)
        value, size, _ = entry
        if size is None:
            raise _Refused(f"{_path(_keys(path))}: Invalid value: {excerpt('*' + event.anchor)}: an alias may not refer to "
                           "the node that contains it", event.start_mark)
        self._aliased += size
        if self._aliased > max(ALIAS_BUDGET_MIN, self._nodes):
            raise _Refused(EXCESSIVE_ALIASING, event.start_mark)
        return _plain(value, _keys(path)), size  # a fresh copy, within MAX_DEPTH where it lands

    def _scalar(self, event, path, key: bool = False):
        """A scalar's value as PyYAML constructs it, checked as a JSON value (a key's text is
        checked by its mapping)."""
        text, tag = event.value, event.tag
        plain = tag is None and event.implicit[0]
        if plain:
            value = self._scalars.get(text, _MISS)
            if value is not _MISS:
                if self._check_all and not key and type(value) is str:
                    _check_text(value, _keys(path))
                return value
        if tag is None or tag == "!":
            tag = self.resolve(ScalarNode, text, event.implicit)
            if tag not in _JSON_TAGS:  # e.g. `=` (tag:yaml.org,2002:value): a plain string
                tag = _STR
        if tag == _STR:
            value = text
            if not key and (self._check_all or event.style == '"'):
                _check_text(value, _keys(path))
        elif tag == _MERGE and key:
            return _MERGE_KEY
        elif tag in _SCALAR_TAGS:
            value = self.yaml_constructors[tag](self, ScalarNode(tag, text, event.start_mark, event.end_mark, style=event.style))
            if type(value) is float and not math.isfinite(value):
                if not key:  # a key is refused for not being a string
                    raise _Refused(f"{_path(_keys(path))}: Invalid value: {_float_text(value)}: must be a finite number")
                return value
        else:
            _wrong_node(tag, "scalar", event.start_mark)
        if plain and len(text) <= _CACHED_CHARS:
            self._scalars[text] = value
        return value

    def _sequence(self, path, depth: int):
        get, out, size, index = self.get_event, [], 1, 0
        scalars = self._scalars
        fast = depth + 1 < MAX_DEPTH and not self._check_all
        while True:
            event = get()
            if type(event) is SequenceEndEvent:
                return out, size, event.end_mark
            if fast and type(event) is ScalarEvent and event.anchor is None and event.tag is None and event.implicit[0]:
                value = scalars.get(event.value, _MISS)
                if value is _MISS:
                    value = self._scalar(event, (path, index))
                self._nodes += 1
                size += 1
            else:
                value, child = self._node(event, (path, index), depth + 1)
                size += child
            out.append(value)
            index += 1

    def _mapping(self, start, path, depth: int):
        get, out, size = self.get_event, {}, 1
        scalars, check_all = self._scalars, self._check_all
        fast = depth + 1 < MAX_DEPTH and not check_all
        merges = None  # the merged mappings, in the order they apply
        other_keys = False  # a key that is not a string (converted at the end)
        while True:
            event = get()
            if type(event) is MappingEndEvent:
                break
            key_event = event
            if (not check_all and type(event) is ScalarEvent and event.anchor is None and event.tag is None
                    and event.implicit[0]):
                text = event.value
                key = scalars.get(text, _MISS)
                if key is _MISS:
                    key = self._scalar(event, path, True)
                self._nodes += 1
                size += 1
            else:
                key, child = self._node(event, path, depth, True)
                size += child
                text = key_event.value if type(key_event) is ScalarEvent else "<key>"
                if type(key) is str and (check_all or getattr(key_event, "style", None) == '"'):
                    _check_text(key, _keys((path, key)))
            event = get()
            if fast and type(event) is ScalarEvent and event.anchor is None and event.tag is None and event.implicit[0]:
                value = scalars.get(event.value, _MISS)
                if value is _MISS:
                    value = self._scalar(event, (path, text))
                self._nodes += 1
                size += 1
            else:
                value, child = self._node(event, (path, text), depth + 1)
                size += child
            if type(key) is str:
                out[key] = value
            elif key is _MERGE_KEY:
                if merges is None:
                    merges = []
                merges.extend(_merge_sources(value, event, start, self.anchors))
            else:
                if isinstance(key, (list, dict)):
                    raise ConstructorError("while constructing a mapping", start.start_mark, "found unhashable key",
                                           key_event.start_mark)
                other_keys = True
                out[key] = value
        if merges is not None:
            merged: dict = {}
            for source in merges:
                merged.update(source)
            merged.update(out)
            out = merged
        if other_keys or merges is not None:
            out = _string_keys(out, path)
        return out, size, event.end_mark


_Loader.add_constructor("tag:yaml.org,2002:int", _Loader.construct_yaml_int)
_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}

_MISS = object()  # not in the scalar cache
_MERGE_KEY = object()  # the `<<` key of a mapping
_CACHED_CHARS = 64
_UNSAFE_TEXT = re.compile("[\x00\ud800-\udfff]")
_STR, _MERGE, _SEQ, _MAP = (_TAG_PREFIX + t for t in ("str", "merge", "seq", "map"))
_SCALAR_TAGS = frozenset(_TAG_PREFIX + t for t in ("str", "int", "float", "bool", "null"))


def _keys(path) -> list:
    """The keys and indexes from the document to `path` ((parent path, key) pairs)."""
    keys = []
    while path is not None:
        path, key = path
        keys.append(key)
    keys.reverse()
    return keys


def _wrong_node(tag: str, found: str, mark) -> None:
    """What PyYAML's SafeConstructor says of a tag on the wrong kind of node (`!!str [a]`)."""
    if tag == _MERGE:
        raise ConstructorError(None, None, f"could not determine a constructor for the tag {tag!r}", mark)
    expected = "sequence" if tag == _SEQ else "mapping" if tag == _MAP else "scalar"
    raise ConstructorError(None, None, f"expected a {expected} node, but found {found}", mark)


def _merge_sources(value, event, start, anchors) -> list[dict]:
    """The mappings a `<<` key merges, in the order they apply (flatten_mapping: a list's
    first mapping wins, so it applies last)."""
    mark = anchors[event.anchor][2] if type(event) is AliasEvent else event.start_mark
    if type(value) is dict:
        return [value]
    if type(value) is list:
        for item in value:
            if type(item) is not dict:
                found = "sequence" if type(item) is list else "scalar"
                raise ConstructorError("while constructing a mapping", start.start_mark,
                                       f"expected a mapping for merging, but found {found}", mark)
        return value[::-1]
    found = "scalar"
    raise ConstructorError("while constructing a mapping", start.start_mark,
                           f"expected a mapping or list of mappings for merging, but found {found}", mark)


def _string_keys(raw: dict, path) -> dict:
    """A mapping whose keys are strings: booleans and integers written as text (as
    sigs.k8s.io/yaml does), anything else refused, as are two keys that then collide."""
    out: dict = {}
    for key, value in raw.items():
        name = _key_name(key)
        if name is None:
            raise _Refused(f"{_path(_keys(path))}: Invalid value: {excerpt(str(key))}: a mapping key must be a string")
        if name in out:
            raise _Refused(f"{_path(_keys(path))}: Duplicate value: {excerpt(name)}: the key appears twice")
        out[name] = value
    return out


def _key_name(key) -> str | None:
    """A mapping key as sigs.k8s.io/yaml writes it: booleans and integers as text; None for
    a key that is not a string (refused)."""
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, int):
        return str(key)
    return key if isinstance(key, str) else None


def _plain(value, stack: list):
    """A fresh JSON-shaped copy; refuses what JSON or the databases cannot hold."""
    if isinstance(value, str):
        _check_text(value, stack)
        return value
    if isinstance(value, bool) or value is None or isinstance(value, int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise _Refused(f"{_path(stack)}: Invalid value: {_float_text(value)}: must be a finite number")
        return value
    if len(stack) >= MAX_DEPTH:
        raise _Refused(f"{_path(stack)}: exceeded max depth of {MAX_DEPTH} nested mappings and sequences")
    if isinstance(value, list):
        out_list = []
        for i, item in enumerate(value):
            stack.append(i)
            out_list.append(_plain(item, stack))
            stack.pop()
        return out_list
    if isinstance(value, dict):
        out: dict = {}
        for key, item in value.items():
            name = _key_name(key)
            if name is None:
                raise _Refused(f"{_path(stack)}: Invalid value: {excerpt(str(key))}: a mapping key must be a string")
            stack.append(name)
            if name is key:
                _check_text(name, stack)
            if name in out:
                raise _Refused(f"{_path(stack[:-1])}: Duplicate value: {excerpt(name)}: the key appears twice")
            out[name] = _plain(item, stack)
            stack.pop()
        return out
    raise _Refused(f"{_path(stack)}: Invalid value: {excerpt(str(value))}: only JSON values are supported")


def plain_value(value):
    """A fresh JSON-shaped copy of a decoded value; raises _Refused naming the field that
    JSON or the databases cannot hold (what the YAML loader checks as it builds)."""
    return _plain(value, [])


def _float_text(value: float) -> str:
    if math.isnan(value):
        return ".nan"
    return ".inf" if value > 0 else "-.inf"


def _check_text(text: str, stack: list) -> None:
    if "\x00" in text:
        raise _Refused(f"{_path(stack)}: Invalid value: {excerpt(text)}: must not contain NUL characters")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise _Refused(f"{_path(stack)}: Invalid value: {excerpt(text)}: must be valid UTF-8 (it holds an unpaired surrogate)") from None


def _where(source: str, mark) -> str:
    """`source: line L, column C: ` (each part only when known)."""
    parts = [source] if source else []
    if mark is not None:
        parts.append(f"line {mark.line + 1}, column {mark.column + 1}")
    return ": ".join(parts) + ": " if parts else ""


# What the walk refuses can only reach a JSON text as a raw surrogate or as an escape (a raw
# NUL is not JSON): with none of these in the text, and no NaN/Infinity or float out of range
# (the hooks below), the decoded value is already plain but for its depth.
_JSON_SUSPECT = re.compile("[\ud800-\udfff]|\\\\u(?:0000|[dD][89abAB])")


class _NotPlain(Exception):
    """Decoded JSON the quick path leaves to the walk (which says what is wrong)."""


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotPlain
    return value


def _no_constant(name: str) -> float:
    raise _NotPlain


def _within_depth(value) -> bool:
    """No mapping or sequence nested MAX_DEPTH deep (what the walk checks), containers only."""
    pending = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if depth >= MAX_DEPTH:
            return False
        children = item.values() if type(item) is dict else item
        for child in children:
            if type(child) is dict or type(child) is list:
                pending.append((child, depth + 1))
    return True


def _plain_json(text: str) -> list | None:
    """The JSON document of `text` when it needs no walk: nothing in it the walk would refuse
    or change (None: take the walk)."""
    if _JSON_SUSPECT.search(text) is not None:
        return None
    try:
        value = json.loads(text, parse_float=_finite_float, parse_constant=_no_constant)
    except (_NotPlain, ValueError, RecursionError):  # JSONDecodeError is a ValueError
        return None
    if (type(value) is dict or type(value) is list) and not _within_depth(value):
        return None
    return [value]


def _json_values(text: str) -> list | None:
    """One JSON document, or None when the text is not JSON (then it is read as YAML)."""
    if _first_character(text) not in ("{", "["):
        return None
    try:
        return [json.loads(text)]
    except json.JSONDecodeError:
        return None
    except RecursionError:
        raise _Refused(f"exceeded max depth of {MAX_DEPTH} nested mappings and sequences") from None
    except ValueError as exc:  # e.g. an integer with more than 4300 digits
        raise _Refused(f"error parsing JSON: {excerpt(str(exc), quote=False)}") from None


def _yaml_values(text: str, progress: Progress | None = None) -> list:
    """Every YAML document of the text as a plain value (None for an empty one)."""
    loader = _Loader(text, progress)
    try:
        return loader.documents()
    except ValueError as exc:  # int() of a 5,000-digit scalar
        raise _Refused(f"error parsing YAML: {excerpt(str(exc), quote=False)}") from None
    finally:
        loader.dispose()


def _first_character(text: str) -> str:
    """text.lstrip()[:1] without a copy of the text."""
    match = _LEADING_SPACE.match(text)
    return text[match.end():match.end() + 1]


_LEADING_SPACE = re.compile(r"\s*")


def _utf8_length(text: str, chunk: int = 1 << 20) -> int:
    """len(text.encode()) without a copy of the whole text."""
    return sum(len(text[i:i + chunk].encode("utf-8", "surrogatepass")) for i in range(0, len(text), chunk))


def parse_values(text: str, source: str = "<input>", what: str = "YAML", progress: Progress | None = None) -> list:
    """YAML/JSON text -> list of plain JSON values (one per non-empty document), within the
    limits at the door (see the module docstring). Raises DocumentError; its messages start
    with `source: ` (unless empty) and a syntax error reads `error parsing <what> at ...`."""
    if len(text) > MAX_TEXT_BYTES or (not text.isascii() and _utf8_length(text) > MAX_TEXT_BYTES):
        raise DocumentError([f"{_where(source, None)}Request entity too large: limit is {MAX_TEXT_BYTES} bytes"])
    try:
        plain = _plain_json(text) if _first_character(text) in ("{", "[") else None
        if plain is not None:
            return [value for value in plain if value is not None]
        raw = _json_values(text)
        if raw is not None:
            return [plain_value(value) for value in raw if value is not None]
        return [value for value in _yaml_values(text, progress) if value is not None]
    except _Refused as exc:
        raise DocumentError([f"{_where(source, exc.mark)}{exc}"]) from None
    except yaml.YAMLError as exc:
        where = ""
        mark = getattr(exc, "problem_mark", None)
        if mark is not None:
            line, column = mark.line, mark.column
            if line > text.count("\n"):  # libyaml puts the end of an unterminated last line on the next one
                line, column = text.count("\n"), len(text) - text.rfind("\n") - 1
            where = f" at line {line + 1}, column {column + 1}"
        problem = getattr(exc, "problem", None) or str(exc)
        raise DocumentError([f"{_where(source, None)}error parsing {what}{where}: {excerpt(problem, quote=False, limit=200)}"]) from None


MAX_MESSAGE_CHARS = 2000


def short(message: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """A message cut to `limit` characters (`...` marks the cut): for messages built by code
    that quotes whole values (a Policy's `not {value!r}`), so an answer stays small."""
    return message if len(message) <= limit else message[:limit] + "..."


def parse_value(text: str, source: str = "<input>", what: str = "YAML"):
    """One YAML/JSON document (a policy, an editor's text) as a plain value, or None when the
    text is empty. Same limits as parse_documents. Raises DocumentError."""
    values = parse_values(text, source, what)
    if len(values) > 1:
        raise DocumentError([f"{_where(source, None)}expected a single document, found {len(values)}"])
    return values[0] if values else None


def _describe(source: str, index: int, total: int) -> str:
    return f"{source} (document {index})" if total > 1 else source


def parse_documents(text: str, source: str = "<input>", progress: Progress | None = None) -> list[dict]:
    """YAML/JSON text -> list of mappings, `kind: List` unpacked. No validation."""
    raw = parse_values(text, source, progress=progress)
    docs: list[dict] = []
    problems: list[str] = []
    for i, doc in enumerate(raw, start=1):
        where = _describe(source, i, len(raw))
        if not isinstance(doc, dict):
            problems.append(f"{where}: a document must be a mapping (an object), not {type(doc).__name__}")
        elif _is_list(doc):
            items = doc.get("items") or []
            if not isinstance(items, list):
                problems.append(f"{where}: items: must be a list")
                continue
            for j, item in enumerate(items):
                if isinstance(item, dict):
                    docs.append(item)
                else:
                    problems.append(f"{where}: items[{j}]: a document must be a mapping")
        else:
            docs.append(doc)
    if problems:
        raise DocumentError(problems)
    return docs


def _is_list(doc: dict) -> bool:
    """`kind: List`, or any `<Kind>List` with items (what `kubectl get -o yaml` prints)."""
    kind = doc.get("kind")
    return isinstance(kind, str) and (kind == "List" or (kind.endswith("List") and "items" in doc))


@gc_paused()
def load_documents(
    text: str, source: str = "<input>", *, extra_kinds: tuple[str, ...] = (POLICY_KIND, *SCHEDULER_CONFIG_KINDS, TIMELINE_KIND),
    progress: Progress | None = None, skipped: list[str] | None = None,
) -> list[dict]:
    """Parse, check kinds, validate and default every document; all or nothing.
    `progress(phase, fraction)` is called now and then ("reading", then "checking").

    Snapshots (`oc get -o yaml` Lists, must-gather files) load as they are: server-side
    `metadata.managedFields` are dropped; with a `skipped` list, documents of kinds the
    simulator does not know (Routes, Secrets, Events, ...) are left out and each gets a
    note there instead of failing the load."""
    docs = [without_managed_fields(d) for d in parse_documents(text, source, progress)]
    if skipped is not None:
        known = []
        for i, doc in enumerate(docs, start=1):
            kind = doc.get("kind")
            if isinstance(kind, str) and kind and kind not in KINDS and kind not in extra_kinds:
                meta = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else {}
                name = f"{meta['namespace']}/{meta.get('name')}" if meta.get("namespace") else str(meta.get("name"))
                skipped.append(f'{_describe(source, i, len(docs))}: skipped {kind} "{name}": kind "{kind}" '
                               f"({doc.get('apiVersion')}) is not simulated")
            else:
                known.append(doc)
        docs = known
    return check_documents(docs, source, extra_kinds=extra_kinds, progress=progress, owned=True)


def without_managed_fields(doc: dict) -> dict:
    """The document without `metadata.managedFields` (the server-side apply bookkeeping of a snapshot)."""
    meta = doc.get("metadata")
    if isinstance(meta, dict) and "managedFields" in meta:
        return {**doc, "metadata": {k: v for k, v in meta.items() if k != "managedFields"}}
    return doc


def check_documents(
    docs: list[dict], source: str = "<input>", *, extra_kinds: tuple[str, ...] = (POLICY_KIND, *SCHEDULER_CONFIG_KINDS, TIMELINE_KIND),
    progress: Progress | None = None, owned: bool = False,
) -> list[dict]:
    """Check kinds, validate and default every document; all or nothing. `owned`: the
    documents were just parsed for this call (they are defaulted in place, not copied)."""
    problems: list[str] = []
    out: list[dict] = []
    seen: set[tuple[str, str, str]] = set()
    for i, doc in enumerate(docs, start=1):
        if progress is not None and i % 50 == 0:
            progress("checking", i / len(docs))
        where = _describe(source, i, len(docs))
        kind = doc.get("kind")
        if kind in extra_kinds:
            out.append(doc)
            continue
        if not isinstance(kind, str) or not kind:
            problems.append(f"{where}: Object 'Kind' is missing in '{_short(doc)}'")
            continue
        info = KINDS.get(kind)
        if info is None:
            supported = ", ".join(sorted(KINDS) + list(extra_kinds))
            problems.append(f'{where}: no matches for kind "{kind}": supported kinds are {supported}')
            continue
        api_version = doc.get("apiVersion")
        if api_version is not None and api_version not in info.api_versions:
            problems.append(
                f'{where}: no matches for kind "{kind}" in version "{api_version}" (use {" or ".join(info.api_versions)})'
            )
            continue
        doc, errors = decode_and_validate(doc, info.namespaced)
        if errors:
            problems.append(f"{where}: {invalid_error({**doc, 'apiVersion': api_version or info.api_versions[0]}, errors)}")
            continue
        doc = apply_defaults(doc, in_place=owned)
        key = (kind, doc["metadata"].get("namespace", ""), doc["metadata"]["name"])
        if key in seen:
            ns = f'{key[1]}/' if key[1] else ""
            problems.append(f'{where}: {kind} "{ns}{key[2]}" appears twice in the input')
            continue
        seen.add(key)
        out.append(doc)
    if problems:
        raise DocumentError(problems)
    return out


def _short(doc: dict) -> str:
    return json.dumps(doc, sort_keys=True)[:80]


# --- out -----------------------------------------------------------------------------


class _Dumper(yaml.SafeDumper):
    pass


def _str_representer(dumper, data):
    style = "|" if "\n" in data else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


_Dumper.add_representer(str, _str_representer)


def dump_documents(docs: list[dict]) -> str:
    """Multi-document YAML, keys in the order Kubernetes prints them."""
    return yaml.dump_all(docs, Dumper=_Dumper, sort_keys=False, default_flow_style=False, allow_unicode=True)
