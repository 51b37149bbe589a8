"""The `oc` command line: one LITERAL table of commands, the dispatcher, cobra's errors.

COMMANDS maps a command path (the words after `oc`) to its function, given as a dotted
path "package.module:function" and imported when the command runs, so commands of other
apps (`oc adm upgrade` from scheduling.engine.openshift) are added by one line here without
scheduling.engine importing them. Every command function is

    run(store: Store, args: Sequence[str], now: float) -> OcResult

`args` are the words after the command path (flags included); it raises OcError for
kubectl's errors (the dispatcher prints them with `error: ` and, for usage errors, the
`See '<path> -h' for help and examples` line; for flag parsing errors `See '<path> --help'
for usage.`) and may set `run.help_text` (kubectl's help;
`kubectl <name>` in it is replaced by the command path). A function with
`uses_files = True` also gets `files`: the documents of each `-f FILE` (parsed by the
caller; the engine reads no files). A command whose flags decide whether it writes sets
`run.writes = lambda args: ...` (the console and `--as` let read-only users run it when it
does not write); otherwise MUTATING / READ_ONLY below say it. The longest matching path wins, so
("adm", "upgrade", "channel") may have its own entry beside ("adm", "upgrade").
"""

from __future__ import annotations

import importlib
import shlex
from typing import Any, Callable, Mapping, Sequence

from scheduling.engine.store import Store

from .core import OcError, OcResult, error_line, parse_flags

COMMANDS: dict[tuple[str, ...], str] = {
    ("get",): "scheduling.engine.oc.get:run",
    ("describe",): "scheduling.engine.oc.describe:run",
    ("label",): "scheduling.engine.oc.label:label",
    ("annotate",): "scheduling.engine.oc.label:annotate",
    ("scale",): "scheduling.engine.oc.scale:run",
    ("patch",): "scheduling.engine.oc.patch:run",
    ("delete",): "scheduling.engine.oc.delete:run",
    ("create",): "scheduling.engine.oc.create:create",
    ("apply",): "scheduling.engine.oc.create:apply",
    ("replace",): "scheduling.engine.oc.create:replace",
    ("create", "namespace"): "scheduling.engine.oc.create_kinds:namespace",
    ("create", "ns"): "scheduling.engine.oc.create_kinds:namespace",
    ("create", "deployment"): "scheduling.engine.oc.create_kinds:deployment",
    ("create", "deploy"): "scheduling.engine.oc.create_kinds:deployment",
    ("create", "priorityclass"): "scheduling.engine.oc.create_kinds:priority_class",
    ("create", "pc"): "scheduling.engine.oc.create_kinds:priority_class",
    ("create", "job"): "scheduling.engine.oc.create_kinds:job",
    ("create", "cronjob"): "scheduling.engine.oc.create_kinds:cron_job",
    ("create", "cj"): "scheduling.engine.oc.create_kinds:cron_job",
    ("explain",): "scheduling.engine.oc.explain:run",
    ("whoami",): "scheduling.engine.oc.session:whoami",
    ("version",): "scheduling.engine.oc.session:version",
    ("config", "view"): "scheduling.engine.oc.session:config_view",
    ("config", "current-context"): "scheduling.engine.oc.session:current_context",
    ("logs",): "scheduling.engine.oc.session:logs",
    ("adm", "top"): "scheduling.engine.oc.session:top_help",
    ("adm", "top", "nodes"): "scheduling.engine.oc.session:top",
    ("adm", "top", "node"): "scheduling.engine.oc.session:top",
    ("adm", "top", "pods"): "scheduling.engine.oc.session:top",
    ("adm", "top", "pod"): "scheduling.engine.oc.session:top",
    ("edit",): "scheduling.engine.oc.edit:run",
    ("rollout", "status"): "scheduling.engine.oc.rollout:status",
    ("rollout", "history"): "scheduling.engine.oc.rollout:history",
    ("rollout", "restart"): "scheduling.engine.oc.rollout:restart",
    ("rollout", "pause"): "scheduling.engine.oc.rollout:pause",
    ("rollout", "resume"): "scheduling.engine.oc.rollout:resume",
    ("rollout", "undo"): "scheduling.engine.oc.rollout:undo",
    ("adm", "taint"): "scheduling.engine.oc.taint:run",
    ("adm", "cordon"): "scheduling.engine.oc.cordon:cordon",
    ("adm", "uncordon"): "scheduling.engine.oc.cordon:uncordon",
    ("adm", "drain"): "scheduling.engine.oc.drain:run",
    ("adm", "upgrade"): "scheduling.engine.openshift.oc_upgrade:upgrade",
    ("adm", "upgrade", "channel"): "scheduling.engine.openshift.oc_upgrade:channel",
    ("adm", "upgrade", "recommend"): "scheduling.engine.openshift.oc_recommend:recommend",
    ("adm", "upgrade", "rollback"): "scheduling.engine.openshift.oc_upgrade:rollback",
    ("adm", "upgrade", "status"): "scheduling.engine.openshift.oc_status:status",
}
# kubectl's top-level names for the commands oc keeps under `oc adm`.
KUBECTL_NAMES = {"taint": ("adm", "taint"), "cordon": ("adm", "cordon"), "uncordon": ("adm", "uncordon"), "drain": ("adm", "drain")}
# Commands that change the cluster (the console and --as check the user may edit before
# running them); READ_ONLY ones never do. Other `adm` commands count as writes unless listed.
MUTATING = frozenset({("edit",), ("label",), ("annotate",), ("scale",), ("patch",), ("delete",), ("create",), ("apply",), ("replace",), ("adm", "taint"),
                      ("adm", "cordon"), ("adm", "uncordon"), ("adm", "drain"), ("adm", "upgrade"), ("adm", "upgrade", "channel"),
                      ("adm", "upgrade", "rollback"), ("create", "namespace"), ("create", "ns"), ("create", "deployment"),
                      ("create", "deploy"), ("create", "priorityclass"), ("create", "pc"), ("create", "job"), ("create", "cronjob"), ("create", "cj"),
                      ("rollout", "restart"), ("rollout", "pause"), ("rollout", "resume"),
                      ("rollout", "undo")})


