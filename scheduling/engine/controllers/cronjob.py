"""The CronJob controller (pkg/controller/cronjob, cronjob_controllerv2.go syncCronJob,
v1.35) on the simulated clock (second 0 is engine.oc.output.EPOCH), one controller of the
event loop (name `cronjob-controller`).

For each CronJob: its Jobs (controller reference) are compared with status.active: a Job of
the list that finished leaves it (`SawCompletedJob` `Saw completed job: <job>, condition:
<Complete|Failed>`), one that is gone too (`MissingJob` `Active job went missing: <job>`);
status.lastSuccessfulTime is the latest completionTime of a Job that completed. Unless it is
being deleted or suspended, the most recent schedule time not after now and after
status.lastScheduleTime (or its creation) is its start time (spec.schedule, robfig/cron's
standard syntax, in spec.timeZone, UTC when unset; more than 100 missed:
`TooManyMissedTimes`). Past spec.startingDeadlineSeconds it is missed (`MissSchedule`
`Missed scheduled time to start a job: <RFC 1123Z>`); with concurrencyPolicy Forbid and a
Job active it waits (`JobAlreadyActive`); with Replace the active Jobs are deleted
(`SuccessfulDelete` `Deleted job <job>`); then the Job `<cronjob>-<scheduled time in minutes
since the Unix epoch>` is created from spec.jobTemplate (annotation
`batch.kubernetes.io/cronjob-scheduled-timestamp`, the time in RFC 3339 in its zone),
`SuccessfulCreate` `Created job <job>`, put in status.active and lastScheduleTime. Finished
Jobs beyond spec.successfulJobsHistoryLimit / failedJobsHistoryLimit are deleted, oldest
first (`SuccessfulDelete`). It asks to run again at its next schedule time.
"""

from __future__ import annotations

import datetime
from typing import Any, Mapping

from scheduling.engine import actions as A
from scheduling.engine.api import cron
from scheduling.engine.api.defaults import apply_defaults
from scheduling.engine.controller import Context
from scheduling.engine.controllers import garbage_collector
from scheduling.engine.controllers.controller_utils import object_namespace, owner_reference
from scheduling.engine.controllers.job import is_finished, is_true
from scheduling.engine.oc.output import EPOCH
from scheduling.engine.store import controller_ref, document_copy, is_terminating, meta, name_of, sim_time, time_value

NAME = "cronjob-controller"
SOURCE = "cronjob-controller"
SCHEDULED_TIMESTAMP = "batch.kubernetes.io/cronjob-scheduled-timestamp"
MAX_MISSED = 100
UNIX_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def _moment(t: float, zone: datetime.tzinfo) -> datetime.datetime:
    return (EPOCH + datetime.timedelta(seconds=t)).astimezone(zone)


def _seconds(moment: datetime.datetime) -> float:
    return (moment - EPOCH).total_seconds()


def job_name(cronjob_name: str, scheduled: float) -> str:
    """getJobName: the CronJob's name and the scheduled time in minutes since the Unix epoch."""
    minutes = int((EPOCH - UNIX_EPOCH).total_seconds() + scheduled) // 60
    return f"{cronjob_name}-{minutes}"


def schedule_times(schedule: cron.Schedule, zone: datetime.tzinfo, after: float, now: float) -> tuple[float | None, int, float | None]:
    """(the most recent schedule time in (after, now], how many there were (counted up to
    MAX_MISSED + 1), the first one after now)."""
    latest, missed = None, 0
    t = schedule.next(_moment(after, zone))
    while t is not None and _seconds(t) <= now + 1e-9 and missed <= MAX_MISSED:
        latest, missed = _seconds(t), missed + 1
        t = schedule.next(t)
    if missed > MAX_MISSED:
        latest = _latest_before(schedule, zone, now)
    following = schedule.next(_moment(now, zone))
    return latest, missed, None if following is None else _seconds(following)


