"""The Cluster Version Operator (and the cluster operators it drives), as a controller of
the one protocol (scheduling.engine.controller).

Steady state: ClusterVersion `version` keeps `status.desired` (the release it runs),
`history`, `availableUpdates` / `conditionalUpdates` (engine.openshift.graph against the cluster's
facts, engine.openshift.facts), and the conditions Available / Progressing / Failing / Upgradeable /
ReleaseAccepted / RetrievedUpdates; a ClusterOperator of the payload that is missing is
created (Available, at the release's version).

An update (as OpenShift 4's "How cluster updates work" describes the Cluster Version Operator's) is a sequence of visible steps, kept in the controller's own
state, never in the ClusterVersion: desiredUpdate seen -> pull spec resolved -> the
`version-<version>-<hash>` job retrieves the payload -> signature verified -> manifests
verified -> preconditions (Upgradeable=False blocks a minor update, a rollback is only to the
previous version of the same minor; `force` turns them into a PreconditionWarn) ->
`status.desired` and a Partial history entry -> manifests applied runlevel by runlevel
(components of a runlevel in parallel, a component's manifests in lexicographic order;
the next runlevel only when every ClusterOperator of this one is Available=True,
Degraded=False and reports the new version; the CVO replaces itself in runlevel 00;
machine-config, runlevel 80, last and done only when the master pool is updated) ->
Completed.

The operators are simulated here too: once its runlevel's manifests are applied, an
operator is Progressing for its own update time (realistic, jittered by ctx.rng) and then
reports the new version. Failure injection (annotations a user or a Timeline sets on the
ClusterOperator): `clusterui.io/inject-degraded: "<Reason>: <message>"` makes it Degraded
until removed; `clusterui.io/slow: "<factor>"` multiplies its update time.
"""

from __future__ import annotations

import hashlib
import uuid
from typing import Any, Mapping

from scheduling.engine import actions as A
from scheduling.engine.controller import Context
from scheduling.engine.store import annotations_of, name_of, time_value

from . import conditions as C
from . import facts as F
from . import graph as G
from . import promql
from . import upgradeable as U
from .payload import CVO_COMPONENT, MCO_OPERATOR, Payload, payload, version_of_image
from .versions import Version, VersionError, is_version, semver_error
from .versions import parse as parse_version

NAME = "cvo"
# pkg/cvo/cvo.go: the operator's event recorder is named after its namespace, and the sync
# worker records on a reference to the ClusterVersion *in* that namespace (sync_worker.go
# cvoObjectRef), so the events live in openshift-cluster-version, not default
SOURCE = "openshift-cluster-version"
CV_API = "config.openshift.io/v1"
NAMESPACE = "openshift-cluster-version"
INJECT_DEGRADED = "clusterui.io/inject-degraded"
SLOW = "clusterui.io/slow"
MCO_OS_IMAGE = "quay.io/openshift-release-dev/ocp-v4.0-art-dev"
# the characters of generated names (k8s.io/apimachinery/pkg/util/rand)
NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"

RETRIEVE_SECONDS = 25.0  # the version-... job pulls and extracts the payload
VERIFY_SECONDS = 5.0
MANIFEST_SECONDS = 1.5  # per manifest of one component (components of a runlevel run in parallel)
FAILING_AFTER = 40 * 60.0
RISK_INTERVAL = 600.0  # re-evaluation of conditional update risks  # "wait has exceeded 40 minutes for these operators"
# An operator's own update after its manifests are applied (simulated seconds, before jitter).
OPERATOR_SECONDS = {
    "etcd": 600, "kube-apiserver": 900, "kube-controller-manager": 420, "kube-scheduler": 300,
    "cloud-controller-manager": 180, "machine-api": 240, "control-plane-machine-set": 120, "baremetal": 120,
    "config-operator": 60, "authentication": 300, "openshift-apiserver": 300, "monitoring": 600,
    "ingress": 300, "console": 180, "image-registry": 240, "network": 900, "dns": 600, "machine-config": 120,
}
DEFAULT_OPERATOR_SECONDS = 150


def operator_doc(name: str, version: str, now: float) -> dict:
    conds: list[dict] = []
    for t, s, reason, msg in (("Available", "True", "AsExpected", ""), ("Progressing", "False", "AsExpected", ""),
                              ("Degraded", "False", "AsExpected", ""), ("Upgradeable", "True", "AsExpected", "")):
        conds = C.set_condition(conds, t, s, reason, msg, now)
    annotations = {"include.release.openshift.io/self-managed-high-availability": "true",
                   "include.release.openshift.io/single-node-developer": "true"}
    return {"apiVersion": CV_API, "kind": "ClusterOperator",
            "metadata": {"name": name, "creationTimestamp": time_value(now), "annotations": annotations},
            "spec": {}, "status": {"conditions": conds, "versions": [{"name": "operator", "version": version}], "relatedObjects": []}}


