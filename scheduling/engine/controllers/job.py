"""The Job controller (pkg/controller/job, job_controller.go syncJob, v1.35) and the TTL
after finished controller, as one controller of the event loop (name `job-controller`).

For each Job not finished: the pods it controls are counted (active: not finished, not
terminating; ready; terminating); a pod that finished since the last sync is counted once
in status.succeeded or status.failed (a terminating pod that did not succeed counts as
failed: podReplacementPolicy TerminatingOrFailed replaces it at once). Then, in syncJob's
order:

* suspended (spec.suspend): its active pods deleted, condition Suspended=True `JobSuspended`
  `Job suspended` and a `Suspended` event; resumed: Suspended=False `JobResumed`, a
  `Resumed` event and a new startTime;
* past spec.activeDeadlineSeconds since status.startTime: failed, `DeadlineExceeded`
  `Job was active longer than specified deadline`;
* more failures than spec.backoffLimit (restartPolicy Never), or container restarts of its
  active pods reaching it (OnFailure): failed, `BackoffLimitExceeded` `Job has reached the
  specified backoff limit`;
* enough successes (spec.completions; without completions: one success and no active pod):
  SuccessCriteriaMet=True `CompletionsReached` `Reached expected number of succeeded pods`;
* otherwise pods are created up to spec.parallelism (never more than the completions still
  missing): `<job>-<5 chars>` from the template, `SuccessfulCreate` `Created pod: <name>`,
  after a failure only once its back-off is over (10 s, doubled for each failure in a row,
  at most 10 minutes, from the last failure).

A failed Job gets FailureTarget=True and its active pods deleted (`SuccessfulDelete`
`Deleted pod: <name>`); once none of its pods is terminating, Failed=True with the same
reason and message and a Warning event of that reason. A Job that met its success criteria
gets Complete=True `CompletionsReached` once none is terminating, status.completionTime and
a `Completed` `Job completed` event. A finished Job with spec.ttlSecondsAfterFinished is
deleted (its pods with it) that many seconds after it finished.

Its state: `counted/<namespace>/<job>` -> {"s": pods counted as succeeded, "f": as failed,
"last": the time of the last failure, "row": failures since the last success}, of the pods
that still exist; `names/Job/<namespace>/<job>` -> the pod names it generated.
"""

from __future__ import annotations

from typing import Any, Mapping

from scheduling.engine import actions as A
from scheduling.engine.api.priority import AdmissionError
from scheduling.engine.controller import Context
from scheduling.engine.controllers import garbage_collector
from scheduling.engine.controllers.controller_utils import (
    NAMES_PREFIX,
    WorkloadContext,
    active_pods_order,
    generate_name,
    is_active,
    is_running,
    new_pod,
    object_namespace,
    termination_grace_seconds,
)
from scheduling.engine.controllers.workloads import controller_admission_context, pod_limit
from scheduling.engine.store import is_terminating, name_of, sim_time, time_value

NAME = "job-controller"
SOURCE = "job-controller"
COUNTED_PREFIX = "counted/"
BACKOFF_SECONDS = 10.0  # DefaultJobPodFailureBackOff
MAX_BACKOFF_SECONDS = 600.0  # MaxJobPodFailureBackOff

COMPLETIONS_REACHED = ("CompletionsReached", "Reached expected number of succeeded pods")
BACKOFF_LIMIT_EXCEEDED = ("BackoffLimitExceeded", "Job has reached the specified backoff limit")
DEADLINE_EXCEEDED = ("DeadlineExceeded", "Job was active longer than specified deadline")


def condition(job: Mapping[str, Any], ctype: str) -> Mapping[str, Any] | None:
    return next((c for c in (job.get("status") or {}).get("conditions") or () if c.get("type") == ctype), None)


def is_true(job: Mapping[str, Any], ctype: str) -> bool:
    c = condition(job, ctype)
    return c is not None and c.get("status") == "True"


def is_finished(job: Mapping[str, Any]) -> bool:
    """IsJobFinished: Complete or Failed is True."""
    return is_true(job, "Complete") or is_true(job, "Failed")


def finished_at(job: Mapping[str, Any]) -> float | None:
    """When the Job finished (completionTime, or its Failed condition's transition)."""
    status = job.get("status") or {}
    if status.get("completionTime") is not None:
        return sim_time(status["completionTime"])
    failed = condition(job, "Failed")
    return sim_time(failed.get("lastTransitionTime")) if failed is not None else None


def _new_condition(ctype: str, status: str, reason: str, message: str, now: float) -> dict:
    return {"type": ctype, "status": status, "lastProbeTime": time_value(now), "lastTransitionTime": time_value(now),
            "reason": reason, "message": message}


