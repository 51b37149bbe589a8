"""`oc describe` for the Kubernetes kinds besides nodes and pods (kubectl pkg/describe:
describeNamespace, describeDeployment with DescribePodTemplate and
printReplicaSetsByLabels, describePriorityClass). Each describer is
`(store, doc, now) -> text`; engine.oc.describe.DESCRIBERS names them."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from scheduling.engine.api import selectors
from scheduling.engine.store import Store

from .describe import PrefixWriter as _W, describe_events as _events, map_lines as _map_lines, toleration_text
from .describe_volumes import describe_volumes
from .output import human_duration, rfc1123z, seconds

Doc = Mapping[str, Any]
NONE = "<none>"


def _meta(d: Doc) -> Mapping[str, Any]:
    return d.get("metadata") or {}


def describe_namespace(store: Store, ns: Doc, now: float) -> str:
    """describeNamespace, with the quota and limit-range lines (the simulator holds neither)."""
    w = _W()
    m = _meta(ns)
    w.write(0, f"Name:\t{m.get('name') or ''}\n")
    _map_lines(w, "Labels", m.get("labels"))
    _map_lines(w, "Annotations", m.get("annotations"))
    w.write(0, f"Status:\t{(ns.get('status') or {}).get('phase') or ''}\n")
    w.write(0, "\n")
    w.write(0, "No resource quota.\n")
    w.write(0, "\n")
    w.write(0, "No LimitRange resource.\n")
    return w.render()


def _ports(ports: Sequence[Mapping[str, Any]], field: str) -> str:
    out = []
    for p in ports:
        text = f"{p.get(field) or 0}/{p.get('protocol') or ''}"
        if p.get("name"):
            text += f" ({p['name']})"
        out.append(text)
    return ", ".join(out)


def _containers(w: _W, label: str, containers: Sequence[Mapping[str, Any]], space: str) -> None:
    """describeContainers for a template (no statuses)."""
    w.write(0, f"{space}{label}:{' <none>' if not containers else ''}\n")
    indent = " " if space else ""
    for c in containers:
        w.write(1, f"{indent}{c.get('name') or ''}:\n")
        w.write(2, f"Image:\t{c.get('image') or ''}\n")
        ports = _ports(c.get("ports") or (), "containerPort")
        w.write(2, f"Ports:\t{ports}\n" if "," in ports else f"Port:\t{ports or NONE}\n")
        host = _ports(c.get("ports") or (), "hostPort")
        w.write(2, f"Host Ports:\t{host}\n" if "," in host else f"Host Port:\t{host or NONE}\n")
        for key, title in (("command", "Command"), ("args", "Args")):
            if c.get(key):
                w.write(2, f"{title}:\n")
                for item in c[key]:
                    for line in str(item).split("\n"):
                        w.write(3, f"{line}\n")
        resources = c.get("resources") or {}
        for key, title in (("limits", "Limits"), ("requests", "Requests")):
            values = resources.get(key) or {}
            if values:
                w.write(2, f"{title}:\n")
                for name in sorted(values):
                    w.write(3, f"{name}:\t{values[name]}\n")
        env = c.get("env") or []
        w.write(2, "Environment:" + ("\t<none>" if not env else "") + "\n")
        for e in env:
            if "valueFrom" not in e:
                w.write(3, f"{e.get('name')}:\t{e.get('value') or ''}\n")
        mounts = c.get("volumeMounts") or []
        w.write(2, "Mounts:" + ("\t<none>" if not mounts else "") + "\n")
        for mount in sorted(mounts, key=lambda m: m.get("mountPath") or ""):
            mode = "ro" if mount.get("readOnly") else "rw"
            w.write(3, f"{mount.get('mountPath')} from {mount.get('name')} ({mode})\n")


def describe_pod_template(w: _W, template: Mapping[str, Any] | None) -> None:
    """DescribePodTemplate."""
    w.write(0, "Pod Template:\n")
    if template is None:
        w.write(1, "<unset>")
        return
    m = template.get("metadata") or {}
    spec = template.get("spec") or {}
    _map_lines(w, "  Labels", m.get("labels"))
    if m.get("annotations"):
        _map_lines(w, "  Annotations", m.get("annotations"))
    if spec.get("serviceAccountName"):
        w.write(1, f"Service Account:\t{spec['serviceAccountName']}\n")
    if spec.get("initContainers"):
        _containers(w, "Init Containers", spec["initContainers"], "  ")
    _containers(w, "Containers", spec.get("containers") or [], "  ")
    describe_volumes(w, spec.get("volumes") or [], "  ")
    tscs = sorted(spec.get("topologySpreadConstraints") or [], key=lambda t: t.get("topologyKey") or "")
    if tscs:
        w.write(0, "  Topology Spread Constraints:\t")
        for i, t in enumerate(tscs):
            if i:
                w.write(0, "  \t")
            w.write(0, f"{t.get('topologyKey')}:{t.get('whenUnsatisfiable')} when max skew {t.get('maxSkew')} is exceeded")
            selector = t.get("labelSelector")
            if selector:
                w.write(0, " for selector " + selectors.format_label_selector(
                    selector.get("matchLabels"), selectors.expressions_of(selector.get("matchExpressions"))))
            w.write(0, "\n")
    if spec.get("priorityClassName"):
        w.write(1, f"Priority Class Name:\t{spec['priorityClassName']}\n")
    _map_lines(w, "  Node-Selectors", spec.get("nodeSelector"))
    tolerations = sorted(spec.get("tolerations") or [], key=lambda t: t.get("key") or "")
    if not tolerations:
        w.write(0, "  Tolerations:\t<none>\n")
    for i, t in enumerate(tolerations):
        w.write(0, f"{'  Tolerations:' if i == 0 else ''}\t{toleration_text(t)}\n")


def _int_or_string(value: Any, default: str) -> str:
    return default if value is None else str(value)


def _replica_sets(rs_list: Sequence[Doc]) -> str:
    """printReplicaSetsByLabels."""
    return ", ".join(f"{_meta(rs).get('name')} ({int((rs.get('status') or {}).get('replicas') or 0)}/"
                     f"{int((rs.get('spec') or {}).get('replicas', 1) or 0)} replicas created)" for rs in rs_list) or NONE


def _owned(store: Store, deploy: Doc) -> tuple[list[Doc], list[Doc]]:
    """(old ReplicaSets, [the new one]): the Deployment's ReplicaSets, the new one the one whose
    template is the Deployment's (deploymentutil.FindNewReplicaSet, pod-template-hash aside)."""
    uid, name = _meta(deploy).get("uid"), _meta(deploy).get("name")
    ns = _meta(deploy).get("namespace") or "default"
    owned = [rs for rs in store.list("ReplicaSet") if (_meta(rs).get("namespace") or "default") == ns and any(
        r.get("kind") == "Deployment" and r.get("controller") and (r.get("uid") == uid if uid else r.get("name") == name)
        for r in _meta(rs).get("ownerReferences") or ())]

    def without_hash(template: Mapping[str, Any] | None) -> Any:
        t = dict(template or {})
        m = dict(t.get("metadata") or {})
        m["labels"] = {k: v for k, v in (m.get("labels") or {}).items() if k != "pod-template-hash"}
        t["metadata"] = m
        return t

    target = without_hash((deploy.get("spec") or {}).get("template"))
    new = [rs for rs in owned if without_hash((rs.get("spec") or {}).get("template")) == target][:1]
    old = sorted((rs for rs in owned if rs not in new), key=lambda rs: _meta(rs).get("name") or "")
    return old, new