def operator_version(co: Mapping[str, Any]) -> str:
    for v in (co.get("status") or {}).get("versions") or ():
        if v.get("name") == "operator":
            return v.get("version") or ""
    return ""


def current_version(cv: Mapping[str, Any]) -> str:
    status = cv.get("status") or {}
    desired = (status.get("desired") or {}).get("version")
    if desired:
        return desired
    for h in status.get("history") or ():
        if h.get("state") == "Completed":
            return h.get("version") or ""
    return ""


def job_name(version: str, image: str) -> str:
    return f"version-{version}-{hashlib.sha256(image.encode()).hexdigest()[:5]}"


def os_image(version: str) -> str:
    return f"{MCO_OS_IMAGE}@sha256:{hashlib.sha256(('rhcos-' + version).encode()).hexdigest()}"


def _history_version(history: list) -> str:
    """upgradeable.go GetCurrentVersion: the first Completed entry's version, else the oldest entry's."""
    for h in history:
        if h.get("state") == "Completed":
            return h.get("version") or ""
    return (history[-1].get("version") or "") if history else ""


def _effective_minor(version: str) -> str:
    """upgradeable.go GetEffectiveMinor: the second dot-separated field, "" when there is none."""
    parts = version.split(".")
    return parts[1] if len(parts) >= 2 else ""


def _list_names(names: list[str]) -> str:
    return ", ".join(sorted(names))


def _pct(done: int, total: int) -> int:
    return int(done * 100 / total) if total else 0


def _create_missing_operators(running, operators: dict, current: str, now: float, result: A.Result) -> None:
    """The release's ClusterOperators that the cluster lacks, created (and added to
    `operators`)."""
    for op in running.cluster_operators:
        if op not in operators:
            doc = operator_doc(op, current, now)
            result.actions.append(A.CreateObject(doc))
            operators[op] = doc


def _kubelets(store) -> tuple:
    """The nodes' kubelet versions (what the kube-apiserver operator's skew check reads)."""
    return tuple((name_of(n), ((n.get("status") or {}).get("nodeInfo") or {}).get("kubeletVersion")) for n in store.list("Node"))


def _sync_admin_config_maps(store, version: str, now: float, result: A.Result) -> tuple[dict | None, dict | None]:
    """The CVO's own manifests of runlevel 00 for the release it applies: the admin-gates
    ConfigMap (replaced with the release's gates) and the admin-acks ConfigMap (created once:
    create-only). Returns them as the checks read them."""
    gates = store.get("ConfigMap", U.GATES_NAMESPACE, U.GATES_NAME)
    want = U.gates_of(version)
    if gates is None or (gates.get("data") or {}) != want:
        doc = U.gates_config_map(version, time_value(now))
        if gates is not None:
            doc["metadata"] = {**(gates.get("metadata") or {}), **{k: v for k, v in doc["metadata"].items() if k != "creationTimestamp"}}
        result.actions.append(A.CreateObject(doc) if gates is None else A.ReplaceObject(doc))
        gates = doc
    acks = store.get("ConfigMap", U.ACKS_NAMESPACE, U.ACKS_NAME)
    if acks is None:
        acks = U.acks_config_map(time_value(now))
        result.actions.append(A.CreateObject(acks))
    return gates, acks


def _sync_operators_upgradeable(store, operators: dict, current: str, now: float, result: A.Result) -> None:
    """The operators' own Upgradeable conditions the simulation keeps: kube-apiserver's
    kubelet version skew (at the version it reports) and machine-config's degraded pools."""
    wanted = {}
    kas = operators.get("kube-apiserver")
    if kas is not None:
        found = U.kube_apiserver_upgradeable(operator_version(kas) or current, store.list("Node"))
        if found is not None:
            wanted["kube-apiserver"] = found
    if operators.get(MCO_OPERATOR) is not None:
        wanted[MCO_OPERATOR] = U.machine_config_upgradeable(store.list("MachineConfigPool"))
    for name, (status, reason, message) in wanted.items():
        co = operators[name]
        conds = (co.get("status") or {}).get("conditions") or []
        new = C.set_condition(conds, "Upgradeable", status, reason, message, now)
        if new != conds:
            result.actions.append(A.PatchStatus("ClusterOperator", "", name, {"conditions": new}))
            operators[name] = {**co, "status": {**(co.get("status") or {}), "conditions": new}}


