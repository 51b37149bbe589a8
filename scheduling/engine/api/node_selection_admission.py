"""The admission plugins that constrain where pods may go (the OpenShift 3.11 scheduling chapter's node selection admission), in the order
the OpenShift 3.11 API server runs them:

* `PodNodeConstraints` (openshift/origin release-3.11,
  pkg/scheduler/admission/podnodeconstraints): on by its configuration document
  (`PodNodeConstraintsConfig`, `nodeSelectorLabelBlacklist` defaulting to
  `[kubernetes.io/hostname]` when absent, as the v1 config defaults it). A pod (created)
  or an object with a pod template of the resources it lists, by API group
  (resourcesToCheck: core pods, podtemplates and replicationcontrollers, batch jobs and
  cronjobs, extensions deployments and replicasets, apps statefulsets, deploymentconfigs;
  so not DaemonSets, nor apps/* Deployments and ReplicaSets, whose pods are checked when
  their controller creates them), that sets `nodeName`, or a nodeSelector label on the
  blacklist, is refused unless the user may create `pods/binding`. A node creating a
  mirror pod bound to itself (`system:node:<name>` in `system:nodes`) passes.
* `OriginPodNodeEnvironment` (the project node selector, pkg/project/apiserver/admission
  /nodeenv): always on. Skipped for namespaces with the
  `scheduler.alpha.kubernetes.io/node-selector` annotation; otherwise the namespace's
  `openshift.io/node-selector` annotation (even "") or MasterConfig
  `projectConfig.defaultNodeSelector` (default "") is merged into the pod's nodeSelector;
  a conflicting key is refused.
* `PodNodeSelector` (kubernetes v1.11.0, plugin/pkg/admission/podnodeselector): on by its
  configuration document (`PodNodeSelectorConfig`, `podNodeSelectorPluginConfig`:
  `clusterDefaultNodeSelector` and per-namespace whitelists). The namespace's
  `scheduler.alpha.kubernetes.io/node-selector` annotation (else the cluster default) is
  merged into the pod's nodeSelector; a conflict, or a merged selector outside the
  namespace's whitelist, is refused.

Refusals are the API server's: `<resource> "<name>" is forbidden: <reason>` (`<resource>
is forbidden: ...` for an object without a name yet). A namespace that is not among the
known Namespace documents is taken as one without annotations.

Each plugin is `fn(doc, context) -> doc` (a copy), `context` a NodeSelectionContext:
the namespaces' annotations, the three configurations and the requesting user.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

from scheduling.engine.api.kinds import plural_of
from scheduling.engine.api.priority import AdmissionError
from scheduling.engine.api.validation import is_qualified_name, is_valid_label_value

POD_NODE_CONSTRAINTS = "PodNodeConstraints"
ORIGIN_POD_NODE_ENVIRONMENT = "OriginPodNodeEnvironment"
POD_NODE_SELECTOR = "PodNodeSelector"

POD_NODE_CONSTRAINTS_CONFIG = "PodNodeConstraintsConfig"
POD_NODE_SELECTOR_CONFIG = "PodNodeSelectorConfig"
MASTER_CONFIG = "MasterConfig"
OPENSHIFT_SCHEDULER = "Scheduler"  # config.openshift.io/v1, name cluster
CONFIG_KINDS = (POD_NODE_CONSTRAINTS_CONFIG, POD_NODE_SELECTOR_CONFIG, MASTER_CONFIG)

KUBE_NODE_SELECTOR_ANNOTATION = "scheduler.alpha.kubernetes.io/node-selector"
PROJECT_NODE_SELECTOR_ANNOTATION = "openshift.io/node-selector"
MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror"
LABEL_HOSTNAME = "kubernetes.io/hostname"
DEFAULT_BLACKLIST = (LABEL_HOSTNAME,)
CLUSTER_DEFAULT_NODE_SELECTOR = "clusterDefaultNodeSelector"
NODE_USER_PREFIX = "system:node:"
NODES_GROUP = "system:nodes"

# resourcesToCheck (origin release-3.11): the (API group, kind) of the requests checked.
_CHECKED = frozenset({
    ("", "Pod"), ("", "PodTemplate"), ("", "ReplicationController"),
    ("batch", "Job"), ("batch", "CronJob"),
    ("extensions", "Deployment"), ("extensions", "ReplicaSet"),
    ("apps", "StatefulSet"),
    ("", "DeploymentConfig"), ("apps.openshift.io", "DeploymentConfig"),
})
_CHECKED_KINDS = frozenset(kind for _, kind in _CHECKED)


class NodeSelectorError(ValueError):
    """A selector in a configuration or an annotation that does not parse."""


# --- labels helpers (apimachinery pkg/labels, 1.11) ------------------------------------------------------


def convert_selector_to_labels_map(selector: str) -> dict[str, str]:
    """labels.ConvertSelectorToLabelsMap: "k=v,k2=v2" -> a map; raises NodeSelectorError."""
    out: dict[str, str] = {}
    if not selector:
        return out
    for label in selector.split(","):
        parts = label.split("=")
        if len(parts) != 2:
            raise NodeSelectorError(f"invalid selector: [{' '.join(parts)}]")
        key, value = parts[0].strip(), parts[1].strip()
        errors = is_qualified_name(key)
        if errors:
            raise NodeSelectorError(f'invalid label key "{key}": {"; ".join(errors)}')
        errors = is_valid_label_value(value)
        if errors:
            raise NodeSelectorError(f'invalid label value: "{value}": {"; ".join(errors)}')
        out[key] = value
    return out


def conflicts(a: Mapping[str, str], b: Mapping[str, str]) -> bool:
    """labels.Conflicts: a key in both with different values."""
    return any(k in b and b[k] != v for k, v in a.items())


def merge(a: Mapping[str, str], b: Mapping[str, str]) -> dict[str, str]:
    """labels.Merge: the second wins."""
    return {**a, **b}


def labels_in_whitelist(labels: Mapping[str, str], whitelist: Mapping[str, str]) -> bool:
    """labels.AreLabelsInWhiteList: an empty whitelist allows everything."""
    if not whitelist:
        return True
    return all(k in whitelist and whitelist[k] == v for k, v in labels.items())


# --- configuration ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class UserInfo:
    """The requesting user, and the answer to "may they create pods/binding" (an
    authorizer we do not simulate: `--user-can-bind`)."""

    name: str = ""
    groups: tuple[str, ...] = ()
    can_bind: bool = False

    def node_identity(self) -> str | None:
        """nodeidentifier.NodeIdentity: the node name of `system:node:<name>` in `system:nodes`."""
        if self.name.startswith(NODE_USER_PREFIX) and NODES_GROUP in self.groups:
            return self.name[len(NODE_USER_PREFIX):] or None
        return None


# Controllers create their pods with their own service accounts
# (system:serviceaccount:kube-system:<controller>). Of their 1.11 bootstrap roles only the
# DaemonSet controller's has pods/binding (DaemonSet pods are bound by it in 3.11), so the
# pods of the others are checked by PodNodeConstraints like a user's.
_CONTROLLER_ACCOUNTS = {
    "ReplicaSet": "replicaset-controller",
    "ReplicationController": "replication-controller",
    "StatefulSet": "statefulset-controller",
    "DaemonSet": "daemon-set-controller",
    "Job": "job-controller",
}
CONTROLLER_USER = UserInfo("system:serviceaccount:kube-system:daemon-set-controller",
                           ("system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"), can_bind=True)


def controller_user(kind: str) -> UserInfo:
    """The user the controller of `kind` creates its pods as."""
    account = _CONTROLLER_ACCOUNTS.get(kind, f"{kind.lower()}-controller")
    return UserInfo(f"system:serviceaccount:kube-system:{account}",
                    ("system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"),
                    can_bind=kind == "DaemonSet")


@dataclass(frozen=True)
class NodeSelectionConfig:
    """The three plugins' configuration: None = the plugin is not configured (off)."""

    node_selector_label_blacklist: tuple[str, ...] | None = None  # PodNodeConstraints
    pod_node_selector: Mapping[str, str] | None = None  # PodNodeSelector's podNodeSelectorPluginConfig
    default_node_selector: str = ""  # MasterConfig projectConfig.defaultNodeSelector

    @classmethod
    def from_documents(cls, docs: Iterable[Mapping[str, Any]]) -> "NodeSelectionConfig":
        """From PodNodeConstraintsConfig / PodNodeSelectorConfig / MasterConfig documents and
        OpenShift 4's cluster Scheduler (other kinds are ignored); raises NodeSelectorError
        for a bad field."""
        blacklist: tuple[str, ...] | None = None
        selectors: dict[str, str] | None = None
        default = ""
        for doc in docs:
            kind = doc.get("kind")
            if kind == POD_NODE_CONSTRAINTS_CONFIG:
                raw = doc.get("nodeSelectorLabelBlacklist")
                if raw is None:
                    blacklist = DEFAULT_BLACKLIST  # SetDefaults_PodNodeConstraintsConfig
                elif isinstance(raw, list) and all(isinstance(x, str) for x in raw):
                    blacklist = tuple(raw)
                else:
                    raise NodeSelectorError(f"{kind}: nodeSelectorLabelBlacklist: must be a list of strings")
            elif kind == POD_NODE_SELECTOR_CONFIG:
                raw = doc.get("podNodeSelectorPluginConfig") or {}
                if not isinstance(raw, Mapping):
                    raise NodeSelectorError(f"{kind}: podNodeSelectorPluginConfig: must be a map of strings")
                selectors = {str(k): "" if v is None else str(v) for k, v in raw.items()}
            elif kind == MASTER_CONFIG:
                project = doc.get("projectConfig") or {}
                value = project.get("defaultNodeSelector") if isinstance(project, Mapping) else None
                default = "" if value is None else str(value)
            elif kind == OPENSHIFT_SCHEDULER and str(doc.get("apiVersion") or "").startswith("config.openshift.io/"):
                # OpenShift 4: the cluster Scheduler's spec.defaultNodeSelector is the
                # projects' default node selector (the API server's projectConfig)
                spec = doc.get("spec") or {}
                value = spec.get("defaultNodeSelector") if isinstance(spec, Mapping) else None
                if value:
                    default = str(value)
        return cls(blacklist, selectors, default)

    def to_documents(self) -> list[dict]:
        """The configuration documents (what the policy page edits and stores)."""
        docs: list[dict] = []
        if self.node_selector_label_blacklist is not None:
            docs.append({"apiVersion": "v1", "kind": POD_NODE_CONSTRAINTS_CONFIG,
                         "nodeSelectorLabelBlacklist": list(self.node_selector_label_blacklist)})
        if self.pod_node_selector is not None:
            docs.append({"apiVersion": "v1", "kind": POD_NODE_SELECTOR_CONFIG,
                         "podNodeSelectorPluginConfig": dict(self.pod_node_selector)})
        if self.default_node_selector:
            docs.append({"apiVersion": "v1", "kind": MASTER_CONFIG,
                         "projectConfig": {"defaultNodeSelector": self.default_node_selector}})
        return docs


