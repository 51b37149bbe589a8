"""The commands about the session rather than the objects: `oc whoami`, `oc version`,
`oc config view|current-context`, `oc logs`, `oc adm top nodes|pods`.

Who and where: the caller passes the session in the file SESSION of `files` (one mapping:
`user`, the user the API server authenticated, `cluster`, the stored cluster's name); without
it the user is `system:admin` (the installer's kubeconfig, as on the command line) and the
cluster `cluster`. The simulated session is that kubeconfig: one cluster, one user `admin`,
one context `admin` (openshift/installer pkg/asset/kubeconfig: the admin kubeconfig's
names), its certificates shown as kubectl config view shows them (`DATA+OMITTED`).

What the simulator does not run is said as oc says it on a cluster without it:
`oc adm top` without a metrics server prints `error: Metrics API not available`
(kubectl pkg/cmd/top); a simulated container runs no process, so `oc logs` of a running one
prints kubectl's error for a container that wrote nothing it can fetch (see logs())."""

from __future__ import annotations

from collections import Counter
from typing import Any, Mapping, Sequence

from scheduling.engine.store import Store

from scheduling.engine.api import selectors

from .core import Flag, OcError, OcResult, meta, not_found, parse_flags, resource_or_error
from .output import json_text, yaml_text

SESSION = "oc-session"
ADMIN = "system:admin"
# the kustomize library oc 4.14-4.17 builds with (openshift/oc go.mod, sigs.k8s.io/kustomize/api)
KUSTOMIZE_VERSION = "v5.0.4-0.20230601165947-6ce0bf390ce3"
# the client's release when the cluster says none (no ClusterVersion): the oc of OpenShift 4.16
DEFAULT_CLIENT_VERSION = "4.16.0"


WHOAMI_FLAGS = (Flag("show-context", "bool", "c", False), Flag("show-server", "bool", "", False),
                Flag("show-console", "bool", "", False), Flag("show-token", "bool", "t", False), Flag("output", "string", "o", ""))
VERSION_FLAGS = (Flag("client", "bool", "", False), Flag("short", "bool", "", False), Flag("output", "string", "o", ""))
CONFIG_VIEW_FLAGS = (Flag("output", "string", "o", "yaml"), Flag("minify", "bool", "", False), Flag("raw", "bool", "", False),
                     Flag("flatten", "bool", "", False))
LOGS_FLAGS = (Flag("container", "string", "c", ""), Flag("follow", "bool", "f", False), Flag("previous", "bool", "p", False),
              Flag("tail", "int", "", -1), Flag("all-containers", "bool", "", False), Flag("timestamps", "bool", "", False),
              Flag("since", "duration", "", 0.0))
TOP_FLAGS = (Flag("selector", "string", "l", ""), Flag("all-namespaces", "bool", "A", False), Flag("containers", "bool", "", False),
             Flag("sort-by", "string", "", ""), Flag("no-headers", "bool", "", False),
             Flag("use-protocol-buffers", "bool", "", True), Flag("show-capacity", "bool", "", False))


def session(files: Mapping[str, Sequence[Mapping[str, Any]]] | None) -> dict:
    given = ((files or {}).get(SESSION) or [{}])[0]
    return {"user": given.get("user") or ADMIN, "cluster": given.get("cluster") or "cluster"}


# --- whoami ----------------------------------------------------------------------------------------------------


