"""`oc rollout status|history|restart|pause|resume|undo` for Deployments (kubectl
pkg/cmd/rollout and pkg/polymorphichelpers: DeploymentStatusViewer, DeploymentHistoryViewer,
defaultObjectRestarter/Pauser/Resumer, DeploymentRollbacker), with their messages.

The commands read and change only the Deployment; the workload controllers do the rest
(engine.controllers.deployment: a changed template makes a new ReplicaSet, a paused
Deployment is not rolled out, an old ReplicaSet taken back gets the next revision).
The revisions are the ReplicaSets' `deployment.kubernetes.io/revision` annotations.

`rollout status` prints the status once; with --watch (the default) and a rollout not done,
the result carries `watch` so the caller follows it as the clock runs
(scheduling.store.oc_cli), printing each new status line until it is done or --timeout."""

from __future__ import annotations

import copy
from typing import Any, Mapping, Sequence

from scheduling.engine import actions as A
from scheduling.engine.store import Store

from .core import (DRY_RUN, OUTPUT, Flag, OcError, OcResult, Resource, dry_run_strategy, dry_run_suffix, meta,
                   not_found, parse_flags, resource_or_error)
from .output import go_tabwriter, timestamp

REVISION = "deployment.kubernetes.io/revision"
CHANGE_CAUSE = "kubernetes.io/change-cause"
POD_TEMPLATE_HASH = "pod-template-hash"
RESTARTED_AT = "kubectl.kubernetes.io/restartedAt"
STATUS_FLAGS = (Flag("watch", "bool", "w", True), Flag("revision", "int", "", 0), Flag("timeout", "duration", "", 0.0),
                Flag("filename", "strings", "f", ()))
HISTORY_FLAGS = (Flag("revision", "int", "", 0), OUTPUT)
WRITE_FLAGS = (DRY_RUN, OUTPUT, Flag("selector", "string", "l", ""))
UNDO_FLAGS = (*WRITE_FLAGS, Flag("to-revision", "int", "", 0))
WATCH_STEP = 5.0  # simulated seconds between two looks of a followed `rollout status`


def _target(store: Store, positional: Sequence[str], flags, verb: str) -> tuple[Resource, dict]:
    if not positional:
        raise OcError("required resource not specified", usage=True)
    word = positional[0]
    if "/" in word:
        kind_word, _, name = word.partition("/")
    elif len(positional) > 1:
        kind_word, name = word, positional[1]
    else:
        raise OcError("required resource not specified", usage=True)
    r = resource_or_error(kind_word)
    if r.kind != "Deployment":
        if verb in ("status", "history", "undo", "restart") and r.kind in ("DaemonSet", "StatefulSet"):
            raise OcError(f"the simulator does not support oc rollout {verb} for {r.plural}")
        raise OcError({"pause": "pausing is not supported", "resume": "resuming is not supported",
                       "restart": "restarting is not supported"}.get(verb, f'no {verb} has been implemented for "{r.kind}"'))
    namespace = flags.namespace or "default"
    doc = store.get(r.kind, namespace, name)
    if doc is None:
        raise not_found(r, name)
    return r, doc


def _owned_replica_sets(store: Store, deploy: Mapping[str, Any]) -> list[dict]:
    uid = meta(deploy).get("uid")
    name, ns = meta(deploy).get("name"), meta(deploy).get("namespace") or "default"
    out = []
    for rs in store.list("ReplicaSet"):
        if (meta(rs).get("namespace") or "default") != ns:
            continue
        for ref in meta(rs).get("ownerReferences") or ():
            if ref.get("kind") == "Deployment" and ref.get("controller") and (ref.get("uid") == uid if uid else ref.get("name") == name):
                out.append(rs)
                break
    return out


def _revision(doc: Mapping[str, Any]) -> int | None:
    try:
        return int((meta(doc).get("annotations") or {}).get(REVISION))
    except (TypeError, ValueError):
        return None