def describe_deployment(store: Store, d: Doc, now: float) -> str:
    """describeDeployment."""
    w = _W()
    m, spec, status = _meta(d), d.get("spec") or {}, d.get("status") or {}
    selector = spec.get("selector") or {}
    w.write(0, f"Name:\t{m.get('name') or ''}\n")
    w.write(0, f"Namespace:\t{m.get('namespace') or ''}\n")
    w.write(0, f"CreationTimestamp:\t{rfc1123z(m.get('creationTimestamp'))}\n")
    _map_lines(w, "Labels", m.get("labels"))
    _map_lines(w, "Annotations", m.get("annotations"))
    selector_text = ",".join(f"{k}={v}" for k, v in sorted((selector.get("matchLabels") or {}).items()))
    if selector.get("matchExpressions"):
        selector_text = selectors.format_label_selector(selector.get("matchLabels"),
                                                        selectors.expressions_of(selector.get("matchExpressions")))
    w.write(0, f"Selector:\t{selector_text}\n")
    w.write(0, f"Replicas:\t{int(spec.get('replicas', 1) or 0)} desired | {int(status.get('updatedReplicas') or 0)} updated | "
               f"{int(status.get('replicas') or 0)} total | {int(status.get('availableReplicas') or 0)} available | "
               f"{int(status.get('unavailableReplicas') or 0)} unavailable\n")
    strategy = spec.get("strategy") or {}
    w.write(0, f"StrategyType:\t{strategy.get('type') or ''}\n")
    w.write(0, f"MinReadySeconds:\t{int(spec.get('minReadySeconds') or 0)}\n")
    rolling = strategy.get("rollingUpdate")
    if rolling is not None:
        w.write(0, f"RollingUpdateStrategy:\t{_int_or_string(rolling.get('maxUnavailable'), '0')} max unavailable, "
                   f"{_int_or_string(rolling.get('maxSurge'), '0')} max surge\n")
    describe_pod_template(w, spec.get("template"))
    conditions = status.get("conditions") or []
    if conditions:
        w.write(0, "Conditions:\n  Type\tStatus\tReason\n")
        w.write(1, "----\t------\t------\n")
        for c in conditions:
            w.write(1, f"{c.get('type')} \t{c.get('status')}\t{c.get('reason') or ''}\n")
    old, new = _owned(store, d)
    if old or new:
        w.write(0, f"OldReplicaSets:\t{_replica_sets(old)}\n")
        w.write(0, f"NewReplicaSet:\t{_replica_sets(new)}\n")
    _events(w, store, "Deployment", m.get("namespace") or "default", m.get("name") or "", now)
    return w.render()


