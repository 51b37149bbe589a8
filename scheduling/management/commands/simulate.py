"""python manage.py simulate FILE [FILE ...] — answer scheduling questions from a terminal.

Kubernetes YAML or JSON in (`-` = stdin), the
scheduler's decisions out as JSON (default), YAML or a text table. No database is used:
the files are read with scheduling.store.kube and handed to the pure engine
(scheduling.engine.simulate). Bad input exits with status 2 and the message on stderr;
with --fail-on-pending a run that leaves a pod Pending exits 1, naming the pods on stderr.
"""

from __future__ import annotations

import contextlib
import gc
import json
import sys

import yaml
from django.core.management.base import BaseCommand, CommandError

from scheduling.store import kube
from scheduling.engine.timeline import sim_time_text
from scheduling.pages.board import format_clock
from scheduling.engine.api.node_selection_admission import UserInfo
from scheduling.engine.controllers.descheduler import Flags
from scheduling.engine.simulate import EXPLAIN_CHOICES, EXTRA_KINDS, SimulationError, simulate
from scheduling.engine.simulation import ControllerLoadError


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
        parser.add_argument("--controllers", metavar="NAME,...", help="run only these controllers (default: all)")
        # The descheduler's 3.11 flags, prefixed (a DeschedulerPolicy document runs it once at time 0).
        parser.add_argument("--descheduler-max-pods-to-evict-per-node", type=int, default=0, metavar="N",
                            help="Limits the maximum number of pods to be evicted per node by descheduler")
        parser.add_argument("--descheduler-node-selector", default="", metavar="SEL",
                            help="Selector (label query) to filter on, supports '=', '==', and '!='.(e.g. -l key1=value1,key2=value2)")
        parser.add_argument("--descheduler-dry-run", action="store_true", help="execute descheduler in dry run mode.")
        # Who creates the objects (the node-selection admission plugins read it).
        parser.add_argument("--user-can-bind", action="store_true", help="the user may create pods/binding (PodNodeConstraints)")
        parser.add_argument("--as", dest="as_user", default="", metavar="USER", help="the requesting user")
        parser.add_argument("--as-group", dest="as_groups", action="append", default=[], metavar="GROUP",
                            help="a group of the requesting user (repeatable)")
        parser.add_argument("--objects", action="store_true", help="add every object at the end of the run to the output")
        parser.add_argument("--fail-on-pending", action="store_true",
                            help="exit 1 when a pod is still Pending at the end of the run, naming each on stderr")

    def execute(self, *args, **options):
        # Print a bad input's message as it is (no "CommandError: " prefix) and exit 2.
        try:
            return super().execute(*args, **options)
        except CommandError as exc:
            if options.get("traceback"):
                raise
            self.stderr.write(str(exc))
            sys.exit(exc.returncode)

    def handle(self, *args, **options):
        with _fewer_collections():
            self._simulate(*args, **options)

    def _simulate(self, *args, files, policy, until, seed, explain, no_admission, output_format, controllers=None,
                  objects=False, fail_on_pending=False, **options):
        docs: list[dict] = []
        problems: list[str] = []
        for name in files:
            try:
                text = self._read(name)
                docs.extend(kube.load_documents(text, "<stdin>" if name == "-" else name, extra_kinds=EXTRA_KINDS))
            except kube.DocumentError as exc:
                problems.append(str(exc))
        if problems:
            raise CommandError("\n".join(problems), returncode=2)
        _keep(docs)
        policy_doc = self._load_policy(policy) if policy else None
        try:
            result = simulate(
                docs, policy=policy_doc, seed=seed, explain=explain, admission=not no_admission, until=until,
                controllers=None if controllers is None else controllers.split(","), objects=objects,
                descheduler_flags=Flags(
                    max_pods_to_evict_per_node=options["descheduler_max_pods_to_evict_per_node"],
                    node_selector=options["descheduler_node_selector"],
                    dry_run=options["descheduler_dry_run"],
                ),
                user=UserInfo(options["as_user"], tuple(options["as_groups"]), options["user_can_bind"]),
            )
        except SimulationError as exc:
            raise CommandError(str(exc), returncode=2) from exc
        except ControllerLoadError as exc:  # a broken CONTROLLERS entry: say which, never skip it
            raise CommandError(str(exc), returncode=1) from exc
        if output_format == "json":
            self.stdout.write(json.dumps(result, indent=2))
        elif output_format == "yaml":
            self.stdout.write(yaml.safe_dump(result, sort_keys=False, default_flow_style=False), ending="")
        else:
            self.stdout.write(format_text(result), ending="")
        if fail_on_pending:
            pending = pending_lines(result)
            if pending:
                self.stdout.flush()
                count = len(pending)
                self.stderr.write(f"error: {count} pod{'' if count == 1 else 's'} still Pending at the end of the run:")
                for line in pending:
                    self.stderr.write(line)
                sys.exit(1)

    def _read(self, name: str) -> str:
        try:
            if name == "-":
                return sys.stdin.read(kube.MAX_TEXT_BYTES + 1)  # past the limit: refused by the loader
            with open(name, encoding="utf-8") as f:
                return f.read(kube.MAX_TEXT_BYTES + 1)
        except OSError as exc:
            raise CommandError(f"error: the path \"{name}\" cannot be read: {exc.strerror}", returncode=2) from exc
        except UnicodeDecodeError:
            raise CommandError(f'error: "{name}" is not UTF-8 text', returncode=2) from None

    def _load_policy(self, name: str) -> dict:
        text = self._read(name)
        try:
            doc = kube.parse_value(text, name, "the scheduler Policy")
        except kube.DocumentError as exc:
            raise CommandError(str(exc), returncode=2) from None
        if not isinstance(doc, dict):
            raise CommandError(f"{name}: a scheduler Policy must be a mapping (an object)", returncode=2)
        return doc