def _without_hash(template: Mapping[str, Any] | None) -> dict:
    t = copy.deepcopy(dict(template or {}))
    labels = dict((t.get("metadata") or {}).get("labels") or {})
    labels.pop(POD_TEMPLATE_HASH, None)
    if t.get("metadata") is not None or labels:
        t.setdefault("metadata", {})["labels"] = labels
    return t


def deployment_status(deploy: Mapping[str, Any]) -> tuple[str, bool]:
    """DeploymentStatusViewer.Status: (message, done); OcError for a progress deadline passed."""
    name = meta(deploy).get("name")
    spec, status = deploy.get("spec") or {}, deploy.get("status") or {}
    generation = meta(deploy).get("generation")
    observed = status.get("observedGeneration")
    if generation is not None and observed is not None and int(generation) > int(observed):
        return "Waiting for deployment spec update to be observed...\n", False
    for cond in status.get("conditions") or ():
        if cond.get("type") == "Progressing" and cond.get("reason") == "ProgressDeadlineExceeded":
            raise OcError(f'deployment "{name}" exceeded its progress deadline')
    replicas = int(spec.get("replicas", 1) or 0)
    updated = int(status.get("updatedReplicas") or 0)
    total = int(status.get("replicas") or 0)
    available = int(status.get("availableReplicas") or 0)
    if updated < replicas:
        return f'Waiting for deployment "{name}" rollout to finish: {updated} out of {replicas} new replicas have been updated...\n', False
    if total > updated:
        return f'Waiting for deployment "{name}" rollout to finish: {total - updated} old replicas are pending termination...\n', False
    if available < updated:
        return f'Waiting for deployment "{name}" rollout to finish: {available} of {updated} updated replicas are available...\n', False
    return f'deployment "{name}" successfully rolled out\n', True


def status(store: Store, args: Sequence[str], now: float = 0.0) -> OcResult:
    positional, flags = parse_flags(args, STATUS_FLAGS)
    if flags.revision < 0:
        raise OcError(f"revision must be a positive integer: {flags.revision}")
    _, deploy = _target(store, positional, flags, "status")
    if flags.revision > 0:
        current = max((_revision(rs) or 0 for rs in _owned_replica_sets(store, deploy)), default=0)
        if current != flags.revision:
            raise OcError(f"desired revision ({flags.revision}) is different from the running revision ({current})")
    message, done = deployment_status(deploy)
    result = OcResult(stdout=message)
    if not done and flags.watch:
        result.pending = {"watch": "rollout-status", "namespace": meta(deploy).get("namespace") or "default",
                          "name": meta(deploy).get("name"), "timeout": flags.timeout, "started": now, "last": message, "next_due": now + WATCH_STEP}
    return result


def resume_status(store: Store, pending: Mapping[str, Any], now: float) -> OcResult:
    """One more look at a followed `rollout status`: the status line when it changed; done
    when rolled out; kubectl's timeout error once --timeout has passed."""
    deploy = store.get("Deployment", pending["namespace"], pending["name"])
    if deploy is None:
        return OcResult(stderr="error: object has been deleted\n", exit_code=1)
    try:
        message, done = deployment_status(deploy)
    except OcError as exc:
        return OcResult(stderr=f"error: {exc.message}\n", exit_code=1)
    result = OcResult(stdout="" if message == pending.get("last") else message)
    if done:
        return result
    timeout = pending.get("timeout") or 0
    if timeout and now - pending.get("started", now) >= timeout:
        result.stderr = "error: timed out waiting for the condition\n"
        result.exit_code = 1
        return result
    result.pending = {**pending, "last": message, "next_due": now + WATCH_STEP}
    return result


