"""The project documents itself: no link leaves the repository (a clone has no ../shared)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _documents():
    yield ROOT / "README.md"
    yield from sorted((ROOT / "docs").glob("*.md"))


def test_no_document_points_outside_the_repository():
    offenders = [f"{p.name}: {m.group(0)}" for p in _documents() for m in re.finditer(r"\.\./shared\S*", p.read_text())]
    assert offenders == []


def test_every_relative_link_of_the_documents_exists():
    missing = []
    for p in _documents():
        for target in re.findall(r"\]\(([^)#:]+)\)", p.read_text()):
            if not (p.parent / target).exists():
                missing.append(f"{p.name}: {target}")
    assert missing == []