def _latest_before(schedule: cron.Schedule, zone: datetime.tzinfo, now: float) -> float | None:
    """The last schedule time not after now: looked for in a window before now that doubles
    until it holds one (a few activations at most are stepped through)."""
    window = 60.0
    while window < 10 * 366 * 86400:
        t = schedule.next(_moment(now - window, zone))
        if t is not None and _seconds(t) <= now + 1e-9:
            latest = _seconds(t)
            t = schedule.next(t)
            while t is not None and _seconds(t) <= now + 1e-9:
                latest = _seconds(t)
                t = schedule.next(t)
            return latest
        window *= 2
    return None


def _event(now: float, cj: Mapping[str, Any], kind: str, reason: str, message: str) -> A.RecordEvent:
    return A.RecordEvent(now, kind, reason, "CronJob", object_namespace(cj), name_of(cj), message, SOURCE)


def _rfc3339(moment: datetime.datetime) -> str:
    text = moment.replace(microsecond=0).isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


def new_job(cj: Mapping[str, Any], scheduled: float, zone: datetime.tzinfo, now: float) -> dict:
    """getJobFromTemplate2: the Job of one schedule time, defaulted as the API server does."""
    template = (cj.get("spec") or {}).get("jobTemplate") or {}
    tmeta = template.get("metadata") or {}
    job_meta: dict = {"name": job_name(name_of(cj), scheduled), "namespace": object_namespace(cj),
                      "creationTimestamp": time_value(now)}
    if tmeta.get("labels"):
        job_meta["labels"] = dict(tmeta["labels"])
    job_meta["annotations"] = {**(tmeta.get("annotations") or {}), SCHEDULED_TIMESTAMP: _rfc3339(_moment(scheduled, zone))}
    job_meta["ownerReferences"] = [owner_reference(cj)]
    doc = {"apiVersion": "batch/v1", "kind": "Job", "metadata": job_meta, "spec": document_copy(dict(template.get("spec") or {}))}
    return apply_defaults(doc, in_place=True)


def _reference(job: Mapping[str, Any]) -> dict:
    ref = {"apiVersion": "batch/v1", "kind": "Job", "name": name_of(job), "namespace": object_namespace(job)}
    if meta(job).get("uid"):
        ref["uid"] = meta(job)["uid"]
    return ref


def _start_order(job: Mapping[str, Any]) -> tuple:
    """byJobStartTime: the oldest start first (no start time: by creation), then by name."""
    status = job.get("status") or {}
    start = sim_time(status.get("startTime"))
    created = sim_time(meta(job).get("creationTimestamp")) or 0.0
    return (start if start is not None else created, name_of(job))