@dataclass(frozen=True)
class NodeSelectionContext:
    """What the plugins read besides the object."""

    config: NodeSelectionConfig = NodeSelectionConfig()
    namespaces: Mapping[str, Mapping[str, str]] = field(default_factory=dict)  # name -> annotations
    user: UserInfo = UserInfo()

    @classmethod
    def build(cls, config: NodeSelectionConfig, docs: Iterable[Mapping[str, Any]], user: UserInfo = UserInfo()) -> "NodeSelectionContext":
        """From the cluster's documents (its Namespace documents are read)."""
        namespaces = {
            ((d.get("metadata") or {}).get("name") or ""): dict((d.get("metadata") or {}).get("annotations") or {})
            for d in docs if d.get("kind") == "Namespace"
        }
        return cls(config, namespaces, user)

    def as_user(self, user: UserInfo) -> "NodeSelectionContext":
        """The same context for another requesting user."""
        return self if user == self.user else NodeSelectionContext(self.config, self.namespaces, user)

    def with_namespaces(self, docs: Iterable[Mapping[str, Any]]) -> "NodeSelectionContext":
        """The same context knowing these Namespace documents too (created in the same request)."""
        extra = NodeSelectionContext.build(self.config, docs).namespaces
        return NodeSelectionContext(self.config, {**self.namespaces, **extra}, self.user)

    def annotations(self, namespace: str) -> Mapping[str, str]:
        return self.namespaces.get(namespace) or {}


