"""`oc create namespace|deployment|priorityclass NAME` (kubectl pkg/cmd/create:
create_namespace.go, create_deployment.go, create_priorityclass.go): the object kubectl
builds from the flags, checked and defaulted as the API server takes it, then
`namespace/NAME created` (or the object with -o yaml|json, ` (dry run)` with --dry-run)."""

from __future__ import annotations

from typing import Any, Sequence

from scheduling.engine import actions as A
from scheduling.engine.api.defaults import apply_defaults
from scheduling.engine.api.validation import decode_and_validate, invalid_error
from scheduling.engine.store import Store, time_value

from . import namespaces
from .core import BY_KIND, DRY_RUN, OUTPUT, Flag, OcError, OcResult, dry_run_strategy, name_line, parse_flags
from .output import api_document, json_text, yaml_text
from .session import SESSION

COMMON = (DRY_RUN, OUTPUT, Flag("save-config", "bool", "", False), Flag("validate", "string", "", "strict"),
          Flag("field-manager", "string", "", "kubectl-create"))
NAMESPACE_FLAGS = COMMON
DEPLOYMENT_FLAGS = (*COMMON, Flag("image", "strings", "", ()), Flag("replicas", "int", "r", 1), Flag("port", "int", "", -1))
PRIORITY_CLASS_FLAGS = (*COMMON, Flag("value", "int", "", 0), Flag("global-default", "bool", "", False),
                        Flag("description", "string", "", ""), Flag("preemption-policy", "string", "", "PreemptLowerPriority"))


def _name(positional: Sequence[str]) -> str:
    if len(positional) != 1:
        raise OcError("exactly one NAME is required, got " + str(len(positional)), usage=True)
    return positional[0]


def _create(store: Store, doc: dict, flags, now: float, files) -> OcResult:
    dry_run = dry_run_strategy(flags.dry_run)
    r = BY_KIND[doc["kind"]]
    meta = doc["metadata"]
    name = meta["name"]
    ns = (meta.setdefault("namespace", flags.namespace or "default")) if r.namespaced else ""
    if dry_run != "client":
        _, problems = decode_and_validate(doc, r.namespaced)
        if problems:
            raise OcError(invalid_error(doc, problems).cli_message(), raw=True)
        existing = (namespaces.get(store, name) if r.kind == "Namespace" and SESSION in (files or {})
                    else store.get(r.kind, ns, name))
        if existing is not None:
            raise OcError(f'Error from server (AlreadyExists): {r.resource_string} "{name}" already exists', raw=True)
    if dry_run != "client":
        doc["metadata"].setdefault("creationTimestamp", time_value(now))
    shown = doc if dry_run == "client" else apply_defaults(doc)
    action = A.CreateObject(shown)
    if flags.output in ("yaml", "json"):
        text = yaml_text(api_document(shown)) if flags.output == "yaml" else json_text(api_document(shown))
    elif flags.output == "name":
        text = name_line(r, name)
    elif flags.output:
        raise OcError(f'unable to match a printer suitable for the output format "{flags.output}", allowed formats are: '
                      "json,name,yaml")
    else:
        text = name_line(r, name, "created", dry_run)
    result = OcResult(stdout=text)
    if dry_run == "none":
        result.actions = [action]
    elif dry_run == "server":
        result.would = [action]
    return result


def namespace(store: Store, args: Sequence[str], now: float = 0.0, *, files=None) -> OcResult:
    positional, flags = parse_flags(args, NAMESPACE_FLAGS)
    name = _name(positional)
    doc = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}, "spec": {}, "status": {}}
    if dry_run_strategy(flags.dry_run) != "client":
        # the API server labels every namespace with its name (kubernetes.io/metadata.name, 1.21+)
        doc["metadata"]["labels"] = {"kubernetes.io/metadata.name": name}
    return _create(store, doc, flags, now, files)


def _container_name(image: str) -> str:
    """create_deployment.go buildPodSpec: the image's last path element without tag or digest."""
    name = image.split("/")[-1]
    name = name.split(":")[0] if ":" in name else name
    return name.split("@")[0] if "@" in name else name


def deployment(store: Store, args: Sequence[str], now: float = 0.0, *, files=None) -> OcResult:
    positional, flags = parse_flags(args, DEPLOYMENT_FLAGS)
    name = _name(positional)
    if not flags.image:
        raise OcError('required flag(s) "image" not set')
    if len(flags.image) > 1 and flags.port >= 0:
        raise OcError("cannot expose multiple containers")
    labels = {"app": name}
    containers: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for image in flags.image:
        base = _container_name(image)
        count = seen.get(base, 0)
        seen[base] = count + 1
        containers.append({"image": image, "name": base if count == 0 else f"{base}-{count}", "resources": {}})
    if flags.port >= 0:
        containers[0]["ports"] = [{"containerPort": flags.port}]
    doc = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"labels": labels, "name": name},
           "spec": {"replicas": flags.replicas, "selector": {"matchLabels": labels}, "strategy": {},
                    "template": {"metadata": {"labels": labels}, "spec": {"containers": containers}}}, "status": {}}
    return _create(store, doc, flags, now, files)