def load(path: str) -> Callable[..., OcResult]:
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


def _leading_global_flags(words: Sequence[str]) -> int:
    """How many of the first words are global flags given before the command (`oc -n
    shop get pods`): -n/--namespace with its value, -h/--help. cobra finds the command
    past them; they stay in the command's args."""
    i = 0
    while i < len(words):
        w = words[i]
        if w in ("-n", "--namespace"):
            i += 2
        elif w.startswith("--namespace=") or (w.startswith("-n") and len(w) > 2) or w in ("-h", "--help"):
            i += 1
        else:
            break
    return min(i, len(words))


def resolve(tool: str, words: Sequence[str]) -> tuple[tuple[str, ...] | None, list[str]]:
    """(the command path in COMMANDS, the remaining args) for the words after `oc`; global
    flags given before the command come first in the args."""
    words = list(words)
    n = _leading_global_flags(words)
    if n:
        path, args = resolve(tool, words[n:])
        return path, words[:n] + args
    if tool == "kubectl" and words and words[0] in KUBECTL_NAMES:
        return KUBECTL_NAMES[words[0]], words[1:]
    best: tuple[str, ...] | None = None
    for path in COMMANDS:
        if tuple(words[: len(path)]) == path and (best is None or len(path) > len(best)):
            best = path
    if best is None:
        return None, words
    return best, words[len(best):]


# Every available (not hidden, not deprecated) command of the real roots, sorted as cobra
# lists them, for cobra's "Did you mean this?" (openshift/oc pkg/cli/cli.go; kubectl
# pkg/cmd/cmd.go), and the SuggestFor words of some of them.
OC_COMMAND_NAMES = (
    "adm", "annotate", "api-resources", "api-versions", "apply", "attach", "auth", "autoscale", "cancel-build",
    "cluster-info", "completion", "config", "cp", "create", "debug", "delete", "describe", "diff", "edit", "events", "exec",
    "explain", "expose", "extract", "get", "get-token", "idle", "image", "import-image", "kustomize", "label", "login",
    "logout", "logs", "new-app", "new-build", "new-project", "observe", "options", "patch", "plugin", "policy",
    "port-forward", "process", "project", "projects", "proxy", "registry", "replace", "rollback", "rollout", "rsh", "rsync",
    "run", "scale", "secrets", "set", "start-build", "status", "tag", "version", "wait", "whoami",
)
KUBECTL_COMMAND_NAMES = (
    "annotate", "api-resources", "api-versions", "apply", "attach", "auth", "autoscale", "certificate", "cluster-info",
    "completion", "config", "cordon", "cp", "create", "debug", "delete", "describe", "diff", "drain", "edit", "events", "exec",
    "explain", "expose", "get", "kustomize", "label", "logs", "patch", "plugin", "port-forward", "proxy", "replace",
    "rollout", "run", "scale", "set", "taint", "top", "uncordon", "version", "wait",
)
SUGGEST_FOR = {"get": ("list", "ps"), "wait": ("list", "ps"), "delete": ("rm",), "cancel-build": ("builds", "stop-build"),
               "new-app": ("app", "application"), "new-build": ("build", "builds")}