def history(store: Store, args: Sequence[str], now: float = 0.0) -> OcResult:
    positional, flags = parse_flags(args, HISTORY_FLAGS)
    r, deploy = _target(store, positional, flags, "history")
    info: dict[int, dict] = {}
    for rs in _owned_replica_sets(store, deploy):
        v = _revision(rs)
        if v is None:
            continue
        template = copy.deepcopy(((rs.get("spec") or {}).get("template")) or {})
        cause = (meta(rs).get("annotations") or {}).get(CHANGE_CAUSE)
        if cause:
            template.setdefault("metadata", {}).setdefault("annotations", {})[CHANGE_CAUSE] = cause
        info[v] = template
    name = meta(deploy).get("name")
    if not info:
        text = "No rollout history found."
    elif flags.revision > 0:
        if flags.revision not in info:
            raise OcError("unable to find the specified revision")
        text = print_template(info[flags.revision])
    else:
        rows = "REVISION\tCHANGE-CAUSE\n" + "".join(
            f"{v}\t{((info[v].get('metadata') or {}).get('annotations') or {}).get(CHANGE_CAUSE) or '<none>'}\n" for v in sorted(info))
        text = go_tabwriter(rows, 0, 2)
    with_revision = f"with revision #{flags.revision}" if flags.revision > 0 else ""
    return OcResult(stdout=f"{r.kind_string}/{name} {with_revision}\n{text}\n")


def print_template(template: Mapping[str, Any]) -> str:
    """A compact form of describe's DescribePodTemplate (labels, annotations, containers
    with their images and resources)."""
    m = template.get("metadata") or {}
    spec = template.get("spec") or {}
    labels = ",".join(f"{k}={v}" for k, v in sorted((m.get("labels") or {}).items())) or "<none>"
    lines = ["Pod Template:", f"  Labels:\t{labels}"]
    annotations = m.get("annotations") or {}
    if annotations:
        first = True
        for k, v in sorted(annotations.items()):
            lines.append(f"  {'Annotations:' if first else ''}\t{k}: {v}")
            first = False
    lines.append("  Containers:")
    for c in spec.get("containers") or ():
        lines.append(f"   {c.get('name')}:")
        lines.append(f"    Image:\t{c.get('image') or ''}")
        ports = ",".join(f"{p.get('containerPort')}/{p.get('protocol') or 'TCP'}" for p in c.get("ports") or ())
        lines.append(f"    Port:\t{ports or '<none>'}")
        for section, values in (("Limits", (c.get("resources") or {}).get("limits")), ("Requests", (c.get("resources") or {}).get("requests"))):
            if values:
                lines.append(f"    {section}:")
                for k, v in sorted(values.items()):
                    lines.append(f"      {k}:\t{v}")
        lines.append("    Environment:\t<none>")
        lines.append("    Mounts:\t<none>")
    lines.append("  Volumes:\t<none>")
    return go_tabwriter("\n".join(lines) + "\n", 0, 1)


def _patched(deploy: Mapping[str, Any]) -> dict:
    doc = copy.deepcopy(dict(deploy))
    doc.pop("status", None)
    return doc


def _write(r: Resource, deploy: Mapping[str, Any], doc: dict, operation: str, dry_run: str) -> OcResult:
    actions = [A.ReplaceObject(doc, keep_status=True)]
    result = OcResult(stdout=f"{r.kind_string}/{meta(deploy).get('name')} {operation}{dry_run_suffix(dry_run)}\n")
    if dry_run == "none":
        result.actions = actions
    elif dry_run == "server":
        result.would = actions
    return result


def _resource_string(r: Resource) -> str:
    return r.resource_string


def restart(store: Store, args: Sequence[str], now: float = 0.0) -> OcResult:
    positional, flags = parse_flags(args, WRITE_FLAGS)
    dry_run = dry_run_strategy(flags.dry_run)
    r, deploy = _target(store, positional, flags, "restart")
    if (deploy.get("spec") or {}).get("paused"):
        raise OcError(f'error: {_resource_string(r)} "{meta(deploy).get("name")}" can\'t restart paused deployment '
                      "(run rollout resume first)")
    doc = _patched(deploy)
    template = doc.setdefault("spec", {}).setdefault("template", {})
    annotations = template.setdefault("metadata", {}).setdefault("annotations", {})
    stamp = timestamp(now)
    if annotations.get(RESTARTED_AT) == stamp:
        raise OcError(f"failed to create patch for {meta(deploy).get('name')}: if restart has already been triggered within the "
                      "past second, please wait before attempting to trigger another")
    annotations[RESTARTED_AT] = stamp
    return _write(r, deploy, doc, "restarted", dry_run)