def whoami(store: Store, args: Sequence[str], now: float = 0.0, *, files=None) -> OcResult:
    """openshift/oc pkg/cli/whoami: the user's name (users/~); `--show-context`,
    `--show-server`, `--show-console`. An anonymous user is refused by the API server."""
    positional, flags = parse_flags(args, WHOAMI_FLAGS)
    if positional:
        raise OcError("no arguments should be provided", usage=True)
    s = session(files)
    if flags.show_token:
        raise OcError("no token is currently in use for this session")
    if flags.show_context:
        return OcResult(stdout=f"{current_context_name()}\n")
    if flags.show_server:
        return OcResult(stdout=f"{server_url(s['cluster'])}\n")
    if flags.show_console:
        return OcResult(stdout=f"https://console-openshift-console.apps.{s['cluster']}.example.com\n")
    if s["user"] == "system:anonymous":
        raise OcError('Error from server (Forbidden): users.user.openshift.io "~" is forbidden: User "system:anonymous" cannot '
                      'get resource "users" in API group "user.openshift.io" at the cluster scope', raw=True)
    return OcResult(stdout=f"{s['user']}\n")


whoami.uses_files = True


# --- version ---------------------------------------------------------------------------------------------------


def release_version(store: Store) -> str:
    """The cluster's release: clusteroperator/openshift-apiserver's `operator` version (what
    oc version reads), else the ClusterVersion's current one (its last completed update,
    else the desired release); "" without either."""
    co = store.get("ClusterOperator", "", "openshift-apiserver")
    for v in ((co or {}).get("status") or {}).get("versions") or ():
        if v.get("name") == "operator" and v.get("version"):
            return str(v["version"])
    cv = store.get("ClusterVersion", "", "version") or next(iter(store.list("ClusterVersion")), None)
    if cv is None:
        return ""
    status = cv.get("status") or {}
    for entry in status.get("history") or ():
        if entry.get("state") == "Completed" and entry.get("version"):
            return str(entry["version"])
    return str((status.get("desired") or {}).get("version") or "")


def kubernetes_version(store: Store) -> str:
    """The API server's gitVersion: the kubelet version the control-plane nodes report (the
    most common one; all nodes when no node has a control-plane role); "" when no node says."""
    nodes = store.list("Node")
    roles = ("node-role.kubernetes.io/master", "node-role.kubernetes.io/control-plane")
    control = [n for n in nodes if any(r in (meta(n).get("labels") or {}) for r in roles)] or nodes
    versions = Counter(((n.get("status") or {}).get("nodeInfo") or {}).get("kubeletVersion") for n in control)
    versions.pop(None, None)
    versions.pop("", None)
    return versions.most_common(1)[0][0] if versions else ""


def version(store: Store, args: Sequence[str], now: float = 0.0) -> OcResult:
    """openshift/oc pkg/cli/version: `Client Version`, `Kustomize Version`, `Server Version`
    (the release, when the cluster has one), `Kubernetes Version`; `--client`; `-o json|yaml`."""
    positional, flags = parse_flags(args, VERSION_FLAGS)
    if flags.output not in ("", "json", "yaml"):
        raise OcError("--output must be 'yaml' or 'json'")
    release = release_version(store)
    client = release or DEFAULT_CLIENT_VERSION
    kube = "" if flags.client else kubernetes_version(store)
    server_release = "" if flags.client else release
    if flags.output:
        info: dict[str, Any] = {"clientVersion": {"gitVersion": f"v{client}", "platform": "linux/amd64"},
                                "kustomizeVersion": KUSTOMIZE_VERSION, "releaseClientVersion": client}
        if kube:
            info["serverVersion"] = {"gitVersion": kube, "platform": "linux/amd64"}
        if server_release:
            info["openshiftVersion"] = server_release
        text = json_text(info).replace("    ", "  ") if flags.output == "json" else yaml_text(info) + "\n"
        return OcResult(stdout=text)
    out = f"Client Version: {client}\nKustomize Version: {KUSTOMIZE_VERSION}\n"
    if server_release:
        out += f"Server Version: {server_release}\n"
    if kube:
        out += f"Kubernetes Version: {kube}\n"
    return OcResult(stdout=out)


# --- config ------------------------------------------------------------------------------------------------------


def server_url(cluster: str) -> str:
    return f"https://api.{cluster}.example.com:6443"


def current_context_name() -> str:
    return "admin"