READ_ONLY = frozenset({("get",), ("describe",), ("adm", "upgrade", "status"), ("adm", "upgrade", "recommend"), ("explain",),
                       ("whoami",), ("version",), ("config", "view"), ("config", "current-context"), ("logs",), ("adm", "top"),
                       ("adm", "top", "nodes"), ("adm", "top", "node"), ("adm", "top", "pods"), ("adm", "top", "pod"),
                       ("rollout", "status"), ("rollout", "history")})

# `oc` and `oc adm` without a command print their help (openshift/oc pkg/cli/cli.go: the
# root's Run is runHelp; pkg/cli/admin/admin.go: adm's is kcmdutil.DefaultSubCommandRun,
# which prints the help on stderr and exits 1), rendered by kubectl's templates
# (k8s.io/kubectl pkg/util/templates: Long, the command groups, Usage, the tips). Only the
# commands the simulator implements are listed, each in oc's group with its Short; names
# are padded as cobra pads them, to the longest name among ALL the parent's commands
# (`serviceaccounts` under oc, `create-provider-selection-template` under oc adm), so each
# line reads as oc prints it.
OC_LONG = """OpenShift Client

This client helps you develop, build, deploy, and run your applications on any
OpenShift or Kubernetes cluster. It also includes the administrative
commands for managing a cluster under the 'adm' subcommand."""
OC_HELP_GROUPS: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    ("Basic Commands:", (
        ("explain", "Get documentation for a resource"),
    )),
    ("Build and Deploy Commands:", (
        ("rollout", "Manage a Kubernetes deployment or OpenShift deployment config"),
    )),
    ("Application Management Commands:", (
        ("create", "Create a resource from a file or from stdin"),
        ("apply", "Apply a configuration to a resource by file name or stdin"),
        ("get", "Display one or many resources"),
        ("describe", "Show details of a specific resource or group of resources"),
        ("edit", "Edit a resource on the server"),
        ("label", "Update the labels on a resource"),
        ("annotate", "Update the annotations on a resource"),
        ("delete", "Delete resources by file names, stdin, resources and names, or by resources and label selector"),
        ("scale", "Set a new size for a deployment, replica set, or replication controller"),
    )),
    ("Troubleshooting and Debugging Commands:", (
        ("logs", "Print the logs for a resource"),
    )),
    ("Advanced Commands:", (
        ("adm", "Tools for managing a cluster"),
        ("replace", "Replace a resource by file name or stdin"),
        ("patch", "Update fields of a resource"),
    )),
    ("Settings Commands:", (
        ("config", "Modify kubeconfig files"),
        ("whoami", "Return information about the current session"),
    )),
    ("Other Commands:", (
        ("version", "Print the client and server version information"),
    )),
)
OC_NAME_PADDING = len("serviceaccounts")
ADM_LONG = """Administrative Commands

 Actions for administering an OpenShift cluster are exposed here."""
# not the root: kubectl's templater lists a subcommand's commands as "Available Commands:", sorted
ADM_COMMANDS = (
    ("cordon", "Mark node as unschedulable"),
    ("drain", "Drain node in preparation for maintenance"),
    ("taint", "Update the taints on one or more nodes"),
    ("top", "Show usage statistics of resources on the server"),
    ("uncordon", "Mark node as schedulable"),
    ("upgrade", "Upgrade a cluster or adjust the upgrade channel"),
)
ADM_NAME_PADDING = len("create-provider-selection-template")


def _command_lines(commands: Sequence[tuple[str, str]], padding: int) -> list[str]:
    return [f"  {name.ljust(padding)} {short}" for name, short in commands]


def root_help() -> str:
    """`oc` / `oc --help`."""
    groups = ["\n".join([title, *_command_lines(commands, OC_NAME_PADDING)]) for title, commands in OC_HELP_GROUPS]
    return (f"{OC_LONG}\n\n" + "\n\n".join(groups) + "\n\nUsage:\n  oc [flags] [options]\n\n"
            'Use "oc <command> --help" for more information about a given command.\n'
            'Use "oc options" for a list of global command-line options (applies to all commands).\n')


def adm_help() -> str:
    """`oc adm` / `oc adm --help`."""
    lines = "\n".join(["Available Commands:", *_command_lines(ADM_COMMANDS, ADM_NAME_PADDING)])
    return (f"{ADM_LONG}\n\n{lines}\n\nUsage:\n  oc adm [flags] [options]\n\n"
            'Use "oc <command> --help" for more information about a given command.\n'
            'Use "oc options" for a list of global command-line options (applies to all commands).\n')


def split(command: str | Sequence[str]) -> list[str]:
    return shlex.split(command) if isinstance(command, str) else list(command)