def sync_cron_job(store, cj: Mapping[str, Any], now: float) -> tuple[list, float | None]:
    spec, status = cj.get("spec") or {}, cj.get("status") or {}
    ns, name = object_namespace(cj), name_of(cj)
    actions: list = []
    children = [j for j in store.list("Job") if object_namespace(j) == ns and (controller_ref(j) or {}).get("kind") == "CronJob"
                and (controller_ref(j) or {}).get("name") == name]
    by_name = {name_of(j): j for j in children}
    active = [dict(r) for r in status.get("active") or ()]
    last_success = sim_time(status.get("lastSuccessfulTime"))
    for ref in list(active):
        job = by_name.get(ref.get("name"))
        if job is None:
            actions.append(_event(now, cj, "Normal", "MissingJob", f"Active job went missing: {ref.get('name')}"))
            active.remove(ref)
        elif is_finished(job):
            kind = "Complete" if is_true(job, "Complete") else "Failed"
            actions.append(_event(now, cj, "Normal", "SawCompletedJob", f"Saw completed job: {name_of(job)}, condition: {kind}"))
            active.remove(ref)
    for job in children:
        done = sim_time((job.get("status") or {}).get("completionTime"))
        if is_true(job, "Complete") and done is not None and (last_success is None or done > last_success):
            last_success = done
    fields: dict = {}
    due: float | None = None
    last_schedule = sim_time(status.get("lastScheduleTime"))
    if not is_terminating(cj) and not spec.get("suspend"):
        zone = cron.zone(spec.get("timeZone"))
        try:
            schedule = cron.parse(str(spec.get("schedule") or ""))
        except cron.CronError:
            schedule = None
        if schedule is not None:
            after = last_schedule if last_schedule is not None else (sim_time(meta(cj).get("creationTimestamp")) or 0.0)
            deadline = spec.get("startingDeadlineSeconds")
            if deadline is not None:  # mostRecentScheduleTime: no earlier than the deadline allows
                after = max(after, now - float(deadline))
            scheduled, missed, due = schedule_times(schedule, zone, after, now)
            if missed > MAX_MISSED:
                actions.append(_event(now, cj, "Warning", "TooManyMissedTimes", "too many missed start times. Set or decrease "
                                      ".spec.startingDeadlineSeconds or check clock skew"))
            wanted = job_name(name, scheduled) if scheduled is not None else None
            if scheduled is None or any(r.get("name") == wanted for r in active) or last_schedule == scheduled:
                pass
            elif deadline is not None and scheduled + float(deadline) < now:
                when = _moment(scheduled, zone).strftime("%a, %d %b %Y %H:%M:%S %z")
                actions.append(_event(now, cj, "Warning", "MissSchedule", f"Missed scheduled time to start a job: {when}"))
            elif spec.get("concurrencyPolicy") == "Forbid" and active:
                actions.append(_event(now, cj, "Normal", "JobAlreadyActive",
                                      "Not starting job because prior execution is running and concurrency policy is Forbid"))
            else:
                if spec.get("concurrencyPolicy") == "Replace":
                    for ref in active:
                        actions += garbage_collector.cascade_delete(store, "Job", ns, ref.get("name") or "", now)
                        actions.append(_event(now, cj, "Normal", "SuccessfulDelete", f"Deleted job {ref.get('name')}"))
                    active = []
                if wanted not in by_name:
                    job = new_job(cj, scheduled, zone, now)
                    actions.append(A.CreateObject(job))
                    actions.append(_event(now, cj, "Normal", "SuccessfulCreate", f"Created job {wanted}"))
                    active.append(_reference(job))
                fields["lastScheduleTime"] = time_value(scheduled)
    # cleanupFinishedJobs
    for limit_field, done in (("successfulJobsHistoryLimit", True), ("failedJobsHistoryLimit", False)):
        limit = spec.get(limit_field)
        if limit is None:
            continue
        finished = sorted((j for j in children if is_finished(j) and is_true(j, "Complete") == done), key=_start_order)
        for job in finished[:max(len(finished) - int(limit), 0)]:
            actions += garbage_collector.cascade_delete(store, "Job", ns, name_of(job), now)
            actions.append(_event(now, cj, "Normal", "SuccessfulDelete", f"Deleted job {name_of(job)}"))
    if active != list(status.get("active") or ()):
        fields["active"] = active or None
    if last_success is not None and last_success != sim_time(status.get("lastSuccessfulTime")):
        fields["lastSuccessfulTime"] = time_value(last_success)
    fields = {k: v for k, v in fields.items() if status.get(k) != v}
    if fields:
        actions.append(A.PatchStatus("CronJob", ns, name, fields))
    return actions, due


class CronJobController:
    """Every CronJob, when a CronJob or a Job changes and at the next schedule time."""

    name = NAME
    watches = frozenset({"CronJob", "Job"})

    def reconcile(self, ctx: Context) -> A.Result:
        result = A.Result()
        for cj in ctx.store.list("CronJob"):
            actions, due = sync_cron_job(ctx.store, cj, ctx.now)
            result.actions += actions
            result.due(due)
        return result