def _retrieved_updates(conds: list[dict], channel: str, at: str, now: float) -> list[dict]:
    """The RetrievedUpdates condition: no channel, a channel that does not hold the version,
    or as expected."""
    if channel and channel not in G.GRAPH["channels"]:
        return C.set_condition(conds, "RetrievedUpdates", "False", "VersionNotFound",
                               f'Unable to retrieve available updates: currently reconciling cluster version {at} not found in the "{channel}" channel', now)
    if channel:
        return C.set_condition(conds, "RetrievedUpdates", "True", "AsExpected", "", now)
    return C.set_condition(conds, "RetrievedUpdates", "False", "NoChannel",
                           "The update channel has not been configured.", now)


def _payload_loaded(now: float, version: str, image: str, conds: list, status: dict, history: list, result: A.Result) -> None:
    """Preconditions passed: PreconditionsPassed and PayloadLoaded recorded, ReleaseAccepted,
    the new desired release, and a Partial entry on top of the history (completing a
    previous Partial one)."""
    result.actions.append(A.RecordEvent(now, "Normal", "PreconditionsPassed", "ClusterVersion", NAMESPACE, "version",
                                        f'preconditions passed for payload loaded version="{version}" image="{image}"', SOURCE))
    result.actions.append(A.RecordEvent(now, "Normal", "PayloadLoaded", "ClusterVersion", NAMESPACE, "version",
                                        f'Payload loaded version="{version}" image="{image}" architecture="amd64"', SOURCE))
    conds[:] = C.set_condition(conds, "ReleaseAccepted", "True", "PayloadLoaded",
                               f'Payload loaded version="{version}" image="{image}" architecture="amd64"', now)
    status["desired"] = G.release_doc(version) | {"image": image}
    history.insert(0, {"state": "Partial", "startedTime": time_value(now), "completionTime": None,
                       "version": version, "image": image, "verified": True})
    if len(history) > 1 and history[1].get("state") == "Partial" and history[1].get("completionTime") is None:
        history[1]["completionTime"] = time_value(now)