def _levenshtein(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def _unknown(tool: str, words: Sequence[str]) -> OcResult:
    """cobra: `unknown command "x" for "oc"` with its suggestions (distance <= 2 or prefix);
    under `oc adm`, RequireNoArguments' `unknown command "x y"` usage error."""
    words = list(words)[_leading_global_flags(words):]
    parent: tuple[str, ...] = ()
    if words and words[0] == "adm" and tool == "oc":
        parent = ("adm",)
    word = words[len(parent)] if len(words) > len(parent) else ""
    names = sorted({p[len(parent)] for p in COMMANDS if p[: len(parent)] == parent and len(p) > len(parent)}
                   | ({"adm"} if not parent and tool == "oc" else set())
                   | (set(KUBECTL_NAMES) if tool == "kubectl" else set()))
    if tool == "kubectl":
        names = [n for n in names if n != "adm"]
    path = " ".join((tool, *parent))
    rest = words[len(parent):]
    if tool == "oc" and rest and all(w in ("-h", "--help") for w in rest):
        return OcResult(stdout=adm_help() if parent else root_help())  # the help flag: on stdout
    if parent and word:
        # `oc adm` is not the root: cobra hands the words to its Run,
        # kcmdutil.DefaultSubCommandRun -> RequireNoArguments (no suggestions)
        try:
            args, _ = parse_flags(words[len(parent):], ())
        except OcError as exc:
            return OcResult(stderr=f"{error_line(exc.message)}\nSee '{path} --help' for usage.\n", exit_code=1)
        return OcResult(stderr=f'error: unknown command "{" ".join(args)}"\nSee \'{path} -h\' for help and examples\n',
                        exit_code=1)
    if not word and tool == "oc":
        if not parent:
            return OcResult(stdout=root_help())  # runHelp
        # DefaultSubCommandRun: the help on stderr, then CheckErr(ErrExit): exit 1, no message
        return OcResult(stderr=adm_help(), exit_code=1)
    if not word:
        return OcResult(stderr=f"error: you must specify a command: {', '.join(names)}\nSee '{path} -h' for help and examples\n",
                        exit_code=1)
    # cobra's SuggestionsFor over every available command of the real root (not only the
    # simulated ones): Levenshtein distance <= 2 ignoring case, a prefix, or a SuggestFor word
    everything = OC_COMMAND_NAMES if tool == "oc" else KUBECTL_COMMAND_NAMES
    suggestions = [n for n in everything if _levenshtein(word.lower(), n) <= 2 or n.startswith(word.lower())
                   or word.lower() in SUGGEST_FOR.get(n, ())]
    text = f'error: unknown command "{word}" for "{path}"'
    if suggestions:
        text += "\n\nDid you mean this?\n" + "".join(f"\t{s}\n" for s in suggestions)
    else:
        text += "\n"
    return OcResult(stderr=text, exit_code=1)


def run(store: Store, command: str | Sequence[str], now: float = 0.0, *,
        files: Mapping[str, Sequence[Mapping[str, Any]]] | None = None) -> OcResult:
    """Run one `oc` (or `kubectl`) command line against `store` (read only: the result's
    actions say what to change)."""
    try:
        argv = split(command)
    except ValueError as exc:
        return OcResult(stderr=f"error: {exc}\n", exit_code=1)
    if not argv or argv[0] not in ("oc", "kubectl"):
        shown = argv[0] if argv else ""
        return OcResult(stderr=f"error: unknown command \"{shown}\": the console runs oc and kubectl commands only\n", exit_code=1)
    tool = argv[0]
    path, args = resolve(tool, argv[1:])
    if path is None:
        return _unknown(tool, argv[1:])
    shown_path = " ".join((tool, *path)) if tool == "oc" else f"kubectl {path[-1]}"
    try:
        function = load(COMMANDS[path])
    except (ImportError, AttributeError) as exc:
        return OcResult(stderr=f"error: the command {shown_path} is not available: {exc}\n", exit_code=1)
    flag_args = args[: args.index("--")] if "--" in args else args
    if "-h" in flag_args or "--help" in flag_args:
        text = getattr(function, "help_text", None)
        if text:
            return OcResult(stdout=text.replace(f"kubectl {path[-1]}", shown_path))
    try:
        if getattr(function, "uses_files", False):
            return function(store, args, now, files=files or {})
        return function(store, args, now)
    except OcError as exc:
        if exc.raw:
            return OcResult(stderr=exc.message + "\n", exit_code=1)
        text = error_line(exc.message)
        if exc.flag:  # the root command's FlagErrorFunc (kubectl pkg/util/templates)
            text += f"\nSee '{shown_path} --help' for usage."
        elif exc.usage:
            text += f"\nSee '{shown_path} -h' for help and examples"
        # cmdutil.CheckErr adds the newline only when the message lacks one
        return OcResult(stderr=text if text.endswith("\n") else text + "\n", exit_code=1)