def inherited_node_selector(context: NodeSelectionContext, namespace: str) -> tuple[dict[str, str], str]:
    """What the pods of `namespace` get merged into their nodeSelector, and from where
    (the namespace page shows it). Raises NodeSelectorError for a bad annotation."""
    annotations = context.annotations(namespace)
    out: dict[str, str] = {}
    sources: list[str] = []
    if KUBE_NODE_SELECTOR_ANNOTATION not in annotations:
        if PROJECT_NODE_SELECTOR_ANNOTATION in annotations:
            out = convert_selector_to_labels_map(annotations[PROJECT_NODE_SELECTOR_ANNOTATION])
            sources.append(f"annotation {PROJECT_NODE_SELECTOR_ANNOTATION}")
        elif context.config.default_node_selector:
            out = convert_selector_to_labels_map(context.config.default_node_selector)
            sources.append("projectConfig.defaultNodeSelector")
    if context.config.pod_node_selector is not None:
        selector = _namespace_node_selector(context, namespace)
        if selector:
            out = merge(out, selector)
            sources.append(f"annotation {KUBE_NODE_SELECTOR_ANNOTATION}" if KUBE_NODE_SELECTOR_ANNOTATION in annotations
                           else "PodNodeSelector clusterDefaultNodeSelector")
    return out, ", ".join(sources)