@contextlib.contextmanager
def _fewer_collections():
    """A run makes millions of objects that live until it ends (the documents, the engine's
    objects, the output): Python's cyclic collector looks through all of them again and
    again (an eighth of a large run). During the run it starts a collection after 50,000
    new objects instead of 700, and leaves the input alone once it is read (`_keep`);
    both are undone after."""
    threshold = gc.get_threshold()
    frozen = gc.get_freeze_count()
    gc.set_threshold(FIRST_GENERATION_THRESHOLD, *threshold[1:])
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
        if not frozen:
            gc.unfreeze()


FIRST_GENERATION_THRESHOLD = 50_000


def _keep(docs: list[dict]) -> None:
    """The input documents (and all else alive) stay to the end of the run: the collector
    need not look at them (gc.freeze), unless something else of the process froze objects
    already (then they are left as they are)."""
    if docs and not gc.get_freeze_count():
        gc.freeze()


def pending_lines(result: dict) -> list[str]:
    """One line per pod still Pending at the end of a run (`--fail-on-pending`): its name,
    the node it is bound to if any, and why it waits (the FailedScheduling message)."""
    lines = []
    for entry in result["pods"]:
        if entry["phase"] != "Pending":
            continue
        why = entry.get("message") or (f"bound to {entry['node']}, not started" if entry.get("node") else "")
        lines.append(f"  {entry['pod']}" + (f": {_one_line(why)}" if why else ""))
    return lines


def format_text(result: dict) -> str:
    """Tables a person reads: one line per pod (POD, NODE, PHASE, MESSAGE), then the events
    in time order with their simulated time (TIME as the scenarios write it, CLOCK as the
    board's clock reads it: engine.timeline.sim_time_text and board.format_clock)."""
    rows = [("POD", "NODE", "PHASE", "MESSAGE")]
    for entry in result["pods"]:
        message = entry.get("message") or ""
        if not message and entry.get("nominatedNode"):
            message = f"nominated to {entry['nominatedNode']}"
        rows.append((entry["pod"], entry["node"] or "<none>", entry["phase"], message))
    out = _table(rows)
    events = result.get("events") or []
    if events:
        out.append("")
        out.extend(_table([("TIME", "CLOCK", "TYPE", "REASON", "OBJECT", "MESSAGE")] + [
            (sim_time_text(e["time"]), format_clock(e["time"]), e["type"], e["reason"], e["object"], _one_line(e["message"]))
            for e in events
        ]))
    return "\n".join(out) + "\n"


def _table(rows: list[tuple[str, ...]]) -> list[str]:
    """Columns padded to their widest cell, three spaces apart; the last one as it is."""
    last = len(rows[0]) - 1
    widths = [max(len(r[i]) for r in rows) for i in range(last)]
    return [("   ".join(cell.ljust(widths[i]) for i, cell in enumerate(r[:last])) + "   " + r[last]).rstrip() for r in rows]


def _one_line(text: str) -> str:
    """A multi-line message (a command's output) on one row: its lines joined with "; "."""
    return "; ".join(line for line in text.splitlines() if line)