def describe_priority_class(store: Store, pc: Doc, now: float) -> str:
    """describePriorityClass."""
    w = _W()
    m = _meta(pc)
    w.write(0, f"Name:\t{m.get('name') or ''}\n")
    w.write(0, f"Value:\t{int(pc.get('value') or 0)}\n")
    w.write(0, f"GlobalDefault:\t{'true' if pc.get('globalDefault') else 'false'}\n")
    w.write(0, f"PreemptionPolicy:\t{pc.get('preemptionPolicy') or ''}\n")
    w.write(0, f"Description:\t{pc.get('description') or ''}\n")
    annotations = ",".join(f"{k}={v}" for k, v in sorted((m.get("annotations") or {}).items())) or NONE
    w.write(0, f"Annotations:\t{annotations}\n")
    _events(w, store, "PriorityClass", "", m.get("name") or "", now)
    return w.render()


# --- batch/v1: describeJob, describeCronJob (kubectl pkg/describe) ------------------------------------------


def _label_selector(selector: Mapping[str, Any] | None) -> str:
    """LabelSelectorAsSelector(...).String() (empty for none)."""
    if not selector:
        return ""
    return selectors.format_label_selector(selector.get("matchLabels"), selectors.expressions_of(selector.get("matchExpressions")))


def _controlled_by(d: Doc) -> str:
    """printController: `<Kind>/<name>` of the controller reference."""
    ref = next((r for r in _meta(d).get("ownerReferences") or () if r.get("controller")), None)
    return "" if ref is None else f"{ref.get('kind')}/{ref.get('name')}"


def _go_bool(value: Any) -> str:
    return "true" if value else "false"


def _cap_indexes(indexes: str, soft_limit: int) -> str:
    """capIndexesListOrNone: the list up to the first comma past `soft_limit` characters, then `...`."""
    if not indexes:
        return NONE
    cut = indexes.find(",", soft_limit)
    return indexes if cut < 0 or len(indexes) <= soft_limit else indexes[:cut + 1] + "..."