def _pause_or_resume(store: Store, args: Sequence[str], pause: bool) -> OcResult:
    positional, flags = parse_flags(args, WRITE_FLAGS)
    dry_run = dry_run_strategy(flags.dry_run)
    r, deploy = _target(store, positional, flags, "pause" if pause else "resume")
    paused = bool((deploy.get("spec") or {}).get("paused"))
    if paused == pause:
        raise OcError(f'error: {_resource_string(r)} "{meta(deploy).get("name")}" '
                      + ("is already paused" if pause else "is not paused"))
    doc = _patched(deploy)
    if pause:
        doc.setdefault("spec", {})["paused"] = True
    else:
        doc.setdefault("spec", {}).pop("paused", None)
    return _write(r, deploy, doc, "paused" if pause else "resumed", dry_run)


def pause(store: Store, args: Sequence[str], now: float = 0.0) -> OcResult:
    return _pause_or_resume(store, args, True)


def resume(store: Store, args: Sequence[str], now: float = 0.0) -> OcResult:
    return _pause_or_resume(store, args, False)


def undo(store: Store, args: Sequence[str], now: float = 0.0) -> OcResult:
    positional, flags = parse_flags(args, UNDO_FLAGS)
    dry_run = dry_run_strategy(flags.dry_run)
    r, deploy = _target(store, positional, flags, "undo")
    to = flags.to_revision
    if to < 0:
        raise OcError(f"unable to find specified revision {to} in history")
    chosen = None
    latest, previous = (-1, None), (-1, None)
    for rs in _owned_replica_sets(store, deploy):
        v = _revision(rs)
        if v is None:
            continue
        if to == 0:
            if latest[0] < v:
                previous, latest = latest, (v, rs)
            elif previous[0] < v:
                previous = (v, rs)
        elif to == v:
            chosen = rs
    name = meta(deploy).get("name")
    if to > 0 and chosen is None:
        raise OcError(f"unable to find specified revision {to} in history")
    if to == 0:
        if previous[1] is None:
            raise OcError(f'no rollout history found for deployment "{name}"')
        chosen, to = previous[1], previous[0]
    template = ((chosen.get("spec") or {}).get("template")) or {}
    if dry_run == "client":
        return OcResult(stdout=f"{r.kind_string}/{name} {print_template(template)} (dry run)\n")
    if (deploy.get("spec") or {}).get("paused"):
        raise OcError("you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again")
    if _without_hash(template) == _without_hash((deploy.get("spec") or {}).get("template")):
        return OcResult(stdout=f"{r.kind_string}/{name} skipped rollback (current template already matches revision {to})\n")
    doc = _patched(deploy)
    restored = copy.deepcopy(dict(template))
    labels = dict((restored.get("metadata") or {}).get("labels") or {})
    labels.pop(POD_TEMPLATE_HASH, None)
    restored.setdefault("metadata", {})["labels"] = labels
    doc.setdefault("spec", {})["template"] = restored
    return _write(r, deploy, doc, "rolled back", dry_run)


for _f, _help, _flags in ((status, "Show the status of the rollout.", STATUS_FLAGS),
                          (history, "View previous rollout revisions and configurations.", HISTORY_FLAGS),
                          (restart, "Restart a resource.", WRITE_FLAGS), (pause, "Mark the provided resource as paused.", WRITE_FLAGS),
                          (resume, "Resume a paused resource.", WRITE_FLAGS), (undo, "Undo a previous rollout.", UNDO_FLAGS)):
    _f.short = _help
    _f.flags = _flags  # what the console completes
