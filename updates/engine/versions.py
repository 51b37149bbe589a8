"""OpenShift release versions: parsing and semantic-version order (4.14.0-rc.3 < 4.14.0)."""

from __future__ import annotations

import re
from functools import total_ordering

_VERSION = re.compile(r"^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+([0-9A-Za-z.-]+))?$")


class VersionError(ValueError):
    pass


@total_ordering
class Version:
    __slots__ = ("major", "minor", "patch", "pre", "text")

    def __init__(self, text: str):
        m = _VERSION.match(text or "")
        if not m:
            raise VersionError(f"No Major.Minor.Patch elements found")
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


def parse(text: str) -> Version:
    return Version(text)


def is_version(text: str) -> bool:
    return bool(_VERSION.match(text or ""))


def sort_desc(versions):
    """Newest first, as oc's sortReleasesBySemanticVersions orders them."""
    return sorted(versions, key=Version, reverse=True)