def describe_job(store: Store, job: Doc, now: float) -> str:
    """describeJob."""
    w = _W()
    m, spec, status = _meta(job), job.get("spec") or {}, job.get("status") or {}
    w.write(0, f"Name:\t{m.get('name') or ''}\n")
    w.write(0, f"Namespace:\t{m.get('namespace') or ''}\n")
    w.write(0, f"Selector:\t{_label_selector(spec.get('selector'))}\n")
    _map_lines(w, "Labels", m.get("labels"))
    _map_lines(w, "Annotations", m.get("annotations"))
    if _controlled_by(job):
        w.write(0, f"Controlled By:\t{_controlled_by(job)}\n")
    if spec.get("parallelism") is not None:
        w.write(0, f"Parallelism:\t{int(spec['parallelism'])}\n")
    w.write(0, f"Completions:\t{'<unset>' if spec.get('completions') is None else int(spec['completions'])}\n")
    if spec.get("completionMode") is not None:
        w.write(0, f"Completion Mode:\t{spec['completionMode']}\n")
    if spec.get("suspend") is not None:
        w.write(0, f"Suspend:\t{_go_bool(spec['suspend'])}\n")
    if spec.get("backoffLimit") is not None:
        w.write(0, f"Backoff Limit:\t{int(spec['backoffLimit'])}\n")
    if spec.get("ttlSecondsAfterFinished") is not None:
        w.write(0, f"TTL Seconds After Finished:\t{int(spec['ttlSecondsAfterFinished'])}\n")
    start, end = status.get("startTime"), status.get("completionTime")
    if start is not None:
        w.write(0, f"Start Time:\t{rfc1123z(start)}\n")
    if end is not None:
        w.write(0, f"Completed At:\t{rfc1123z(end)}\n")
    if start is not None and end is not None:
        w.write(0, f"Duration:\t{human_duration((seconds(end) or 0) - (seconds(start) or 0))}\n")
    if spec.get("activeDeadlineSeconds") is not None:
        w.write(0, f"Active Deadline Seconds:\t{int(spec['activeDeadlineSeconds'])}s\n")
    counts = [int(status.get(k) or 0) for k in ("active", "succeeded", "failed")]
    if status.get("ready") is None:
        w.write(0, f"Pods Statuses:\t{counts[0]} Active / {counts[1]} Succeeded / {counts[2]} Failed\n")
    else:
        w.write(0, f"Pods Statuses:\t{counts[0]} Active ({int(status['ready'])} Ready) / {counts[1]} Succeeded / {counts[2]} Failed\n")
    if spec.get("completionMode") == "Indexed":
        w.write(0, f"Completed Indexes:\t{_cap_indexes(status.get('completedIndexes') or '', 50)}\n")
    describe_pod_template(w, spec.get("template"))
    _events(w, store, "Job", m.get("namespace") or "default", m.get("name") or "", now)
    return w.render()


def describe_cron_job(store: Store, cj: Doc, now: float) -> str:
    """describeCronJob, with describeJobTemplate and printActiveJobs."""
    w = _W()
    m, spec, status = _meta(cj), cj.get("spec") or {}, cj.get("status") or {}
    w.write(0, f"Name:\t{m.get('name') or ''}\n")
    w.write(0, f"Namespace:\t{m.get('namespace') or ''}\n")
    _map_lines(w, "Labels", m.get("labels"))
    _map_lines(w, "Annotations", m.get("annotations"))
    w.write(0, f"Schedule:\t{spec.get('schedule') or ''}\n")
    w.write(0, f"Concurrency Policy:\t{spec.get('concurrencyPolicy') or ''}\n")
    suspend = spec.get("suspend")
    w.write(0, f"Suspend:\t{'<unset>' if suspend is None else ('True' if suspend else 'False')}\n")
    w.write(0, f"Time Zone:\t{'<unset>' if spec.get('timeZone') is None else spec['timeZone']}\n")
    for key, title in (("successfulJobsHistoryLimit", "Successful Job History Limit"),
                       ("failedJobsHistoryLimit", "Failed Job History Limit")):
        w.write(0, f"{title}:\t{'<unset>' if spec.get(key) is None else int(spec[key])}\n")
    deadline = spec.get("startingDeadlineSeconds")
    w.write(0, f"Starting Deadline Seconds:\t{'<unset>' if deadline is None else f'{int(deadline)}s'}\n")
    job_spec = (spec.get("jobTemplate") or {}).get("spec") or {}
    w.write(0, f"Selector:\t{'<unset>' if job_spec.get('selector') is None else _label_selector(job_spec['selector'])}\n")
    for key, title in (("parallelism", "Parallelism"), ("completions", "Completions")):
        w.write(0, f"{title}:\t{'<unset>' if job_spec.get(key) is None else int(job_spec[key])}\n")
    if job_spec.get("activeDeadlineSeconds") is not None:
        w.write(0, f"Active Deadline Seconds:\t{int(job_spec['activeDeadlineSeconds'])}s\n")
    describe_pod_template(w, job_spec.get("template"))
    last = status.get("lastScheduleTime")
    w.write(0, f"Last Schedule Time:\t{'<unset>' if last is None else rfc1123z(last)}\n")
    active = status.get("active") or []
    w.write(0, "Active Jobs:\t" + (", ".join(r.get("name") or "" for r in active) if active else NONE) + "\n")
    _events(w, store, "CronJob", m.get("namespace") or "default", m.get("name") or "", now)
    return w.render()
