"""python manage.py oc [-f FILE ...] [--cluster NAME] [--now TIME] [--alerts FILE] [--as USER] ARGS...

`oc` against the simulated cluster, printing what current upstream oc prints, with its
exit status. The options above come first; the first other word starts the oc command
(`oc` itself may be omitted), so `manage.py oc --cluster demo create -f pod.yaml` passes `-f pod.yaml` to `oc create`.

* `-f FILE` (repeatable, `-` = stdin): a snapshot (`oc get -o yaml` output, a
  must-gather's YAML): the objects exactly as given. Mutating commands change nothing.
* `--cluster NAME`: a stored cluster; writes go through the services.
* `--now TIME` (RFC 3339): "now" for ages; default the cluster's clock (second 0 =
  2026-01-01T00:00:00Z) or, for files, the wall clock.
* `--as USER`: whose permissions apply (a user without the edit_cluster permission may only
  read); default: the command line's administrator.
* `oc edit TYPE NAME` (with --cluster) opens the object in $KUBE_EDITOR, else $EDITOR, else vi,
  as kubectl does, and applies what is saved (engine.oc.edit).
* `--alerts FILE`: alert data for the commands that read alerts (handed to them as the
  file "--alerts"); without it a stored cluster's own simulated alerts are read.
* `oc adm upgrade recommend --mock-clusterversion=X-cv.yaml` (oc's hidden test flag) reads X-cv.yaml
  and, when it exists, X-alerts.json, and needs neither --cluster nor -f.
See scheduling/store/oc_cli.py.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from scheduling.engine.oc import commands
from scheduling.engine.oc.edit import EDIT_FILE, strip_comments
from scheduling.store import kube, oc_cli, reconcile
from scheduling.models import Cluster

USAGE = "usage: manage.py oc [-f FILE ...] [--cluster NAME] [--now TIME] [--alerts FILE] [--as USER] ARGS...\n"
OWN_OPTIONS = ("-f", "--filename", "--cluster", "--now", "--alerts", "--as")


def _mock_clusterversion(command: list[str]) -> str | None:
    """The path of `--mock-clusterversion` (oc adm upgrade recommend's hidden flag), if given."""
    for j, word in enumerate(command):
        if word == "--mock-clusterversion" and j + 1 < len(command):
            return command[j + 1]
        if word.startswith("--mock-clusterversion="):
            return word.split("=", 1)[1]
    return None


def _read(path: str, stdin) -> str:
    if path == "-":
        return stdin.read()
    with open(path, encoding="utf-8") as fh:
        return fh.read()


def _own_options(argv: list[str]):
    """This command's options before the oc command: (files, cluster, now, alerts, as_user,
    the words left), or the name of an option given without its argument."""
    files: list[str] = []
    cluster_name = now_text = alerts = as_user = None
    i = 0
    while i < len(argv) and argv[i] in OWN_OPTIONS or (i < len(argv) and argv[i].split("=", 1)[0] in OWN_OPTIONS):
        name, eq, value = argv[i].partition("=")
        if not eq:
            if i + 1 >= len(argv):
                return name
            value = argv[i + 1]
            i += 1
        i += 1
        if name in ("-f", "--filename"):
            files.append(value)
        elif name == "--cluster":
            cluster_name = value
        elif name == "--now":
            now_text = value
        elif name == "--alerts":
            alerts = value
        else:
            as_user = value
    return files, cluster_name, now_text, alerts, as_user, argv[i:]


def _snapshots(files: list[str], stdin) -> tuple[list[dict], list[dict]]:
    """The objects and events of the snapshot files (`oc get -o yaml` output, a
    must-gather's YAML). Raises OSError or kube.DocumentError."""
    objects: list[dict] = []
    events: list[dict] = []
    for path in files:
        o, e, _skipped = oc_cli.snapshot_documents(_read(path, stdin), path)
        objects += o
        events += e
    return objects, events


def _oc_files(command: list[str], alerts: str | None, mock: str | None, stdin) -> dict[str, list[dict]]:
    """The files the oc command reads, parsed here: its own -f FILE (create/apply/replace/
    delete), the --alerts file, and recommend's hidden test input with the alerts beside it.
    Raises OSError or kube.DocumentError."""
    own_files: dict[str, list[dict]] = {}
    for j, word in enumerate(command):
        path = None
        if word in ("-f", "--filename") and j + 1 < len(command):
            path = command[j + 1]
        elif word.startswith("--filename=") or (word.startswith("-f") and len(word) > 2 and word[2] != "-"):
            path = word.split("=", 1)[1] if "=" in word else word[2:]
        if path is not None:
            own_files[path] = [kube.without_managed_fields(d) for d in kube.parse_documents(_read(path, stdin), path)]
    if alerts:
        own_files["--alerts"] = kube.parse_documents(_read(alerts, stdin), alerts)
    if mock is not None and os.path.exists(mock):
        own_files[mock] = [oc_cli.decoded(kube.without_managed_fields(d), mock)
                           for d in kube.parse_documents(_read(mock, stdin), mock)]
        beside = mock.replace("-cv.yaml", "-alerts.json", 1)
        if beside != mock and os.path.exists(beside):
            own_files[beside] = kube.parse_documents(_read(beside, stdin), beside)
    return own_files


def _run_on_stored_cluster(cluster_name: str, as_user: str | None, command: list[str], emit, now, own_files, stderr) -> int:
    """The oc command on a stored cluster, as `as_user` (default: the administrator), then
    the write's reconcile, here, whether or not a worker runs (the task it asked for then
    finds nothing due: a run is idempotent)."""
    cluster = Cluster.objects.filter(name=cluster_name).first()
    if cluster is None:
        stderr.write(f'error: no cluster named "{cluster_name}"\n')
        return 1
    user = None
    if as_user is not None:
        user = get_user_model().objects.filter(username=as_user).first()
        if user is None:
            stderr.write(f'error: no user named "{as_user}"\n')
            return 1
    if _is_edit(command):
        code = _edit(lambda edited: oc_cli.run_on_cluster(cluster, command, emit, user=user, files=edited, wait=False), stderr)
    else:
        code = oc_cli.run_on_cluster(cluster, command, emit, now=now, user=user, files=own_files).exit_code
    reconcile.reconcile(cluster.pk)
    return code


def _launch(editor: str, text: str, stderr) -> str | None:
    """kubectl's editor.LaunchTempFile: the text in a temporary file opened in the editor
    (through $SHELL -c when the editor has arguments); the file as saved, None when the
    editor failed."""
    with tempfile.NamedTemporaryFile("w", prefix="oc-edit-", suffix=".yaml", delete=False) as f:
        f.write(text)
    try:
        args = [editor, f.name] if " " not in editor else [os.environ.get("SHELL") or "/bin/bash", "-c",
                                                           f"{editor} {shlex.quote(f.name)}"]
        try:
            code = subprocess.call(args)
        except OSError:
            code = -1
        if code != 0:
            stderr.write(f'error: there was a problem with the editor "{editor}"\n')
            return None
        with open(f.name) as saved:
            return saved.read()
    finally:
        os.remove(f.name)


def _is_edit(command: list[str]) -> bool:
    return commands.resolve(command[0], command[1:])[0] == ("edit",)


def _edit(run, stderr) -> int:
    """`oc edit` on the command line: kubectl's loop with the editor of $KUBE_EDITOR or
    $EDITOR (else vi): the file opens again with the errors in its header until it saves,
    is left as it was, or is saved unchanged after an error. `run(files)` runs the command
    (on the stored cluster, or on a snapshot, which nothing changes)."""
    editor = os.environ.get("KUBE_EDITOR") or os.environ.get("EDITOR") or "vi"
    result = run(None)
    previous = None
    while result.edit is not None:
        text = _launch(editor, result.edit, stderr)
        if text is None:
            return 1
        if previous is not None and strip_comments(previous) == strip_comments(text):
            stderr.write("error: Edit cancelled, no valid changes were saved.\n")
            return 1
        result = run({EDIT_FILE: [{"text": text}]})
        previous = text
    return result.exit_code


class Command(BaseCommand):
    help = "Run an oc command against a stored cluster (--cluster) or snapshot files (-f), printing what oc prints."
    requires_system_checks: list = []

    def run_from_argv(self, argv):
        code = self.main(argv[2:], sys.stdin, sys.stdout, sys.stderr)
        sys.exit(code)

    def handle(self, *args, **options):  # call_command("oc", ...) -> the exit status
        code = self.main(list(args), options.get("stdin") or sys.stdin, self.stdout._out, self.stderr._out)
        if code:
            raise SystemExit(code)

    def create_parser(self, prog_name, subcommand, **kwargs):
        parser = super().create_parser(prog_name, subcommand, **kwargs)
        parser.add_argument("args", nargs="*")
        return parser

    def main(self, argv: list[str], stdin, stdout, stderr) -> int:
        """Parse this command's own options, read the files, run the oc command on the stored
        cluster, the snapshot files or recommend's mock ClusterVersion; the exit status."""
        parsed = _own_options(argv)
        if isinstance(parsed, str):
            stderr.write(f"error: flag needs an argument: {parsed}\n{USAGE}")
            return 2
        files, cluster_name, now_text, alerts, as_user, rest = parsed
        if rest and rest[0] in ("oc", "kubectl"):
            command = rest
        else:
            command = ["oc", *rest]
        emit = oc_cli.stdio_emit(stdout, stderr)
        mock = _mock_clusterversion(command)
        mock_only = mock is not None and not files and not cluster_name  # oc reads the mock files only
        if not mock_only and bool(files) == bool(cluster_name):
            stderr.write("error: give either --cluster NAME or -f FILE ...\n" + USAGE)
            return 2
        now = None
        if now_text is not None:
            try:
                now = oc_cli.parse_now(now_text)
            except ValueError as exc:
                stderr.write(f'error: invalid argument "{now_text}" for "--now" flag: {exc}\n')
                return 2
        # oc's own -f FILE (create/apply/replace/delete): read and parse them here.
        try:
            own_files = _oc_files(command, alerts, mock, stdin)
        except OSError as exc:
            stderr.write(f"error: the path \"{exc.filename}\" does not exist\n")
            return 1
        except kube.DocumentError as exc:
            stderr.write(f"error: {exc}\n")
            return 1
        if cluster_name:
            return _run_on_stored_cluster(cluster_name, as_user, command, emit, now, own_files, stderr)
        if mock_only:
            store = oc_cli.snapshot_store([])
            result = oc_cli.run_on_snapshot(store, command, emit, now=oc_cli.wall_now() if now is None else now, files=own_files)
            return result.exit_code
        try:
            objects, events = _snapshots(files, stdin)
        except OSError as exc:
            stderr.write(f"error: the path \"{exc.filename}\" does not exist\n")
            return 1
        except kube.DocumentError as exc:
            stderr.write(f"error: {exc}\n")
            return 1
        store = oc_cli.snapshot_store(objects, events)
        at = oc_cli.wall_now() if now is None else now
        if _is_edit(command):  # the editor opens on the snapshot's object; nothing is changed
            return _edit(lambda edited: oc_cli.run_on_snapshot(store, command, emit, now=at, files={**own_files, **(edited or {})}),
                         stderr)
        result = oc_cli.run_on_snapshot(store, command, emit, now=at, files=own_files)
        return result.exit_code