def _with_condition(conditions: list[dict], ctype: str, status: str, reason: str, message: str, now: float) -> list[dict]:
    """The conditions with `ctype` set (a new one appended; an existing one changed only
    when its status does)."""
    out = [dict(c) for c in conditions]
    for c in out:
        if c.get("type") == ctype:
            if c.get("status") != status:
                c.update(_new_condition(ctype, status, reason, message, now))
            return out
    out.append(_new_condition(ctype, status, reason, message, now))
    return out


def _event(now: float, job: Mapping[str, Any], kind: str, reason: str, message: str) -> A.RecordEvent:
    return A.RecordEvent(now, kind, reason, "Job", object_namespace(job), name_of(job), message, SOURCE)


def _delete(ctx: WorkloadContext, job: Mapping[str, Any], pods: list[dict]) -> list:
    actions: list = []
    for pod in pods:
        actions.append(A.SetPodDeletion(object_namespace(pod), name_of(pod), ctx.now, termination_grace_seconds(pod), "SuccessfulDelete"))
        actions.append(_event(ctx.now, job, "Normal", "SuccessfulDelete", f"Deleted pod: {name_of(pod)}"))
    return actions


def _restarts(pods: list[dict]) -> int:
    return sum(int(c.get("restartCount") or 0) for p in pods
               for c in ((p.get("status") or {}).get("containerStatuses") or ()))


