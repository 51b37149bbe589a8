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


# --- comments and docstrings say what the code does, and name what exists -----------------------------------------
#
# Every comment and docstring of scheduling/, updates/ and clusterui/ (and every line of
# README.md and docs/*.md) is read for the modules and files it names: a dotted path
# `scheduling.x.y` / `updates.x` / `clusterui.x` (or the engine's shorthand `engine.x`) must be a module, or a module followed by
# one of its top-level names (`module.attribute`, further `.parts` unchecked); a file path
# (`scheduling/x/y.py`, `views/whatif.py`, `bench_interactive.py`) must be the tail of a
# file of the repository. Tests' comments and docstrings are read for issue and seed
# citations too: a comment says what the code does, not which ticket asked for it.

import ast as _ast
import io as _io
import tokenize as _tokenize

SOURCE_PACKAGES = ("scheduling", "updates", "clusterui")

# Files being rewritten by other changes right now; their comments are theirs to fix.
# Once those land, empty this tuple.
BEING_REWRITTEN: tuple[str, ...] = ()  # files exempted while another change rewrote them: none left

_DOTTED = re.compile(r"(?<![\w./-])((?:scheduling|updates|clusterui|engine)(?:\.[A-Za-z_]\w*)+)(?![\w/])")
_FILE = re.compile(r"(?<![\w.-])((?:[\w.-]+/)*[A-Za-z_][\w-]*\.(?:py|html|md|js|css))\b")
_CITATION = re.compile(
    r"(?i)\bseeds? (?:§\s?)?\d{2}|\bissues? \d+\b|\bseed's\b|\bthe seeds?\b|\bseed examples\b|\bthe issue's\b|§\s?\d"
    r"|(?-i:\bDESIGN\b)")


def _is_rewritten(rel: str) -> bool:
    return rel.startswith(BEING_REWRITTEN)


def _python_files(packages=SOURCE_PACKAGES):
    for package in packages:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" not in path.parts:
                yield path


def _prose(path: Path):
    """(line, text) of every comment and docstring of a Python file."""
    source = path.read_text()
    for tok in _tokenize.generate_tokens(_io.StringIO(source).readline):
        if tok.type == _tokenize.COMMENT:
            yield tok.start[0], tok.string
    for node in _ast.walk(_ast.parse(source)):
        if isinstance(node, (_ast.Module, _ast.ClassDef, _ast.FunctionDef, _ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], _ast.Expr) and isinstance(body[0].value, _ast.Constant) \
                    and isinstance(body[0].value.value, str):
                yield body[0].lineno, body[0].value.value


def _all_documents():
    """README.md, docs/*.md and the README.md files of the packages."""
    yield from _documents()
    for package in SOURCE_PACKAGES:
        yield from sorted((ROOT / package).rglob("README.md"))


def _documents_prose():
    for doc in _all_documents():
        for number, line in enumerate(doc.read_text().splitlines(), 1):
            yield doc, number, line


def _all_prose(packages=SOURCE_PACKAGES):
    for path in _python_files(packages):
        rel = str(path.relative_to(ROOT))
        if not _is_rewritten(rel):
            for line, text in _prose(path):
                yield rel, line, text
    for doc, line, text in _documents_prose():
        yield str(doc.relative_to(ROOT)), line, text


def _top_level_names(path: Path) -> set[str]:
    names = set()
    for node in _ast.parse(path.read_text()).body:
        if isinstance(node, (_ast.FunctionDef, _ast.AsyncFunctionDef, _ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (_ast.Assign, _ast.AnnAssign)):
            for target in node.targets if isinstance(node, _ast.Assign) else [node.target]:
                names.update(n.id for n in _ast.walk(target) if isinstance(n, _ast.Name))
        elif isinstance(node, (_ast.Import, _ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


def _module_file(parts: list[str]) -> Path | None:
    base = ROOT.joinpath(*parts)
    if (base / "__init__.py").exists():
        return base / "__init__.py"
    if base.with_suffix(".py").exists():
        return base.with_suffix(".py")
    return None


def dotted_path_resolves(dotted: str) -> bool:
    """A module, or a module's top-level name (a submodule counts), then anything."""
    parts = dotted.split(".")
    if parts[0] == "engine":  # the engine's own shorthand for scheduling.engine
        parts.insert(0, "scheduling")
    for cut in range(len(parts), 0, -1):
        module = _module_file(parts[:cut])
        if module is None:
            continue
        if cut == len(parts):
            return True
        attribute = parts[cut]
        return attribute in _top_level_names(module) or (
            module.name == "__init__.py" and _module_file(parts[:cut + 1]) is not None)
    return False


def _repository_files() -> list[str]:
    skip = {".git", ".venv", "node_modules", "__pycache__"}
    return ["/" + str(p.relative_to(ROOT)) for p in ROOT.rglob("*")
            if p.is_file() and not skip.intersection(p.relative_to(ROOT).parts)]


def stale_references(packages=SOURCE_PACKAGES) -> list[str]:
    files = _repository_files()
    found = []
    for rel, line, text in _all_prose(packages):
        for dotted in _DOTTED.findall(text):
            if dotted.endswith(".io"):  # an API group (scheduling.k8s.io), not a module
                continue
            if not dotted_path_resolves(dotted.rstrip(".")):
                found.append(f"{rel}:{line}: {dotted}")
        for name in _FILE.findall(text):
            if "://" in text and name in text.split("://", 1)[1]:
                continue
            if not any(f.endswith("/" + name) for f in files):
                found.append(f"{rel}:{line}: {name}")
    return found


def _all_lines(packages=SOURCE_PACKAGES + ("tests",)):
    """Every line of the Python files (comments, docstrings, but also the strings a page
    shows and the tests' ids) and of the documents."""
    for path in _python_files(packages):
        rel = str(path.relative_to(ROOT))
        if not _is_rewritten(rel):
            for number, text in enumerate(path.read_text().splitlines(), 1):
                yield rel, number, text
    for doc, number, text in _documents_prose():
        yield str(doc.relative_to(ROOT)), number, text


def citations(packages=SOURCE_PACKAGES + ("tests",)) -> list[str]:
    here = str(Path(__file__).relative_to(ROOT))
    return [f"{rel}:{line}: {m.group(0)}" for rel, line, text in _all_lines(packages) if rel != here
            for m in _CITATION.finditer(text)]


def test_comments_and_docstrings_name_modules_and_files_that_exist():
    found = stale_references()
    assert found == [], "\n".join(found)


def test_no_comment_or_docstring_cites_an_issue_a_seed_or_a_document_a_clone_lacks():
    found = citations()
    assert found == [], "\n".join(found)


def test_the_reference_checker_tells_moved_modules_from_present_ones():
    assert dotted_path_resolves("scheduling.store.services")
    assert dotted_path_resolves("scheduling.store.services.apply_documents") is (
        "apply_documents" in _top_level_names(ROOT / "scheduling/store/services.py"))
    assert dotted_path_resolves("scheduling.engine.openshift")
    assert not dotted_path_resolves("scheduling.services")
    assert not dotted_path_resolves("updates.engine.cvo")
    assert not dotted_path_resolves("scheduling.engine.taint_manager")