def kubeconfig(cluster: str, user: str) -> dict:
    name = "admin" if user == ADMIN else user
    return {
        "apiVersion": "v1",
        "clusters": [{"cluster": {"certificate-authority-data": "DATA+OMITTED", "server": server_url(cluster)}, "name": cluster}],
        "contexts": [{"context": {"cluster": cluster, "user": name}, "name": current_context_name()}],
        "current-context": current_context_name(),
        "kind": "Config",
        "preferences": {},
        "users": [{"name": name, "user": {"client-certificate-data": "DATA+OMITTED", "client-key-data": "REDACTED"}}],
    }


def config_view(store: Store, args: Sequence[str], now: float = 0.0, *, files=None) -> OcResult:
    """kubectl config view: the kubeconfig, secrets left out (`--raw` has none to show here)."""
    _, flags = parse_flags(args, CONFIG_VIEW_FLAGS)
    s = session(files)
    config = kubeconfig(s["cluster"], s["user"])
    if flags.output == "json":
        return OcResult(stdout=json_text(config))
    if flags.output not in ("yaml", ""):
        raise OcError(f'unable to match a printer suitable for the output format "{flags.output}", allowed formats are: '
                      "json,yaml")
    return OcResult(stdout=yaml_text(config))


config_view.uses_files = True


def current_context(store: Store, args: Sequence[str], now: float = 0.0) -> OcResult:
    positional, _ = parse_flags(args, ())
    if positional:
        raise OcError(f'unknown command "{positional[0]}" for "oc config current-context"', usage=True)
    return OcResult(stdout=f"{current_context_name()}\n")


# --- logs --------------------------------------------------------------------------------------------------------


def _waiting_reason(pod: Mapping[str, Any], container: str) -> str | None:
    status = pod.get("status") or {}
    for c in (status.get("initContainerStatuses") or []) + (status.get("containerStatuses") or []):
        if c.get("name") == container:
            waiting = (c.get("state") or {}).get("waiting")
            if waiting is not None:
                return waiting.get("reason") or "ContainerCreating"
            return None
    return None


def logs(store: Store, args: Sequence[str], now: float = 0.0) -> OcResult:
    """`oc logs POD|TYPE/NAME [-c CONTAINER]`. The API server's answers are kubectl's: a pod
    not found, `container X is not valid for pod Y`, a waiting container's BadRequest, an
    unscheduled pod's empty stream (LogLocation has no node to ask). A simulated container
    that runs writes no log lines: that is said on stderr, as a note, exit status 0."""
    positional, flags = parse_flags(args, LOGS_FLAGS)
    if not positional:
        raise OcError("expected 'logs [-f] [-p] (POD | TYPE/NAME) [-c CONTAINER]'.\nPOD or TYPE/NAME is a required argument "
                      "for the logs command", usage=True)
    namespace = flags.namespace or "default"
    word = positional[0]
    kind_word, slash, name = word.partition("/")
    if not slash:
        kind_word, name = "pod", word
    pod = None
    if kind_word in ("pod", "pods", "po"):
        pod = store.get("Pod", namespace, name)
        if pod is None:  # kubectl wraps the builder's NotFound
            raise OcError(f'error from server (NotFound): pods "{name}" not found in namespace "{namespace}"')
    else:
        r = resource_or_error(kind_word)
        owner = store.get(r.kind, namespace if r.namespaced else "", name)
        if owner is None:
            raise not_found(r, name)
        match = workload_selector(owner)
        matches = [p for p in store.list("Pod") if (meta(p).get("namespace") or "default") == namespace
                   and match(meta(p).get("labels") or {})]
        if not matches:
            raise OcError("timed out waiting for the condition")
        pod = sorted(matches, key=lambda p: meta(p).get("name") or "")[0]
    containers = [c.get("name") for c in ((pod.get("spec") or {}).get("containers") or [])]
    init = [c.get("name") for c in ((pod.get("spec") or {}).get("initContainers") or [])]
    pod_name = meta(pod).get("name")
    out = OcResult()
    chosen = flags.container
    if flags.all_containers:
        targets = init + containers
    elif chosen:
        if chosen not in containers + init:
            raise OcError(f"Error from server (BadRequest): container {chosen} is not valid for pod {pod_name}", raw=True)
        targets = [chosen]
    else:
        default = (meta(pod).get("annotations") or {}).get("kubectl.kubernetes.io/default-container")
        if default not in containers:
            default = containers[0] if containers else ""
            if len(containers) > 1 or init:
                out.stderr += f'Defaulted container "{default}" out of: {", ".join(containers + init)}\n'
        targets = [default]
    if not ((pod.get("spec") or {}).get("nodeName")):
        return out  # LogLocation: a pod without a node has no log location, an empty stream
    for container in targets:
        reason = _waiting_reason(pod, container)
        if reason is not None:
            out.stderr += (f'Error from server (BadRequest): container "{container}" in pod "{pod_name}" is waiting to start: '
                           f"{reason}\n")
            out.exit_code = 1
            return out
        if flags.previous:
            out.stderr += (f'Error from server (BadRequest): previous terminated container "{container}" in pod "{pod_name}" '
                           "not found\n")
            out.exit_code = 1
            return out
    out.stderr += (f"note: the simulator runs no processes: container{'s' if len(targets) > 1 else ''} "
                   f"{', '.join(f'{t!r}' for t in targets)} of pod/{pod_name} wrote no log lines\n")
    return out