class ClusterVersionOperator:
    name = NAME
    # what it reads: the ClusterVersion, the ClusterOperators, the master pool (and the
    # MachineConfigs, which change with a pool); Nodes only for the risks' series, evaluated
    # when the check key changes or every RISK_INTERVAL, never because a Node changed
    # ConfigMaps: the admin-gates and admin-acks the Upgradeable check reads
    watches = frozenset({"ClusterVersion", "ClusterOperator", "MachineConfigPool", "ConfigMap"})

    def __init__(self) -> None:
        self._series: dict = {}  # the pods' series of the last evaluation (facts.cluster_series)
        # after a run that changed nothing: (its state, its next_due); a run woken before that
        # time by pools it does not read (only the master pool) would change nothing again
        self._quiet: tuple[Mapping[str, Any], float | None, tuple] | None = None
        self._admin_check: dict | None = None  # the admin-ack check of this run (upgradeable.admin_ack_check)

    def reconcile(self, ctx: Context) -> A.Result:
        quiet = self._quiet
        if (quiet is not None and ctx.changed and (quiet[1] is None or ctx.now + 1e-9 < quiet[1])
                and all(r[0] == "MachineConfigPool" and r[2] != "master" for r in ctx.changed) and ctx.state == quiet[0]
                and _kubelets(ctx.store) == quiet[2]):
            result = A.Result()
            if quiet[1] is not None:
                result.due(quiet[1])
            return result
        result = self._reconcile(ctx)
        self._quiet = None if result.actions else (dict(ctx.state), result.next_due, _kubelets(ctx.store))
        return result

    def _available_updates(self, ctx: Context, status: Mapping[str, Any], channel: str, at: str,
                           result: A.Result) -> tuple[list, list]:
        """(availableUpdates, conditionalUpdates) against the cluster's facts: evaluated
        again when the channel, the version or the facts change, and every RISK_INTERVAL
        (the CVO re-evaluates its risks periodically); otherwise the status' own."""
        store, now = ctx.store, ctx.now
        facts = F.facts_from_store(store, (ctx.settings or {}).get("facts"))
        check = ctx.state.get("check") or {}
        key = f"{channel}|{at}|{hashlib.sha256(repr(sorted(facts.items())).encode()).hexdigest()[:16]}|{len(store.list('ClusterOperator'))}"
        if check.get("key") != key or now >= check.get("at", 0) + RISK_INTERVAL or "availableUpdates" not in status:
            data = promql.Dataset(F.cluster_series(store, facts, self._series))
            avail, conditional = G.available(at, channel, data, now) if channel else ([], [])
            conditional = self._keep_times(status.get("conditionalUpdates") or [], conditional)
            result.actions.append(A.SetControllerState(NAME, "check", {"key": key, "at": time_value(now)}))
            result.due(now + RISK_INTERVAL)
            return avail, conditional
        result.due(check["at"] + RISK_INTERVAL)
        return status.get("availableUpdates") or [], status.get("conditionalUpdates") or []

    def _take_desired_update(self, ctx: Context, desired_update: Mapping[str, Any], current: str, state: dict,
                             conds: list[dict], result: A.Result) -> tuple[dict, list[dict]]:
        """spec.desiredUpdate read: a new target starts an update (its payload retrieved by a
        job); `force` on the same target waives the preconditions; a target that resolves
        to no release is refused (ReleaseAccepted False). Returns (state, conditions)."""
        now = ctx.now
        target_version, target_image = self._resolve(desired_update, current)
        if target_version and target_version != current and state.get("version") != target_version:
            state = {"version": target_version, "image": target_image, "from": current, "phase": "Retrieving",
                     "since": now, "force": bool(desired_update.get("force"))}
            job = job_name(target_version, target_image)
            result.actions.append(A.RecordEvent(now, "Normal", "RetrievePayload", "ClusterVersion", NAMESPACE, "version",
                                                f'Retrieving and verifying payload version="{target_version}" image="{target_image}"', SOURCE))
            result.actions.append(A.RecordEvent(now, "Normal", "SuccessfulCreate", "Job", NAMESPACE, job,
                                                f"Created pod: {job}-{ctx.rng('cvo-job', job).getrandbits(20):05x}", "job-controller"))
        elif state.get("version") == target_version and desired_update.get("force") and not state.get("force"):
            state["force"] = True  # the override: preconditions are waived
        elif desired_update and not target_version and (desired_update.get("version") or desired_update.get("image")):
            conds = C.set_condition(conds, "ReleaseAccepted", "False", "RetrievePayload",
                                    f"Retrieving payload failed version=\"{desired_update.get('version', '')}\" image=\"{desired_update.get('image', '')}\" "
                                    f"failure=The update cannot be verified: unknown version", now)
        return state, conds

    def _reconcile(self, ctx: Context) -> A.Result:
        result = A.Result()
        store, now = ctx.store, ctx.now
        cv = store.get("ClusterVersion", "", "version")
        if cv is None:
            return result
        status = dict(cv.get("status") or {})
        spec = cv.get("spec") or {}
        current = current_version(cv)
        if not current:
            return result
        state = dict(ctx.state.get("update") or {})
        conds = [dict(c) for c in status.get("conditions") or ()]
        history = [dict(h) for h in status.get("history") or ()]
        if not history:
            history = [{"state": "Completed", "startedTime": 0, "completionTime": 0, "version": current,
                        "image": G.pull_spec(current), "verified": False, "acceptedRisks": ""}]
            history[0].pop("acceptedRisks")
        if not (status.get("desired") or {}).get("image"):
            status["desired"] = {**G.release_doc(current), **(status.get("desired") or {})}
        operators = {name_of(co): co for co in store.list("ClusterOperator")}
        running = payload(current)
        if not state:  # operators of the release that are missing (a cluster given as nodes only)
            _create_missing_operators(running, operators, current, now, result)
        gates, acks = _sync_admin_config_maps(store, (status.get("desired") or {}).get("version") or current, now, result)
        _sync_operators_upgradeable(store, operators, current, now, result)
        self._admin_check = U.admin_ack_check(_history_version(history), gates, acks)

        state, conds = self._take_desired_update(ctx, spec.get("desiredUpdate") or {}, current, state, conds, result)

        if state:
            self._advance(ctx, state, status, conds, history, operators, result)
        else:
            self._steady(ctx, current, conds, operators, now)

        channel = spec.get("channel") or ""
        at = status.get("desired", {}).get("version") or current
        avail, conditional = self._available_updates(ctx, status, channel, at, result)
        status["desired"] = {**status["desired"], "channels": G.channels_of(status["desired"].get("version", ""))}
        conds = _retrieved_updates(conds, channel, at, now)
        status.update(availableUpdates=avail or None, conditionalUpdates=conditional or None, history=history,
                      conditions=conds, observedGeneration=(cv.get("metadata") or {}).get("generation", 1),
                      versionHash=hashlib.sha256(status["desired"].get("image", "").encode()).hexdigest()[:11])
        status.setdefault("capabilities", {"enabledCapabilities": list(F.CAPABILITIES), "knownCapabilities": list(F.CAPABILITIES)})
        old = cv.get("status") or {}
        fields = {k: v for k, v in status.items() if old.get(k) != v}
        if fields:
            result.actions.append(A.PatchStatus("ClusterVersion", "", "version", fields))
        if state.get("phase") == "Completed":
            state = {}
        if state != (ctx.state.get("update") or {}):
            result.actions.append(A.SetControllerState(NAME, "update", state or None))
        return result

    # --- pieces -------------------------------------------------------------------------------------------

    @staticmethod
    def _keep_times(old: list, new: list) -> list:
        by_version = {(u.get("release") or {}).get("version"): u for u in old}
        for u in new:
            prev = by_version.get(u["release"]["version"])
            if prev:
                pc = C.find(prev.get("conditions"), "Recommended")
                nc = u["conditions"][0]
                if pc and pc.get("status") == nc["status"]:
                    nc["lastTransitionTime"] = pc.get("lastTransitionTime")
        return new

    @staticmethod
    def _resolve(update: Mapping[str, Any], current: str) -> tuple[str, str]:
        version = update.get("version") or ""
        image = update.get("image") or ""
        if version and is_version(version):
            return version, image or G.pull_spec(version)
        if image:
            found = version_of_image(image, G.GRAPH["first_listed"])
            return (found or "", image) if found else ("", "")
        return "", ""

    def _steady(self, ctx: Context, current: str, conds: list, operators: Mapping[str, Any], now: float) -> None:
        degraded = sorted(n for n, co in operators.items() if C.is_true((co.get("status") or {}).get("conditions"), "Degraded"))
        conds[:] = C.set_condition(conds, "Available", "True", "", f"Done applying {current}", now)
        if degraded:
            word = "operator" if len(degraded) == 1 else "operators"
            verb = "is" if len(degraded) == 1 else "are"
            conds[:] = C.set_condition(conds, "Failing", "True", "ClusterOperatorDegraded",
                                       f"Cluster {word} {_list_names(degraded)} {verb} degraded", now)
            conds[:] = C.set_condition(conds, "Progressing", "False", "ClusterOperatorDegraded",
                                       f"Error while reconciling {current}: the cluster {word} {_list_names(degraded)} {verb} degraded", now)
        else:
            conds[:] = C.set_condition(conds, "Failing", "False", "", "", now)
            conds[:] = C.set_condition(conds, "Progressing", "False", "", f"Cluster version is {current}", now)
        self._upgradeable(conds, operators, now)
        if not C.find(conds, "ReleaseAccepted"):
            conds[:] = C.set_condition(conds, "ReleaseAccepted", "True", "PayloadLoaded",
                                       f'Payload loaded version="{current}" image="{G.pull_spec(current)}" architecture="amd64"', now)

    def _upgradeable(self, conds: list, operators: Mapping[str, Any], now: float) -> None:
        """Upgradeable from the CVO's checks (engine.openshift.upgradeable): the admin acks of
        this run, then the ClusterOperators."""
        conds[:] = U.set_upgradeable(conds, [self._admin_check, U.operators_check(operators)], now)

    def _operator_seconds(self, ctx: Context, version: str, op: str, co: Mapping[str, Any] | None) -> float:
        base = OPERATOR_SECONDS.get(op, DEFAULT_OPERATOR_SECONDS)
        jitter = 0.8 + 0.4 * ctx.rng(NAME, version, op).random()
        try:
            slow = float(annotations_of(co or {}).get(SLOW) or 1)
        except ValueError:
            slow = 1.0
        return round(base * jitter * max(slow, 0.01))

    def _advance(self, ctx: Context, state: dict, status: dict, conds: list, history: list,
                 operators: dict, result: A.Result) -> None:
        store, now = ctx.store, ctx.now
        version, image = state["version"], state["image"]
        target: Payload = payload(version)
        total = target.manifest_count
        phase = state["phase"]
        if phase == "Retrieving":
            conds[:] = C.set_condition(conds, "Progressing", "True", "DownloadingUpdate",
                                       f"Working towards {version}: downloading update", now)
            due = state["since"] + RETRIEVE_SECONDS
            if now < due:
                result.due(due)
                return
            state.update(phase="Verifying", since=now)
            phase = "Verifying"
        if phase == "Verifying":
            due = state["since"] + VERIFY_SECONDS
            if now < due:
                result.due(due)
                return
            result.actions.append(A.RecordEvent(now, "Normal", "LoadPayload", "ClusterVersion", NAMESPACE, "version",
                                                f'Loading payload version="{version}" image="{image}"', SOURCE))
            state.update(phase="Preconditions", since=now)
            phase = "Preconditions"
        if phase in ("Preconditions", "Blocked"):
            failure = None
            found = self._precondition_failure(state, conds, status, history)
            if found:
                failure, blocking = found
                if blocking and state.get("force"):  # precondition.Summarize with force: a warning
                    failure, blocking = f"Forced through blocking failures: {failure}", False
                if not blocking:  # sync_worker: a warning is an event, and the update goes on
                    result.actions.append(A.RecordEvent(now, "Warning", "PreconditionWarn", "ClusterVersion", NAMESPACE, "version",
                                                        f'precondition warning for payload loaded version="{version}" image="{image}": '
                                                        f"{failure}", SOURCE))
                    failure = None
            if failure:
                if phase != "Blocked":
                    result.actions.append(A.RecordEvent(now, "Warning", "PreconditionBlock", "ClusterVersion", NAMESPACE, "version",
                                                        f'Preconditions failed for payload loaded version="{version}" image="{image}": {failure}', SOURCE))
                state.update(phase="Blocked")
                conds[:] = C.set_condition(conds, "ReleaseAccepted", "False", "PreconditionChecks",
                                           f'Preconditions failed for payload loaded version="{version}" image="{image}": {failure}', now)
                self._steady(ctx, state["from"], conds, operators, now)
                return
            _payload_loaded(now, version, image, conds, status, history, result)
            state.update(phase="Applying", since=now, rl=0, rl_started=now, applied=0, ops={})
            phase = "Applying"
        if phase == "Applying":
            self._apply(ctx, state, target, conds, history, operators, result)
        if state.get("phase") == "Completed":
            return
        if phase == "Applying":
            self._applying_conditions(ctx, state, total, conds, operators, result)

    def _applying_conditions(self, ctx: Context, state: dict, total: int, conds: list, operators: dict,
                             result: A.Result) -> None:
        """The conditions while the payload applies: Available, Failing on degraded
        operators, Progressing with the manifests done and the operators waited on (failing
        after FAILING_AFTER), Upgradeable."""
        now, version = ctx.now, state["version"]
        applied = state.get("applied", 0)
        waiting = state.get("waiting") or []
        degraded = sorted(n for n in waiting if C.is_true(((operators.get(n) or {}).get("status") or {}).get("conditions"), "Degraded"))
        waited = now - state.get("rl_started", now)
        conds[:] = C.set_condition(conds, "Available", "True", "", f"Done applying {state['from']}", now)
        if degraded:
            word, verb = ("operator", "is") if len(degraded) == 1 else ("operators", "are")
            conds[:] = C.set_condition(conds, "Failing", "True", "ClusterOperatorDegraded",
                                       f"Cluster {word} {_list_names(degraded)} {verb} degraded", now)
        else:
            conds[:] = C.set_condition(conds, "Failing", "False", "", "", now)
        if waiting and waited >= FAILING_AFTER:
            msg = f"Unable to apply {version}: wait has exceeded 40 minutes for these operators: {_list_names(waiting)}"
            conds[:] = C.set_condition(conds, "Progressing", "True", "ClusterOperatorsUpdating" if not degraded else "ClusterOperatorDegraded", msg, now)
        elif waiting:
            msg = f"Working towards {version}: {applied} of {total} done ({_pct(applied, total)}% complete), waiting on {_list_names(waiting)}"
            conds[:] = C.set_condition(conds, "Progressing", "True", "ClusterOperatorsUpdating", msg, now)
        else:
            conds[:] = C.set_condition(conds, "Progressing", "True", "",
                                       f"Working towards {version}: {applied} of {total} done ({_pct(applied, total)}% complete)", now)
        if waiting and waited < FAILING_AFTER:
            result.due(state["rl_started"] + FAILING_AFTER)
        self._upgradeable(conds, operators, now)

    def _precondition_failure(self, state: Mapping[str, Any], conds: list, status: Mapping[str, Any],
                              history: list) -> tuple[str, bool] | None:
        """The failed preconditions, worded as precondition.Summarize words them (the
        ClusterVersionRollback and ClusterVersionUpgradeable checks of
        pkg/payload/precondition/clusterversion), and whether they block (False: only
        non-blocking warnings), or None. A version that is not a Semantic Version is a
        failure of the check that parses it, never an exception: the current version
        (status.desired) is InvalidCurrentVersion, a warning ("do not block on issues that
        require an update to fix"); the target InvalidDesiredVersion, which blocks; a
        previous version in the history is skipped (the cluster then has no previous
        Semantic Version)."""
        failures: list[tuple[str, str, str, bool]] = []  # (check, reason, message, blocking)
        rollback = "ClusterVersionRollback"
        try:
            old = parse_version(state["from"])
        except VersionError as exc:
            failures.append((rollback, "InvalidCurrentVersion", semver_error(state["from"], exc), False))
        else:
            try:
                new = parse_version(state["version"])
            except VersionError as exc:
                failures.append((rollback, "InvalidDesiredVersion", semver_error(state["version"], exc), True))
            else:
                failure = self._rollback_failure(old, new, status, history)
                if failure:
                    failures.append((rollback, "LowDesiredVersion", failure, True))
        c = C.find(conds, "Upgradeable")
        # upgradeable.go: Upgradeable=False blocks an update to another minor version, the minors
        # compared as text (GetEffectiveMinor: "" when the version has no second field), the
        # current version the history's (GetCurrentVersion); no history, no block
        if c is not None and c.get("status") == "False" and history:
            if _effective_minor(_history_version(history)) != _effective_minor(state["version"]):
                failures.append(("ClusterVersionUpgradeable", c.get("reason") or "", c.get("message") or "", True))
        if not failures:
            return None
        msgs = [f'Precondition "{name}" failed because of "{reason}": {message}' for name, reason, message, _ in failures]
        text = msgs[0] if len(msgs) == 1 else "Multiple precondition checks failed:\n* " + "\n* ".join(msgs)
        return text, any(blocking for *_, blocking in failures)

    @staticmethod
    def _rollback_failure(old: Version, new: Version, status: Mapping[str, Any], history: list) -> str:
        """rollback.go: only back to the previous version, within a z-stream ("" when allowed)."""
        if not new < old:
            return ""
        desired = status.get("desired") or {}
        previous = next((h for h in history if h.get("version") != old.text or h.get("image") != desired.get("image")), None)
        if previous is None or not is_version(previous.get("version") or ""):
            return f"{new.text} is less than the current target {old.text}, and the cluster has no previous Semantic Version"
        if parse_version(previous["version"]) != new:
            return (f"{new.text} is less than the current target {old.text}, and the only supported rollback is to the "
                    f"cluster's previous version {previous['version']} ({previous.get('image') or ''})")
        if (new.major, new.minor) != (old.major, old.minor):
            return (f"{new.text} is less than the current target {old.text} and matches the cluster's previous version, "
                    "but rollbacks that change major or minor versions are not recommended")
        return ""

    def _apply(self, ctx: Context, state: dict, target: Payload, conds: list, history: list,
               operators: dict, result: A.Result) -> None:
        store, now = ctx.store, ctx.now
        version = state["version"]
        while state["rl"] < len(target.runlevels):
            rl = target.runlevels[state["rl"]]
            apply_done = state["rl_started"] + max(MANIFEST_SECONDS * len(c.manifests) for c in rl.components)
            if now < apply_done:
                result.due(apply_done)
                state["waiting"] = []
                return
            if not state.get("rl_applied"):
                state["rl_applied"] = True
                state["applied"] = state.get("applied", 0) + sum(len(c.manifests) for c in rl.components)
                if not state.get("cvo_replaced") and any(c.name == CVO_COMPONENT for c in rl.components):
                    state["cvo_replaced"] = True
                    # client-go's leader election: "<identity> became leader" on the Lease, identity =
                    # the new pod's hostname + "_" + a random UUID (pkg/start createResourceLock)
                    rng = ctx.rng(NAME, "pod", version)
                    pod = (f"cluster-version-operator-{''.join(rng.choice(NAME_ALPHABET) for _ in range(10))}-"
                           f"{''.join(rng.choice(NAME_ALPHABET) for _ in range(5))}")
                    identity = f"{pod}_{uuid.UUID(int=ctx.rng(NAME, 'lease', version).getrandbits(128), version=4)}"
                    result.actions.append(A.RecordEvent(apply_done, "Normal", "LeaderElection", "Lease", NAMESPACE, "version",
                                                        f"{identity} became leader", NAMESPACE))
            waiting = []
            for op in rl.cluster_operators:
                co = operators.get(op)
                if co is None:
                    co = operator_doc(op, state["from"], apply_done)
                    result.actions.append(A.CreateObject(co))
                    operators[op] = co
                done = self._drive_operator(ctx, state, op, co, apply_done, result)
                if not done:
                    waiting.append(op)
            state["waiting"] = waiting
            if waiting:
                return
            state["rl"] += 1
            state["rl_started"] = now
            state["rl_applied"] = False
        # every runlevel is done
        history[0].update(state="Completed", completionTime=time_value(now))
        conds[:] = C.set_condition(conds, "Available", "True", "", f"Done applying {version}", now)
        conds[:] = C.set_condition(conds, "Failing", "False", "", "", now)
        conds[:] = C.set_condition(conds, "Progressing", "False", "", f"Cluster version is {version}", now)
        self._upgradeable(conds, operators, now)
        state.clear()
        state["phase"] = "Completed"

    def _drive_operator(self, ctx: Context, state: dict, op: str, co: Mapping[str, Any], started: float,
                        result: A.Result) -> bool:
        """Simulate one operator updating; True when the CVO may move on (Available=True,
        Degraded=False and reporting the new version)."""
        now, version = ctx.now, state["version"]
        status = co.get("status") or {}
        conds = [dict(c) for c in status.get("conditions") or ()]
        inject = annotations_of(co).get(INJECT_DEGRADED)
        ops = state.setdefault("ops", {})
        if op not in ops:
            ops[op] = started + self._operator_seconds(ctx, version, op, co)
        finish = ops[op]
        new_conds = conds
        versions = list(status.get("versions") or [])
        if inject is not None:
            reason, _, message = inject.partition(":")
            new_conds = C.set_condition(new_conds, "Degraded", "True", reason.strip() or "Degraded", message.strip(), now)
        else:
            new_conds = C.set_condition(new_conds, "Degraded", "False", "AsExpected", "", now)
        if op == MCO_OPERATOR:
            self._render_release(ctx, version, result)
            ready = now >= finish and self._master_pool_updated(ctx, version)
        else:
            ready = now >= finish
        if ready and inject is None:
            new_conds = C.set_condition(new_conds, "Progressing", "False", "AsExpected", "", now)
            versions = [v for v in versions if v.get("name") != "operator"] + [{"name": "operator", "version": version}]
        else:
            new_conds = C.set_condition(new_conds, "Progressing", "True", "Upgrading" if op != MCO_OPERATOR else "",
                                        f"Working towards {version}", now)
            if now < finish:
                result.due(finish)
        fields = {}
        if new_conds != conds:
            fields["conditions"] = new_conds
        if versions != list(status.get("versions") or []):
            fields["versions"] = versions
        if fields:
            result.actions.append(A.PatchStatus("ClusterOperator", "", op, fields))
        merged = {**status, **fields}
        return (C.is_true(merged.get("conditions"), "Available") and not C.is_true(merged.get("conditions"), "Degraded")
                and operator_version({"status": merged}) == version)

    # --- the machine-config operator's part: new base MachineConfigs for the release -----------------------

    def _render_release(self, ctx: Context, version: str, result: A.Result) -> None:
        url = os_image(version)
        for mc in ctx.store.list("MachineConfig"):
            if (mc.get("metadata") or {}).get("annotations", {}).get("machineconfiguration.openshift.io/generated-by-controller-version") is None:
                continue
            if any(o.get("kind") == "MachineConfigPool" for o in (mc.get("metadata") or {}).get("ownerReferences") or ()):
                continue  # a rendered config never changes: the pool gets a new one
            if (mc.get("spec") or {}).get("osImageURL") != url:
                doc = {**mc, "spec": {**(mc.get("spec") or {}), "osImageURL": url},
                       "metadata": {**mc["metadata"], "annotations": {**mc["metadata"].get("annotations", {}),
                                                                      "machineconfiguration.openshift.io/release-image-version": version}}}
                result.actions.append(A.ReplaceObject(doc))

    @staticmethod
    def _master_pool_updated(ctx: Context, version: str) -> bool:
        pool = ctx.store.get("MachineConfigPool", "", "master")
        if pool is None:
            return True
        status = pool.get("status") or {}
        target = (pool.get("spec") or {}).get("configuration", {}).get("name")
        rendered = ctx.store.get("MachineConfig", "", target or "")
        if rendered is None or (rendered.get("spec") or {}).get("osImageURL") != os_image(version):
            return False
        return (status.get("configuration") or {}).get("name") == target and C.is_true(status.get("conditions"), "Updated")