def sync_job(ctx: WorkloadContext, job: Mapping[str, Any], counted: Mapping[str, Any] | None) -> tuple[list, dict | None, float | None]:
    """One Job: (actions, its counted entry for the state, when to look again)."""
    now = ctx.now
    spec, status = job.get("spec") or {}, dict(job.get("status") or {})
    ns, name = object_namespace(job), name_of(job)
    if is_finished(job):
        ttl = spec.get("ttlSecondsAfterFinished")
        done = finished_at(job)
        if ttl is None or done is None:
            return [], None, None
        if now + 1e-9 >= done + float(ttl):
            return garbage_collector.cascade_delete(ctx.store, "Job", ns, name, now), None, None
        return [], None, done + float(ttl)
    pods = [p for p, _ in ctx.controlled(job)]
    names = {name_of(p) for p in pods}
    counted = dict(counted or {})
    succeeded_names = [n for n in counted.get("s") or () if n in names]
    failed_names = [n for n in counted.get("f") or () if n in names]
    last_failure, row = counted.get("last"), int(counted.get("row") or 0)
    succeeded, failed = int(status.get("succeeded") or 0), int(status.get("failed") or 0)
    for pod in sorted(pods, key=name_of):
        pod_name, phase = name_of(pod), (pod.get("status") or {}).get("phase")
        if pod_name in succeeded_names or pod_name in failed_names:
            continue
        if phase == "Succeeded":
            succeeded_names.append(pod_name)
            succeeded += 1
            row = 0
        elif phase == "Failed" or is_terminating(pod):
            failed_names.append(pod_name)
            failed += 1
            row += 1
            last_failure = now
    active = [p for p in pods if is_active(p)]
    terminating = sum(1 for p in pods if is_terminating(p) and (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed"))
    actions: list = []
    due: float | None = None
    conditions = list(status.get("conditions") or ())
    parallelism = int(spec.get("parallelism", 1) or 0)
    completions = spec.get("completions")
    suspended = bool(spec.get("suspend"))
    fields: dict = {}
    if suspended:
        actions += _delete(ctx, job, active)
        if not is_true(job, "Suspended"):
            conditions = _with_condition(conditions, "Suspended", "True", "JobSuspended", "Job suspended", now)
            actions.append(_event(now, job, "Normal", "Suspended", "Job suspended"))
        active = []
    else:
        if is_true(job, "Suspended"):
            conditions = _with_condition(conditions, "Suspended", "False", "JobResumed", "Job resumed", now)
            actions.append(_event(now, job, "Normal", "Resumed", "Job resumed"))
            fields["startTime"] = time_value(now)
        elif status.get("startTime") is None:
            fields["startTime"] = time_value(now)
    start = sim_time(fields.get("startTime") or status.get("startTime"))
    finished: tuple[str, str, str] | None = None  # (target condition, final condition, (reason, message))
    if is_true(job, "FailureTarget"):
        target = condition(job, "FailureTarget") or {}
        finished = ("FailureTarget", "Failed", target.get("reason") or "", target.get("message") or "")
    elif is_true(job, "SuccessCriteriaMet"):
        finished = ("SuccessCriteriaMet", "Complete", *COMPLETIONS_REACHED)
    elif not suspended:
        deadline = spec.get("activeDeadlineSeconds")
        backoff_limit = int(spec.get("backoffLimit", 6))
        on_failure = ((spec.get("template") or {}).get("spec") or {}).get("restartPolicy") == "OnFailure"
        restarts = _restarts(active) if on_failure else 0
        done = succeeded >= int(completions) and not active if completions is not None else succeeded > 0 and not active
        if deadline is not None and start is not None and now + 1e-9 >= start + float(deadline):
            finished = ("FailureTarget", "Failed", *DEADLINE_EXCEEDED)
        elif failed > backoff_limit or (on_failure and (restarts > 0 if backoff_limit == 0 else restarts >= backoff_limit)):
            finished = ("FailureTarget", "Failed", *BACKOFF_LIMIT_EXCEEDED)
        elif done:
            finished = ("SuccessCriteriaMet", "Complete", *COMPLETIONS_REACHED)
        elif deadline is not None and start is not None:
            due = start + float(deadline)
    if finished is not None:
        target, final, reason, message = finished
        conditions = _with_condition(conditions, target, "True", reason, message, now)
        if target == "FailureTarget" and active:
            actions += _delete(ctx, job, active)
            terminating += len(active)
            active = []
        if terminating == 0:
            conditions = _with_condition(conditions, final, "True", reason, message, now)
            if final == "Complete":
                fields["completionTime"] = time_value(now)
                actions.append(_event(now, job, "Normal", "Completed", "Job completed"))
            else:
                actions.append(_event(now, job, "Warning", reason, message))
    elif not suspended:
        want = parallelism
        if completions is not None:
            want = min(parallelism, max(int(completions) - succeeded, 0))
        elif succeeded > 0:
            want = len(active)
        diff = want - len(active)
        if diff > 0 and row > 0 and last_failure is not None:
            ready_at = float(last_failure) + min(BACKOFF_SECONDS * 2 ** (row - 1), MAX_BACKOFF_SECONDS)
            if now + 1e-9 < ready_at:
                due = ready_at if due is None else min(due, ready_at)
                diff = 0
        for _ in range(max(diff, 0)):
            pod_name = generate_name(ctx, job, f"{name}-")
            try:
                doc = new_pod(ctx, job, spec.get("template") or {}, pod_name, generate_name_prefix=f"{name}-")
            except AdmissionError as exc:
                actions.append(_event(now, job, "Warning", "FailedCreate", f"Error creating: {exc}"))
                break
            actions.append(A.CreateObject(doc))
            actions.append(_event(now, job, "Normal", "SuccessfulCreate", f"Created pod: {pod_name}"))
            active.append(doc)
        if diff < 0:
            gone = active_pods_order(active)[:-diff]
            actions += _delete(ctx, job, gone)
            active = [p for p in active if p not in gone]
            terminating += len(gone)
    fields.update({
        "active": len(active), "ready": sum(1 for p in active if is_running(p)), "terminating": terminating,
        "succeeded": succeeded, "failed": failed, "uncountedTerminatedPods": {},
    })
    if conditions != list(status.get("conditions") or ()):
        fields["conditions"] = conditions
    changed = {k: v for k, v in fields.items() if status.get(k) != v}
    if changed:
        actions.append(A.PatchStatus("Job", ns, name, changed))
    entry = {"s": succeeded_names, "f": failed_names, "last": last_failure, "row": row}
    if not succeeded_names and not failed_names and not row:
        entry = None
    return actions, entry, due


class JobController:
    """Every Job, each time a Job or a pod changes or a deadline, a back-off or a TTL is due."""

    name = NAME
    watches = frozenset({"Job", "Pod", "PriorityClass", "Namespace"})

    def reconcile(self, ctx: Context) -> A.Result:
        store = ctx.store
        result = A.Result()
        jobs = store.list("Job")
        if not jobs and not ctx.state:
            return result
        wctx = WorkloadContext.build(store, ctx.now, ctx.seed, ctx.settings.get("admission"), ctx.state,
                                     controller_admission_context(ctx), pod_limit=pod_limit(ctx.settings))
        keys: set[str] = set()
        for job in jobs:
            key = f"{COUNTED_PREFIX}{object_namespace(job)}/{name_of(job)}"
            keys.add(key)
            actions, entry, due = sync_job(wctx, job, ctx.state.get(key))
            result.actions += actions
            result.due(due)
            if ctx.state.get(key) != entry:
                result.actions.append(A.SetControllerState(NAME, key, entry))
        present = {f"{NAMES_PREFIX}Job/{object_namespace(j)}/{name_of(j)}" for j in jobs}
        for key, n in sorted(wctx.counters.items()):
            value = n if key in present else None
            if ctx.state.get(key) != value:
                result.actions.append(A.SetControllerState(NAME, key, value))
        for key in ctx.state:
            if (key.startswith(COUNTED_PREFIX) and key not in keys) or (key.startswith(NAMES_PREFIX) and key not in present):
                result.actions.append(A.SetControllerState(NAME, key, None))
        return result
