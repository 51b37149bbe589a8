"""python manage.py simulate FILE [FILE ...] — answer scheduling questions from a terminal.

The command-line contract of DESIGN.md: Kubernetes YAML or JSON in (`-` = stdin), the
scheduler's decisions out as JSON (default), YAML or a text table. No database is used:
the files are read with scheduling.kube and handed to the pure engine
(scheduling.engine.simulate). Bad input exits with status 2 and the message on stderr.
"""

from __future__ import annotations

import json
import sys

import yaml
from django.core.management.base import BaseCommand, CommandError

from scheduling import kube
from scheduling.engine.simulate import EXPLAIN_CHOICES, SimulationError, simulate


class Command(BaseCommand):
    help = (
        "Schedule the pending pods of Kubernetes YAML/JSON files with the OpenShift 3.11 "
        "scheduler and print every decision (no database is used)."
    )
    requires_system_checks: list = []
    requires_migrations_checks = False

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+", metavar="FILE", help="YAML or JSON documents; - reads stdin")
        parser.add_argument("--policy", metavar="POLICY", help="a scheduler Policy file (JSON or YAML)")
        parser.add_argument("--until", type=float, default=0.0, metavar="SECONDS", help="run the simulated clock this long (default 0)")
        parser.add_argument("--seed", type=int, default=0, metavar="N", help="random seed for tie-breaks (default 0)")
        parser.add_argument("--explain", choices=EXPLAIN_CHOICES, default="all", help="which pods keep filters and scores")
        parser.add_argument("--no-admission", action="store_true", help="take objects exactly as written")
        parser.add_argument("--format", choices=("json", "yaml", "text"), default="json", dest="output_format")

    def execute(self, *args, **options):
        # Print a bad input's message as it is (no "CommandError: " prefix) and exit 2.
        try:
            return super().execute(*args, **options)
        except CommandError as exc:
            if options.get("traceback"):
                raise
            self.stderr.write(str(exc))
            sys.exit(exc.returncode)

    def handle(self, *args, files, policy, until, seed, explain, no_admission, output_format, **options):
        docs: list[dict] = []
        problems: list[str] = []
        for name in files:
            try:
                text = self._read(name)
                docs.extend(kube.load_documents(text, "<stdin>" if name == "-" else name))
            except kube.DocumentError as exc:
                problems.append(str(exc))
        if problems:
            raise CommandError("\n".join(problems), returncode=2)
        policy_doc = self._load_policy(policy) if policy else None
        try:
            result = simulate(
                docs, policy=policy_doc, seed=seed, explain=explain, admission=not no_admission, until=until
            )
        except SimulationError as exc:
            raise CommandError(str(exc), returncode=2) from exc
        if output_format == "json":
            self.stdout.write(json.dumps(result, indent=2))
        elif output_format == "yaml":
            self.stdout.write(yaml.safe_dump(result, sort_keys=False, default_flow_style=False), ending="")
        else:
            self.stdout.write(format_text(result), ending="")

    def _read(self, name: str) -> str:
        if name == "-":
            return sys.stdin.read()
        try:
            with open(name, encoding="utf-8") as f:
                return f.read()
        except OSError as exc:
            raise CommandError(f"error: the path \"{name}\" cannot be read: {exc.strerror}", returncode=2) from exc

    def _load_policy(self, name: str) -> dict:
        text = self._read(name)
        try:
            doc = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
            raise CommandError(f"{name}: error parsing the scheduler Policy{where}: {getattr(exc, 'problem', exc)}", returncode=2) from exc
        if not isinstance(doc, dict):
            raise CommandError(f"{name}: a scheduler Policy must be a mapping (an object)", returncode=2)
        return doc


def format_text(result: dict) -> str:
    """A table a person reads: one line per pod (POD, NODE, PHASE, MESSAGE)."""
    rows = [("POD", "NODE", "PHASE", "MESSAGE")]
    for entry in result["pods"]:
        message = entry.get("message") or ""
        if not message and entry.get("nominatedNode"):
            message = f"nominated to {entry['nominatedNode']}"
        rows.append((entry["pod"], entry["node"] or "<none>", entry["phase"], message))
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    lines = ["   ".join(cell.ljust(widths[i]) for i, cell in enumerate(r[:3])) + "   " + r[3] for r in rows]
    return "\n".join(line.rstrip() for line in lines) + "\n"