def workload_selector(owner: Mapping[str, Any]):
    """labels -> bool for a workload's pod selector (a LabelSelector, or a
    ReplicationController's plain map)."""
    selector = (owner.get("spec") or {}).get("selector") or {}
    if "matchLabels" in selector or "matchExpressions" in selector:
        try:
            chosen = selectors.label_selector_as_selector(
                tuple(sorted((selector.get("matchLabels") or {}).items())),
                selectors.expressions_of(selector.get("matchExpressions")))
        except selectors.SelectorError:
            return lambda labels: False
    else:
        chosen = selectors.selector_from_set(selector)
    return chosen.matches


# --- adm top -----------------------------------------------------------------------------------------------------


def top(store: Store, args: Sequence[str], now: float = 0.0) -> OcResult:
    """`oc adm top node|pod`: the simulated cluster runs no metrics server, so kubectl's
    `Metrics API not available` (pkg/cmd/top/top_node.go, top_pod.go: metricsAPIAvailable)."""
    positional, _ = parse_flags(args, TOP_FLAGS)
    return OcResult(stderr="error: Metrics API not available\n", exit_code=1)


def top_help(store: Store, args: Sequence[str], now: float = 0.0) -> OcResult:
    """`oc adm top` alone: its help (a command group), or cobra's unknown command."""
    positional, _ = parse_flags(args, ())
    if positional:
        raise OcError(f'unknown command "{positional[0]}" for "oc adm top"', usage=True)
    return OcResult(stdout=TOP_HELP)


TOP_HELP = """Show usage statistics of resources on the server.

 This command analyzes resources managed by the platform and presents current usage statistics.

Usage:
  oc adm top [flags] [options]

Available Commands:
  images        Show usage statistics for images
  imagestreams  Show usage statistics for image streams
  node          Display resource (CPU/memory) usage of nodes
  persistentvolumeclaims Experimental: Show usage statistics for bound persistentvolumeclaims
  pod           Display resource (CPU/memory) usage of pods

Use "oc <command> --help" for more information about a given command.
Use "oc options" for a list of global command-line options (applies to all commands).
"""


for _f, _flags in ((whoami, WHOAMI_FLAGS), (version, VERSION_FLAGS), (config_view, CONFIG_VIEW_FLAGS), (logs, LOGS_FLAGS),
                   (top, TOP_FLAGS)):
    _f.flags = _flags  # what the console completes