# --- refusals ------------------------------------------------------------------------------------------------


def api_group(doc: Mapping[str, Any]) -> str:
    """The API group of the document's apiVersion ("" for the core group)."""
    api_version = doc.get("apiVersion") or "v1"
    return api_version.split("/")[0] if "/" in api_version else ""


def resource_of(doc: Mapping[str, Any]) -> str:
    """The group-qualified resource an API refusal names: pods, deployments.apps,
    deployments.extensions, jobs.batch..."""
    kind = doc.get("kind") or ""
    resource = plural_of(kind)
    api_version = doc.get("apiVersion") or "v1"
    group = api_version.split("/")[0] if "/" in api_version else ""
    return f"{resource}.{group}" if group else resource


def forbidden(doc: Mapping[str, Any], reason: str, *, from_attributes: bool = False) -> AdmissionError:
    """apierrors.NewForbidden's message. A name generated from `generateName` is not
    known yet when admission runs (the registry generates it afterwards): not named.
    `from_attributes`: admission.NewForbidden's instead (PodNodeConstraints), which names
    the object by its generateName then, and "Unknown" without either."""
    meta = doc.get("metadata") or {}
    name = meta.get("name") or ""
    generate_name = meta.get("generateName") or ""
    if generate_name and name.startswith(generate_name):
        name = ""
    if from_attributes and not name:
        name = generate_name or "Unknown"
    resource = resource_of(doc)
    if not name:
        return AdmissionError(f"{resource} is forbidden: {reason}")
    return AdmissionError(f'{resource} "{name}" is forbidden: {reason}')


def _namespace_of(doc: Mapping[str, Any]) -> str:
    return (doc.get("metadata") or {}).get("namespace") or "default"


def pod_spec_of(doc: Mapping[str, Any]) -> dict | None:
    """The pod spec of a pod or of an object's pod template (imagereferencemutators.GetPodSpec)."""
    kind = doc.get("kind")
    if kind == "Pod":
        return doc.get("spec") or {}
    spec = doc.get("spec") or {}
    if kind == "PodTemplate":
        return (doc.get("template") or {}).get("spec") or {}
    if kind == "CronJob":
        return (((spec.get("jobTemplate") or {}).get("spec") or {}).get("template") or {}).get("spec") or {}
    if kind in _CHECKED_KINDS:
        return (spec.get("template") or {}).get("spec") or {}
    return None


# --- the plugins ---------------------------------------------------------------------------------------------