def priority_class(store: Store, args: Sequence[str], now: float = 0.0, *, files=None) -> OcResult:
    positional, flags = parse_flags(args, PRIORITY_CLASS_FLAGS)
    name = _name(positional)
    doc = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name}, "value": flags.value,
           "globalDefault": flags.global_default, "description": flags.description,
           "preemptionPolicy": flags.preemption_policy}
    return _create(store, doc, flags, now, files)


for _f, _flags in ((namespace, NAMESPACE_FLAGS), (deployment, DEPLOYMENT_FLAGS), (priority_class, PRIORITY_CLASS_FLAGS)):
    _f.uses_files = True
    _f.flags = _flags


# --- batch/v1: kubectl create job / cronjob (create_job.go, create_cronjob.go) ---------------------------------

JOB_FLAGS = (*COMMON, Flag("image", "string", "", ""), Flag("from", "string", "", ""))
CRON_JOB_FLAGS = (*COMMON, Flag("image", "string", "", ""), Flag("schedule", "string", "", ""),
                  Flag("restart", "string", "", "OnFailure"))


def _name_and_command(args: Sequence[str], positional: Sequence[str]) -> tuple[str, list[str]]:
    """The NAME before `--` and the command after it (cobra's ArgsLenAtDash)."""
    before = len(positional) - (len(args) - args.index("--") - 1) if "--" in args else len(positional)
    return _name(positional[:before]), list(positional[before:])


def job(store: Store, args: Sequence[str], now: float = 0.0, *, files=None) -> OcResult:
    """create job NAME --image=IMAGE [-- COMMAND...] | --from=cronjob/NAME."""
    positional, flags = parse_flags(args, JOB_FLAGS)
    name, command = _name_and_command(args, positional)
    source_ref = flags["from"]
    if not flags.image and not source_ref:
        raise OcError("either --image or --from must be specified")
    if flags.image and source_ref:
        raise OcError("either --image or --from must be specified")
    if command and source_ref:
        raise OcError("cannot specify --from and command")
    if source_ref:
        kind, _, source = source_ref.partition("/")
        if kind not in ("cronjob", "cronjobs", "cj", "cronjob.batch", "cronjobs.batch") or not source:
            raise OcError(f"from must be an existing cronjob: unknown object type {source_ref}")
        ns = flags.namespace or "default"
        cj = store.get("CronJob", ns, source)
        if cj is None:
            raise OcError(f'from must be an existing cronjob: cronjobs.batch "{source}" not found')
        template = (cj.get("spec") or {}).get("jobTemplate") or {}
        tmeta = template.get("metadata") or {}
        meta: dict[str, Any] = {"name": name, "annotations": {"cronjob.kubernetes.io/instantiate": "manual",
                                                              **(tmeta.get("annotations") or {})}}
        if tmeta.get("labels"):
            meta["labels"] = dict(tmeta["labels"])
        ref = {"apiVersion": "batch/v1", "kind": "CronJob", "name": source, "controller": True}
        if (cj.get("metadata") or {}).get("uid"):
            ref["uid"] = cj["metadata"]["uid"]
        meta["ownerReferences"] = [ref]
        doc = {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta, "spec": dict(template.get("spec") or {}), "status": {}}
    else:
        container: dict[str, Any] = {"name": name, "image": flags.image, "resources": {}}
        if command:
            container["command"] = command
        doc = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name},
               "spec": {"template": {"metadata": {}, "spec": {"containers": [container], "restartPolicy": "Never"}}},
               "status": {}}
    return _create(store, doc, flags, now, files)


def cron_job(store: Store, args: Sequence[str], now: float = 0.0, *, files=None) -> OcResult:
    """create cronjob NAME --image=IMAGE --schedule='0/5 * * * ?' [--restart=OnFailure] [-- COMMAND...]."""
    positional, flags = parse_flags(args, CRON_JOB_FLAGS)
    name, command = _name_and_command(args, positional)
    missing = [f'"{f}"' for f, v in (("image", flags.image), ("schedule", flags.schedule)) if not v]
    if missing:
        raise OcError(f"required flag(s) {', '.join(missing)} not set")
    container: dict[str, Any] = {"name": name, "image": flags.image, "resources": {}}
    if command:
        container["command"] = command
    doc = {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": name},
           "spec": {"schedule": flags.schedule, "jobTemplate": {"metadata": {"name": name}, "spec": {
               "template": {"metadata": {}, "spec": {"containers": [container], "restartPolicy": flags.restart}}}}},
           "status": {}}
    return _create(store, doc, flags, now, files)


for _f, _flags in ((job, JOB_FLAGS), (cron_job, CRON_JOB_FLAGS)):
    _f.uses_files = True
    _f.flags = _flags
