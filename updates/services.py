"""Writes of the update pages, through scheduling.store.services (validation, compare-and-swap,
events, reconcile) and with `oc`'s own checks and messages (scheduling.engine.openshift.oc_upgrade), so
the page and `oc adm upgrade` accept and refuse the same requests with the same words.

An update is previewed before it is requested (`preview_update`): `oc adm upgrade --to`
applied on a copy of the cluster's loop at its clock, and the same controllers (CVO, MCO,
drains, scheduler...) run on until the update is done or the preview's horizon: which
pools roll, which nodes drain and reboot, which PDB or workload blocks a drain, as the loop
does them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from scheduling.store import reconcile, services
from scheduling.engine.preview import PreviewResult, run_preview
from scheduling.engine import actions as A
from scheduling.engine.oc import OcError
from scheduling.engine.store import Store
from scheduling.models import Cluster
from scheduling.store.state import cluster_documents
from scheduling.engine.openshift import alerts as AL
from scheduling.engine.openshift import facts as F
from updates import machine_previews as MP
from scheduling.engine.openshift import oc_upgrade, progress
from scheduling.engine.openshift import upgradeable as U
from scheduling.engine.openshift.mco import pool_nodes, scaled_int_or_percent
from scheduling.engine.openshift.cvo import current_version
from scheduling.engine.openshift.mco import NODE_CONTROLLER
from scheduling.engine.openshift.cvo import INJECT_DEGRADED as CVO_INJECT_DEGRADED, SLOW as CVO_SLOW
from scheduling.engine.openshift.mco import FAIL_UPDATE as MCO_FAIL_UPDATE


class UpdateError(Exception):
    """What `oc` would print on stderr; str() is the text for the page."""


def _cluster_version(cluster: Cluster) -> tuple[dict, Store]:
    docs = cluster_documents(cluster, ("ClusterVersion",))
    if not docs:
        raise UpdateError(oc_upgrade.NO_CV)
    return docs[0], Store(docs)


def _apply(cluster: Cluster, cv: dict, result) -> str:
    if result.exit_code != 0:
        raise UpdateError(result.stderr.strip())
    version = int((cv.get("metadata") or {}).get("resourceVersion") or 0) or None
    for action in result.actions:
        if isinstance(action, A.ReplaceObject):
            doc = dict(action.doc)
            doc["status"] = cv.get("status") or {}
            services.replace_object(cluster, doc, expected_version=version)
    return (result.stdout + result.stderr).strip()


CONFLICT_RETRIES = 5  # client-go's retry.DefaultRetry steps


def _run(cluster: Cluster, function, args: list[str]) -> str:
    """`oc adm upgrade …` on the stored ClusterVersion. The CVO writes its status all the time
    (in distributed mode from the worker, while the user's request runs): a conflict is
    retried on a fresh read, as oc's writes retry through client-go's RetryOnConflict; one that
    keeps coming is the API server's message."""
    for _ in range(CONFLICT_RETRIES):
        cv, store = _cluster_version(cluster)
        try:
            result = function(store, args, cluster.now)
        except OcError as exc:
            raise UpdateError(f"error: {exc.message}".strip()) from exc
        try:
            return _apply(cluster, cv, result)
        except services.Conflict as exc:
            conflict = exc
            cluster.refresh_from_db()
    raise UpdateError(f"Error from server (Conflict): {conflict}")


def request_update(cluster: Cluster, version: str, *, allow_not_recommended: bool = False,
                   allow_with_warnings: bool = False) -> str:
    """`oc adm upgrade --to VERSION [--allow-not-recommended] [--allow-upgrade-with-warnings]`."""
    args = ["--to", version]
    if allow_not_recommended:
        args.append("--allow-not-recommended")
    if allow_with_warnings:
        args.append("--allow-upgrade-with-warnings")
    return _run(cluster, oc_upgrade.upgrade, args)


def upgrade_command(version: str, *, allow_not_recommended: bool = False, allow_with_warnings: bool = False) -> list[str]:
    argv = ["oc", "adm", "upgrade", "--to", version]
    if allow_not_recommended:
        argv.append("--allow-not-recommended")
    if allow_with_warnings:
        argv.append("--allow-upgrade-with-warnings")
    return argv


UPDATE_CHUNK = 600.0  # the loop runs in chunks of this many seconds until the update is done...
UPDATE_HORIZON = 4 * 3600.0  # ...or this long after the request


@dataclass
class UpdatePreview:
    version: str
    step: MP.Step  # the request and what the loop did after it
    current: str  # the version the ClusterVersion reports at the end
    progressing: dict  # its Progressing condition at the end
    failing: dict
    pools: list[dict] = field(default_factory=list)  # progress.pools at the end
    stuck: list[dict] = field(default_factory=list)  # progress.stuck_drains at the end: pods and the PDB refusing them
    drained: list[str] = field(default_factory=list)  # nodes the MCO drained, in order
    rebooted: list[str] = field(default_factory=list)
    done: bool = False  # the update finished (every pool updated) within the preview

    @property
    def argv_text(self) -> str:
        return self.step.title


def _update_done(store, version: str) -> bool:
    cv = store.get("ClusterVersion", "", "version") or {}
    progressing = next((c for c in (cv.get("status") or {}).get("conditions") or () if c.get("type") == "Progressing"), {})
    if current_version(cv) != version or progressing.get("status") != "False":
        return False
    for pool in store.list("MachineConfigPool"):
        conditions = {c.get("type"): c.get("status") for c in (pool.get("status") or {}).get("conditions") or ()}
        if conditions.get("Updated") != "True" or conditions.get("Updating") == "True":
            return False
    return True


def preview_update(cluster: Cluster, version: str, *, allow_not_recommended: bool = False,
                   allow_with_warnings: bool = False) -> UpdatePreview:
    """`oc adm upgrade --to VERSION` applied on a copy of the cluster's loop at its clock (the
    command's own checks first: UpdateError with oc's words when it refuses), then the loop
    run on in chunks until the update is done or UPDATE_HORIZON. Nothing is written."""
    argv = upgrade_command(version, allow_not_recommended=allow_not_recommended, allow_with_warnings=allow_with_warnings)
    sim = reconcile.loop_at_clock(cluster)
    if sim.store.get("ClusterVersion", "", "version") is None:
        raise UpdateError(oc_upgrade.NO_CV)
    before = MP.Objects.of(sim)
    try:
        actions = MP.oc_actions(cluster, sim.store, argv)
    except MP.PreviewRefused as exc:
        raise UpdateError(str(exc)) from exc
    first = run_preview(sim, actions, UPDATE_CHUNK)
    events, result = list(first.events), first
    while not _update_done(result.sim.store, version) and result.until < first.at + UPDATE_HORIZON - 1e-6:
        result = run_preview(result.sim, [], min(UPDATE_CHUNK, first.at + UPDATE_HORIZON - result.until))
        events += result.events
    whole = PreviewResult(first.at, result.until, events, result.pods, result.sim, first.changed)
    step = MP.summarise(" ".join(argv), before, whole, explain_pending=False)
    store = result.sim.store
    done = _update_done(store, version)
    step.open = not done
    cv = store.get("ClusterVersion", "", "version") or {}
    conditions = {c.get("type"): c for c in (cv.get("status") or {}).get("conditions") or ()}
    drains = (store.controller_state.get(NODE_CONTROLLER) or {}).get("drains") or {}
    return UpdatePreview(
        version, step, current_version(cv), conditions.get("Progressing") or {}, conditions.get("Failing") or {},
        progress.pools(store), progress.stuck_drains(store, drains),
        list(dict.fromkeys(e["object"].rpartition("/")[2] for e in events if e["reason"] == "Drain" and e["object"].startswith("Node/"))),
        list(dict.fromkeys(e["object"].rpartition("/")[2] for e in events if e["reason"] == "Reboot" and e["object"].startswith("Node/"))),
        done)


def clear_update(cluster: Cluster) -> str:
    return _run(cluster, oc_upgrade.upgrade, ["--clear"])


def set_channel(cluster: Cluster, channel: str) -> str:
    """`oc adm upgrade channel CHANNEL --allow-explicit-channel` (the picker offers every
    channel of the data, also those the running release is not listed in)."""
    return _run(cluster, oc_upgrade.channel, [channel, "--allow-explicit-channel"])


def set_facts(cluster: Cluster, data: Mapping[str, Any]) -> dict:
    """The Cluster Settings form's facts (scheduling.engine.openshift.facts.DEFAULT_FACTS keys)."""
    facts = F.facts_of(cluster.facts)
    for key in ("platform", "networkType", "initialVersion", "managedBy", "installer", "credentialsMode", "cpuVendor",
                "cpuFamily"):
        if key in data:
            facts[key] = str(data.get(key) or "").strip()
    if facts["platform"] not in F.PLATFORMS:
        raise UpdateError(f"unknown platform {facts['platform']!r}")
    if facts["networkType"] not in F.NETWORK_TYPES:
        raise UpdateError(f"unknown network type {facts['networkType']!r}")
    for key in ("ipsec", "ceph", "sriovOperator", "imageRegistryStorageUsed"):
        facts[key] = bool(data.get(key))
    if "capabilities" in data:
        caps = data.get("capabilities") or []
        facts["capabilities"] = [c for c in F.CAPABILITIES if c in caps]
    services.set_cluster_facts(cluster, facts)
    return facts


def alert_key(alert: Mapping[str, Any]) -> str:
    """Which fired alert a form means: its labels, in order."""
    return ",".join(f"{k}={v}" for k, v in sorted((alert.get("labels") or {}).items()))


def fire_alert(cluster: Cluster, data: Mapping[str, Any]) -> dict:
    """Fire an alert on the simulated cluster (kept in its facts, read by `oc adm upgrade
    recommend` and the Cluster Settings page) until it is stopped."""
    try:
        labels = AL.parse_labels(str(data.get("labels") or ""))
        alert = AL.user_alert(str(data.get("alertname") or ""), labels, cluster.now, severity=str(data.get("severity") or ""),
                              summary=str(data.get("summary") or ""), description=str(data.get("description") or ""),
                              runbook_url=str(data.get("runbook_url") or ""), precheck=bool(data.get("precheck")))
    except AL.AlertError as exc:
        raise UpdateError(str(exc)) from exc
    facts = F.facts_of(cluster.facts)
    key = alert_key(alert)
    facts["alerts"] = [a for a in facts.get("alerts") or [] if alert_key(a) != key] + [alert]
    services.set_cluster_facts(cluster, facts)
    return alert


def stop_alert(cluster: Cluster, key: str) -> bool:
    """Stop a fired alert (False: no such alert)."""
    facts = F.facts_of(cluster.facts)
    kept = [a for a in facts.get("alerts") or [] if alert_key(a) != key]
    if len(kept) == len(facts.get("alerts") or []):
        return False
    facts["alerts"] = kept
    services.set_cluster_facts(cluster, facts)
    return True


INJECTIONS = {
    # (kind, action) -> (annotation, value or None to remove)
    ("ClusterOperator", "degrade"): (CVO_INJECT_DEGRADED, "InjectedFailure: {message}"),
    ("ClusterOperator", "recover"): (CVO_INJECT_DEGRADED, None),
    ("ClusterOperator", "slow"): (CVO_SLOW, "3"),
    ("ClusterOperator", "normal"): (CVO_SLOW, None),
    ("Node", "fail"): (MCO_FAIL_UPDATE, "{message}"),
    ("Node", "unfail"): (MCO_FAIL_UPDATE, None),
}


def inject(cluster: Cluster, kind: str, name: str, action: str, message: str = "") -> str:
    """Failure injection from the progress page: the annotations the simulated operators
    and machine-config daemons obey (scheduling.engine.openshift.cvo / mco)."""
    if (kind, action) not in INJECTIONS:
        raise UpdateError(f"unknown action {action!r} for a {kind}")
    annotation, value = INJECTIONS[(kind, action)]
    docs = [d for d in cluster_documents(cluster, (kind,)) if (d.get("metadata") or {}).get("name") == name]
    if not docs:
        raise UpdateError(f'{kind.lower()}s "{name}" not found')
    doc = docs[0]
    meta = dict(doc.get("metadata") or {})
    annotations = dict(meta.get("annotations") or {})
    if value is None:
        annotations.pop(annotation, None)
    else:
        annotations[annotation] = value.format(message=message or "failure injected from the dashboard")
    meta["annotations"] = annotations
    services.replace_object(cluster, {**doc, "metadata": meta})
    return f"{kind.lower()}/{name} annotated"


def set_pool_paused(cluster: Cluster, pool: str, paused: bool) -> str:
    """`oc patch mcp/<pool> --type merge -p '{"spec":{"paused":true|false}}'`."""
    docs = [d for d in cluster_documents(cluster, ("MachineConfigPool",)) if (d.get("metadata") or {}).get("name") == pool]
    if not docs:
        raise UpdateError(f'machineconfigpools.machineconfiguration.openshift.io "{pool}" not found')
    doc = docs[0]
    services.replace_object(cluster, {**doc, "spec": {**(doc.get("spec") or {}), "paused": paused}})
    return f"machineconfigpool.machineconfiguration.openshift.io/{pool} patched"


def admin_gates(cluster: Cluster) -> list[dict]:
    """The admin gates of the admin-gates ConfigMap that apply to the cluster's current minor
    (as the CVO's check reads them), each with whether admin-acks acknowledges it."""
    docs = {((d.get("metadata") or {}).get("namespace"), (d.get("metadata") or {}).get("name")): d
            for d in cluster_documents(cluster, ("ConfigMap", "ClusterVersion"))}
    cv = docs.get(("", "version")) or docs.get((None, "version"))
    gates = docs.get((U.GATES_NAMESPACE, U.GATES_NAME))
    acks = (docs.get((U.ACKS_NAMESPACE, U.ACKS_NAME)) or {}).get("data") or {}
    history = ((cv or {}).get("status") or {}).get("history") or []
    current = next((h.get("version") for h in history if h.get("state") == "Completed"), "") or current_version(cv or {})
    out = []
    for key, message in sorted(((gates or {}).get("data") or {}).items()):
        if U.admin_ack_check(current, {"data": {key: message}}, {"data": {}}) is None:
            continue  # another minor's gate (or none)
        out.append({"key": key, "message": message, "acked": acks.get(key) == "true",
                    "command": f"oc -n {U.ACKS_NAMESPACE} patch cm {U.ACKS_NAME} --patch "
                               f"'{{\"data\":{{\"{key}\":\"true\"}}}}' --type=merge"})
    return out


def acknowledge_gate(cluster: Cluster, key: str) -> str:
    """`oc -n openshift-config patch cm admin-acks --type=merge -p '{"data":{"<key>":"true"}}'`
    for a gate of the admin-gates ConfigMap."""
    if key not in {g["key"] for g in admin_gates(cluster)}:
        raise UpdateError(f"{U.GATES_NAME} has no gate {key!r} for this version")
    docs = [d for d in cluster_documents(cluster, ("ConfigMap",))
            if ((d.get("metadata") or {}).get("namespace"), (d.get("metadata") or {}).get("name")) == (U.ACKS_NAMESPACE, U.ACKS_NAME)]
    if docs:
        doc = docs[0]
        services.replace_object(cluster, {**doc, "data": {**(doc.get("data") or {}), key: "true"}})
    else:
        services.create_object(cluster, {**U.acks_config_map(cluster.now), "data": {key: "true"}})
    return f"configmap/{U.ACKS_NAME} patched"


NODE_UPDATE_MINUTES = 5  # the update-duration docs: "5 or more minutes" per node (drain, OS, reboot)


def max_unavailable_value(text: str) -> int | str:
    """What a user types as maxUnavailable: a whole number is an int, anything else the string
    the CRD's int-or-string keeps (the node controller then reads it as upstream does)."""
    text = text.strip()
    return int(text) if text.isdigit() else text


def preview_max_unavailable(cluster: Cluster, pool: str, text: str) -> dict:
    """What a new maxUnavailable does to the pool's next rollout: the nodes updated at once
    (getMaxUnavailable: intstr.GetScaledValueFromIntOrPercent rounded down, 0 read as 1; an
    invalid value stops the node controller, with upstream's error), the rounds and their time
    at the docs' 5 minutes a node. Nothing is written."""
    store = Store(cluster_documents(cluster, ("MachineConfigPool", "Node")))
    doc = store.get("MachineConfigPool", "", pool)
    if doc is None:
        raise UpdateError(f'machineconfigpools.machineconfiguration.openshift.io "{pool}" not found')
    count = len(pool_nodes(store, doc))
    value = max_unavailable_value(text)
    try:
        at_once = scaled_int_or_percent(value, count, False)
    except ValueError as exc:
        return {"pool": pool, "value": value, "nodes": count, "error": str(exc)}
    at_once = 1 if at_once == 0 else at_once
    rounds = -(-count // at_once) if count and at_once > 0 else 0
    return {"pool": pool, "value": value, "nodes": count, "at_once": min(at_once, count), "rounds": rounds,
            "minutes": rounds * NODE_UPDATE_MINUTES,
            "command": f"oc patch mcp/{pool} --type merge -p '{{\"spec\":{{\"maxUnavailable\":{json_value(value)}}}}}'"}


def json_value(value: int | str) -> str:
    return str(value) if isinstance(value, int) else '"' + value.replace('"', '\\"') + '"'


def set_max_unavailable(cluster: Cluster, pool: str, text: str) -> str:
    """`oc patch mcp/<pool> --type merge -p '{"spec":{"maxUnavailable":...}}'`."""
    docs = [d for d in cluster_documents(cluster, ("MachineConfigPool",)) if (d.get("metadata") or {}).get("name") == pool]
    if not docs:
        raise UpdateError(f'machineconfigpools.machineconfiguration.openshift.io "{pool}" not found')
    doc = docs[0]
    services.replace_object(cluster, {**doc, "spec": {**(doc.get("spec") or {}), "maxUnavailable": max_unavailable_value(text)}})
    return f"machineconfigpool.machineconfiguration.openshift.io/{pool} patched"