def pod_node_constraints(doc: Mapping[str, Any], context: NodeSelectionContext) -> dict:
    out = _spec_copy(doc)
    blacklist = context.config.node_selector_label_blacklist
    if blacklist is None or (api_group(out), out.get("kind")) not in _CHECKED:
        return out
    spec = pod_spec_of(out) or {}
    node_name = spec.get("nodeName") or ""
    if node_name and out.get("kind") == "Pod":
        annotations = (out.get("metadata") or {}).get("annotations") or {}
        if MIRROR_POD_ANNOTATION in annotations and context.user.node_identity() == node_name:
            return out  # a node creating a mirror pod that targets itself
    matching = [label for label in (spec.get("nodeSelector") or {}) if label in blacklist]
    if (node_name or matching) and not context.user.can_bind:
        labels = f"label(s) [{' '.join(matching)}]"
        if node_name and not matching:
            what = "nodeName"
        elif matching and not node_name:
            what = labels
        else:
            what = f"nodeName and {labels}"
        raise forbidden(out, f"node selection by {what} is prohibited by policy for your role", from_attributes=True)
    return out


def _spec_copy(doc: Mapping[str, Any]) -> dict:
    """The copy a plugin returns: the document and its spec copied, the rest shared (these
    plugins only set or remove spec.nodeSelector, as admission.spec_copy's do)."""
    out = dict(doc)
    if "spec" in out:
        out["spec"] = dict(out["spec"] or {})
    return out


def _set_node_selector(pod: dict, selector: Mapping[str, str]) -> None:
    spec = pod.setdefault("spec", {})
    if selector:
        spec["nodeSelector"] = dict(selector)
    else:
        spec.pop("nodeSelector", None)


def origin_pod_node_environment(doc: Mapping[str, Any], context: NodeSelectionContext) -> dict:
    out = _spec_copy(doc)
    if out.get("kind") != "Pod":
        return out
    annotations = context.annotations(_namespace_of(out))
    if KUBE_NODE_SELECTOR_ANNOTATION in annotations:
        return out
    selector = annotations.get(PROJECT_NODE_SELECTOR_ANNOTATION, context.config.default_node_selector)
    try:
        project = convert_selector_to_labels_map(selector)
    except NodeSelectorError as exc:
        raise AdmissionError(str(exc)) from exc
    pod_selector = dict((out.get("spec") or {}).get("nodeSelector") or {})
    if conflicts(project, pod_selector):
        raise forbidden(out, "pod node label selector conflicts with its project node label selector")
    _set_node_selector(out, merge(project, pod_selector))
    return out


def _namespace_node_selector(context: NodeSelectionContext, namespace: str) -> dict[str, str]:
    """getNodeSelectorMap: the namespace annotation, else the cluster default."""
    annotations = context.annotations(namespace)
    if KUBE_NODE_SELECTOR_ANNOTATION in annotations:
        return convert_selector_to_labels_map(annotations[KUBE_NODE_SELECTOR_ANNOTATION])
    return convert_selector_to_labels_map((context.config.pod_node_selector or {}).get(CLUSTER_DEFAULT_NODE_SELECTOR, ""))


def pod_node_selector(doc: Mapping[str, Any], context: NodeSelectionContext) -> dict:
    out = _spec_copy(doc)
    config = context.config.pod_node_selector
    if config is None or out.get("kind") != "Pod":
        return out
    namespace = _namespace_of(out)
    try:
        namespace_selector = _namespace_node_selector(context, namespace)
        whitelist = convert_selector_to_labels_map(config.get(namespace, ""))
    except NodeSelectorError as exc:
        raise AdmissionError(str(exc)) from exc
    pod_selector = dict((out.get("spec") or {}).get("nodeSelector") or {})
    if conflicts(namespace_selector, pod_selector):
        raise forbidden(out, "pod node label selector conflicts with its namespace node label selector")
    merged = merge(namespace_selector, pod_selector)
    if not labels_in_whitelist(merged, whitelist):
        raise forbidden(out, "pod node label selector labels conflict with its namespace whitelist")
    _set_node_selector(out, merged)
    return out


ContextPlugin = Callable[[Mapping[str, Any], NodeSelectionContext], dict]

# (name, plugin) in the order the 3.11 API server runs them.
PLUGINS: tuple[tuple[str, ContextPlugin], ...] = (
    (POD_NODE_CONSTRAINTS, pod_node_constraints),
    (ORIGIN_POD_NODE_ENVIRONMENT, origin_pod_node_environment),
    (POD_NODE_SELECTOR, pod_node_selector),
)
