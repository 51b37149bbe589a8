"""python manage.py preview NAME [--for SECONDS] (-f FILE... | -- oc ARGS...)

What a change would do, before it is made: the change is applied to a copy of the stored
cluster's loop at its clock (the objects of the files as `oc apply -f` takes them, or the
oc command), the copy runs for SECONDS (default: until nothing more happens, at most 3,600)
and nothing is written. Prints JSON:

    {"at": 100.0, "until": 500.0,
     "events": [{"time": ..., "type": ..., "reason": ..., "object": "Pod/ns/name", "message": ...}],
     "pods": [{"pod": "ns/name", "node": "n1", "phase": "Running", "terminating": false}]}

`events` are exactly the events the cluster records if the same change is applied then and
the clock advanced by the same time; `pods` are all pods at `until`. Exit status 1 (oc's
message on stderr) when oc or the API server would refuse the change, 2 for bad usage.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from scheduling.store import kube
from scheduling.pages import previews
from scheduling.models import Cluster

USAGE = "usage: manage.py preview NAME [--for SECONDS] (-f FILE... | -- oc ARGS...)"


class Command(BaseCommand):
    help = "Preview a change of a stored cluster (files to apply, or an oc command) on a copy; prints JSON."

    def run_from_argv(self, argv):
        code = self.main(argv[2:], sys.stdin, sys.stdout, sys.stderr)
        sys.exit(code)

    def handle(self, *args, **options):  # call_command("preview", ...) -> raises SystemExit on failure
        code = self.main(list(args), options.get("stdin") or sys.stdin, self.stdout._out, self.stderr._out)
        if code:
            raise SystemExit(code)

    def create_parser(self, prog_name, subcommand, **kwargs):
        parser = super().create_parser(prog_name, subcommand, **kwargs)
        parser.add_argument("args", nargs="*")
        return parser

    def main(self, argv: list[str], stdin, stdout, stderr) -> int:
        try:
            name, for_seconds, files, command = _parse(argv)
        except CommandError as exc:
            stderr.write(f"error: {exc}\n{USAGE}\n")
            return 2
        cluster = Cluster.objects.filter(name=name).first()
        if cluster is None:
            stderr.write(f'error: no cluster named "{name}"\n')
            return 1
        parsed: dict[str, list[dict]] = {}
        try:
            for path in files:
                text = stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
                parsed[path] = [kube.without_managed_fields(d) for d in kube.parse_documents(text, path)]
        except OSError as exc:
            stderr.write(f'error: the path "{exc.filename}" does not exist\n')
            return 1
        except kube.DocumentError as exc:
            stderr.write(f"error: {exc}\n")
            return 1
        if files:
            command = ["oc", "apply", *[w for path in files for w in ("-f", path)]]
        elif command[:1] not in (["oc"], ["kubectl"]):
            command = ["oc", *command]
        try:
            result = previews.preview_command(cluster, command, parsed, for_seconds)
        except previews.PreviewRefused as exc:
            stderr.write(f"{exc}\n")
            return 1
        stdout.write(json.dumps(result.to_doc(), indent=1) + "\n")
        return 0


def _parse(argv: list[str]) -> tuple[str, float | None, list[str], list[str]]:
    """(cluster name, --for seconds or None, files, oc words)."""
    name = None
    for_seconds: float | None = None
    files: list[str] = []
    command: list[str] = []
    i = 0
    while i < len(argv):
        word = argv[i]
        if word == "--":
            command = argv[i + 1:]
            break
        flag, eq, value = word.partition("=")
        if flag in ("--for", "-f", "--filename"):
            if not eq:
                if i + 1 >= len(argv):
                    raise CommandError(f"flag needs an argument: {flag}")
                value = argv[i + 1]
                i += 1
            if flag == "--for":
                try:
                    for_seconds = float(value)
                except ValueError:
                    raise CommandError(f'invalid argument "{value}" for "--for" flag: must be a number of seconds') from None
                if not 0 <= for_seconds <= 86400 * 7:
                    raise CommandError(f'invalid argument "{value}" for "--for" flag: must be between 0 and 604800')
            else:
                files.append(value)
        elif name is None and not word.startswith("-"):
            name = word
        else:
            raise CommandError(f"unknown argument {word!r}")
        i += 1
    if name is None:
        raise CommandError("a cluster NAME is required")
    if bool(files) == bool(command):
        raise CommandError("give either -f FILE... or -- oc ARGS...")
    return name, for_seconds, files, command
