"""OpenShift release versions: parsing and semantic-version order (4.14.0-rc.3 < 4.14.0)."""

from __future__ import annotations

import re
from functools import total_ordering

from scheduling.engine.api.validation.field import go_quote

_VERSION = re.compile(r"^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+([0-9A-Za-z.-]+))?$")


class VersionError(ValueError):
    pass


@total_ordering
class Version:
    __slots__ = ("major", "minor", "patch", "pre", "text")

    def __init__(self, text: str):
        error = _parse_error(text if isinstance(text, str) else "")
        m = _VERSION.match(text) if error is None else None
        if m is None:
            raise VersionError(error or "No Major.Minor.Patch elements found")
        self.major, self.minor, self.patch = int(m[1]), int(m[2]), int(m[3])
        self.pre = tuple(int(p) if p.isdigit() else p for p in m[4].split(".")) if m[4] else ()
        self.text = text

    @property
    def minor_line(self) -> str:
        return f"{self.major}.{self.minor}"

    def _key(self):
        # a release sorts after its pre-releases; numeric identifiers before alphanumeric
        pre = tuple((0, p, "") if isinstance(p, int) else (1, 0, p) for p in self.pre)
        return (self.major, self.minor, self.patch, 0 if self.pre else 1, pre)

    def __eq__(self, other):
        return isinstance(other, Version) and self._key() == other._key()

    def __lt__(self, other):
        return self._key() < other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return f"Version({self.text!r})"


_NUMBERS = frozenset("0123456789")
_ALPHANUMERICS = frozenset("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-")


def _parse_error(s: str) -> str | None:
    """blang/semver/v4 Parse's error for a text that is not a Semantic Version (the CVO and oc
    parse with it): the first thing wrong, worded as Parse words it; None for a version."""
    if not s:
        return "Version string empty"
    parts = s.split(".", 2)
    if len(parts) != 3:
        return "No Major.Minor.Patch elements found"
    for word, part in (("Major", parts[0]), ("Minor", parts[1])):
        if not set(part) <= _NUMBERS:
            return f"Invalid character(s) found in {word.lower()} number {go_quote(part)}"
        if len(part) > 1 and part[0] == "0":
            return f"{word} number must not contain leading zeroes {go_quote(part)}"
        if not part or int(part) >= 1 << 64:
            return f"strconv.ParseUint: parsing {go_quote(part)}: {'invalid syntax' if not part else 'value out of range'}"
    patch, build, prerelease = parts[2], None, None
    if "+" in patch:
        patch, _, rest = patch.partition("+")
        build = rest.split(".")
    if "-" in patch:
        patch, _, rest = patch.partition("-")
        prerelease = rest.split(".")
    if not set(patch) <= _NUMBERS:
        return f"Invalid character(s) found in patch number {go_quote(patch)}"
    if len(patch) > 1 and patch[0] == "0":
        return f"Patch number must not contain leading zeroes {go_quote(patch)}"
    if not patch or int(patch) >= 1 << 64:
        return f"strconv.ParseUint: parsing {go_quote(patch)}: {'invalid syntax' if not patch else 'value out of range'}"
    for pr in prerelease or ():
        if not pr:
            return "Prerelease is empty"
        if set(pr) <= _NUMBERS:
            if len(pr) > 1 and pr[0] == "0":
                return f"Prerelease number must not contain leading zeroes {go_quote(pr)}"
        elif not set(pr) <= _ALPHANUMERICS:
            return f"Invalid character(s) found in prerelease {go_quote(pr)}"
    for b in build or ():
        if not b:
            return "Build meta data is empty"
        if not set(b) <= _ALPHANUMERICS:
            return f"Invalid character(s) found in build meta data {go_quote(b)}"
    return None


def semver_error(text: str, exc: VersionError | None = None) -> str:
    """blang/semver's Parse error for `text` (as oc and the CVO print it)."""
    return _parse_error(text if isinstance(text, str) else "") or (str(exc) if exc else "")


def parse(text: str) -> Version:
    return Version(text)


def is_version(text: str) -> bool:
    return isinstance(text, str) and _parse_error(text) is None and bool(_VERSION.match(text))


def sort_desc(versions):
    """Newest first, as oc's sortReleasesBySemanticVersions orders them."""
    return sorted(versions, key=Version, reverse=True)
