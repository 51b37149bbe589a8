"""The Job and CronJob controllers and the kubelet's run model, through the simulated clock:
pods created up to parallelism and completions, counted once when they finish, back-off after
a failure, backoffLimit and activeDeadlineSeconds, Complete with SuccessCriteriaMet as v1.35
sets them, TTL after finished; CronJobs creating `<name>-<minutes since the Unix epoch>` Jobs
on schedule, concurrency policies, history limits, lastScheduleTime / lastSuccessfulTime;
and what `oc get` prints of it all."""

from __future__ import annotations

import re

from scheduling.engine import oc
from scheduling.engine.api.defaults import apply_defaults
from scheduling.engine.api.objects import DEFAULT_SCHEDULER
from scheduling.engine.scheduler.policy import default_policy
from scheduling.engine.simulation import Simulation
from scheduling.engine.timeline import load_timeline
from tests.engine.builders import node_doc, pod_doc

SUFFIX = "[bcdfghjklmnpqrstvwxz2456789]{5}"
MINUTES_AT_EPOCH = 1767225600 // 60  # 2026-01-01T00:00:00Z, the simulated clock's second 0


def job(name, command="sleep 30", restart="Never", **spec):
    return apply_defaults({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name, "namespace": "default",
                                                                                  "creationTimestamp": 0},
                           "spec": {"template": {"spec": {"restartPolicy": restart, "containers": [
                               {"name": "c", "image": "busybox", "command": ["sh", "-c", command]}]}}, **spec}})


def cron_job(name, schedule="*/5 * * * *", command="sleep 30", **spec):
    return apply_defaults({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": name, "namespace": "default",
                                                                                      "creationTimestamp": 0},
                           "spec": {"schedule": schedule, "jobTemplate": {"spec": {"template": {"spec": {
                               "restartPolicy": "OnFailure", "containers": [
                                   {"name": "c", "image": "busybox", "command": ["sh", "-c", command]}]}}}}, **spec}})


def simulation(*docs, until=0.0) -> Simulation:
    sim = Simulation([node_doc("node1"), *docs], schedulers=[(DEFAULT_SCHEDULER, default_policy())])
    sim.run_until(until)
    return sim


def events(sim, *reasons):
    return [(e.time, e.reason, e.object, e.message) for e in sim.events if e.reason in reasons]


def status(sim, kind, name):
    return sim.store.get(kind, "default", name).get("status") or {}


def conditions(sim, name):
    return [(c["type"], c["status"], c["reason"], c["message"], c["lastTransitionTime"]) for c in status(sim, "Job", name).get("conditions") or ()]


def test_job_runs_its_completions_parallelism_at_a_time_and_completes():
    sim = simulation(job("pi", completions=3, parallelism=2), until=100)
    created = events(sim, "SuccessfulCreate")
    assert [(t, obj) for t, _, obj, _ in created] == [(0, "Job/default/pi"), (0, "Job/default/pi"), (30, "Job/default/pi")]
    assert all(re.fullmatch(f"Created pod: pi-{SUFFIX}", message) for *_, message in created)
    assert events(sim, "Completed") == [(60, "Completed", "Job/default/pi", "Job completed")]
    assert conditions(sim, "pi") == [
        ("SuccessCriteriaMet", "True", "CompletionsReached", "Reached expected number of succeeded pods", 60),
        ("Complete", "True", "CompletionsReached", "Reached expected number of succeeded pods", 60),
    ]
    s = status(sim, "Job", "pi")
    assert (s["startTime"], s["completionTime"], s["succeeded"], s["failed"], s["active"], s["ready"], s["terminating"]) == (
        0, 60, 3, 0, 0, 0, 0)
    out = oc.run(sim.store, "oc get jobs", sim.now).stdout
    assert out.splitlines() == ["NAME   STATUS     COMPLETIONS   DURATION   AGE", "pi     Complete   3/3           60s        100s"]
    pods = oc.run(sim.store, "oc get pods", sim.now).stdout.splitlines()
    assert len(pods) == 4 and all(re.fullmatch(f"pi-{SUFFIX}   0/1     Completed   0          [0-9]+s", line) for line in pods[1:])


def test_job_pods_carry_the_generated_labels_and_owner():
    sim = simulation(job("pi"), until=1)
    pod = next(d for d in sim.store.list("Pod"))
    uid = sim.store.get("Job", "default", "pi")["metadata"]["uid"]
    assert pod["metadata"]["labels"] == {"batch.kubernetes.io/controller-uid": uid, "batch.kubernetes.io/job-name": "pi",
                                         "controller-uid": uid, "job-name": "pi"}
    ref = pod["metadata"]["ownerReferences"][0]
    assert (ref["kind"], ref["name"], ref["uid"], ref["controller"]) == ("Job", "pi", uid, True)
    assert pod["spec"]["nodeName"] == "node1" and pod["status"]["phase"] == "Running"


def test_failing_pods_back_off_then_the_job_fails_past_its_backoff_limit():
    sim = simulation(job("bad", command="sleep 5; exit 1", backoffLimit=2), until=200)
    # each pod fails after 5 s; the next one comes after 10 s, then 20 s (the back-off doubles)
    assert [t for t, *_ in events(sim, "SuccessfulCreate")] == [0, 15, 40]
    assert conditions(sim, "bad") == [
        ("FailureTarget", "True", "BackoffLimitExceeded", "Job has reached the specified backoff limit", 45),
        ("Failed", "True", "BackoffLimitExceeded", "Job has reached the specified backoff limit", 45),
    ]
    assert events(sim, "BackoffLimitExceeded") == [
        (45, "BackoffLimitExceeded", "Job/default/bad", "Job has reached the specified backoff limit")]
    assert (status(sim, "Job", "bad")["failed"], status(sim, "Job", "bad")["succeeded"]) == (3, 0)
    # a failed Job has no completionTime: printJob's DURATION goes on from its startTime
    assert "bad    Failed   0/1           3m20s      3m20s" in oc.run(sim.store, "oc get jobs", sim.now).stdout
    pod = sim.store.list("Pod")[0]
    terminated = pod["status"]["containerStatuses"][0]["state"]["terminated"]
    assert (pod["status"]["phase"], terminated["exitCode"], terminated["reason"]) == ("Failed", 1, "Error")


def test_on_failure_restarts_count_against_the_backoff_limit():
    sim = simulation(job("flaky", command="sleep 5; exit 2", restart="OnFailure", backoffLimit=2), until=100)
    assert len(events(sim, "SuccessfulCreate")) == 1  # the containers restart in their pod
    assert [c[:3] for c in conditions(sim, "flaky")][-1] == ("Failed", "True", "BackoffLimitExceeded")
    assert conditions(sim, "flaky")[0][4] == 10  # two restarts: at 5 s and at 10 s


def test_active_deadline_fails_the_job_and_deletes_its_pods():
    sim = simulation(job("slow", command="sleep 600", activeDeadlineSeconds=30), until=120)
    assert events(sim, "DeadlineExceeded") == [
        (60, "DeadlineExceeded", "Job/default/slow", "Job was active longer than specified deadline")]
    assert [(c[0], c[4]) for c in conditions(sim, "slow")] == [("FailureTarget", 30), ("Failed", 60)]
    deleted = events(sim, "SuccessfulDelete")
    assert len(deleted) == 1 and deleted[0][0] == 30 and re.fullmatch(f"Deleted pod: slow-{SUFFIX}", deleted[0][3])
    assert sim.store.list("Pod") == []  # gone after its grace period


def test_ttl_after_finished_deletes_the_job_and_its_pods():
    sim = simulation(job("short", command="sleep 10", ttlSecondsAfterFinished=60), until=69)
    assert sim.store.get("Job", "default", "short") is not None
    sim.run_until(71)
    assert sim.store.get("Job", "default", "short") is None


def test_bare_pod_with_restart_always_runs_on():
    pod = pod_doc("web", node="node1")
    pod["spec"]["containers"][0]["command"] = ["sh", "-c", "sleep 5"]
    sim = simulation(pod, until=100)
    assert sim.store.get("Pod", "default", "web")["status"]["phase"] == "Running"


def test_cron_job_creates_jobs_on_schedule_named_by_minutes_and_keeps_three():
    sim = simulation(cron_job("hello"), until=1500)
    names = [m for _, _, obj, m in events(sim, "SuccessfulCreate") if obj == "CronJob/default/hello"]
    assert names == [f"Created job hello-{MINUTES_AT_EPOCH + n}" for n in (5, 10, 15, 20, 25)]
    assert sorted(j["metadata"]["name"] for j in sim.store.list("Job")) == [
        f"hello-{MINUTES_AT_EPOCH + n}" for n in (10, 15, 20, 25)]  # three that completed, and the active one
    assert [m for *_, m in events(sim, "SawCompletedJob")][:1] == [f"Saw completed job: hello-{MINUTES_AT_EPOCH + 5}, condition: Complete"]
    s = status(sim, "CronJob", "hello")
    assert (s["lastScheduleTime"], s.get("active")) == (1500, [
        {"apiVersion": "batch/v1", "kind": "Job", "name": f"hello-{MINUTES_AT_EPOCH + 25}", "namespace": "default",
         "uid": sim.store.get("Job", "default", f"hello-{MINUTES_AT_EPOCH + 25}")["metadata"]["uid"]}])
    assert s["lastSuccessfulTime"] == 1230
    latest = sim.store.get("Job", "default", f"hello-{MINUTES_AT_EPOCH + 25}")
    assert latest["metadata"]["annotations"] == {"batch.kubernetes.io/cronjob-scheduled-timestamp": "2026-01-01T00:25:00Z"}
    assert oc.run(sim.store, "oc get cronjobs", 1510).stdout.splitlines() == [
        "NAME    SCHEDULE      TIMEZONE   SUSPEND   ACTIVE   LAST SCHEDULE   AGE",
        "hello   */5 * * * *   <none>     False     1        10s             25m",
    ]


def test_cron_job_forbid_waits_and_replace_deletes_the_running_job():
    sim = simulation(cron_job("forbid", command="sleep 400", concurrencyPolicy="Forbid"), until=610)
    assert events(sim, "JobAlreadyActive") == [(600, "JobAlreadyActive", "CronJob/default/forbid",
                                                "Not starting job because prior execution is running and concurrency policy is Forbid")]
    # the prior run ends at 700: the missed 600 run starts then
    sim.run_until(710)
    assert [t for t, _, obj, _ in events(sim, "SuccessfulCreate") if obj.startswith("CronJob/")] == [300, 700]
    sim = simulation(cron_job("replace", command="sleep 400", concurrencyPolicy="Replace"), until=610)
    assert events(sim, "SuccessfulDelete") == [(600, "SuccessfulDelete", "CronJob/default/replace",
                                                f"Deleted job replace-{MINUTES_AT_EPOCH + 5}")]
    assert [j["metadata"]["name"] for j in sim.store.list("Job")] == [f"replace-{MINUTES_AT_EPOCH + 10}"]


def test_cron_job_time_zone_and_suspend():
    # the epoch is 05:30 in Asia/Kolkata (UTC+5:30): the next 01:00 there is 19:30 UTC
    sim = simulation(cron_job("tz", schedule="0 1 * * *", timeZone="Asia/Kolkata"), until=20 * 3600)
    assert [t for t, _, obj, _ in events(sim, "SuccessfulCreate") if obj.startswith("CronJob/")] == [19.5 * 3600]
    job_doc = sim.store.list("Job")[0]
    assert job_doc["metadata"]["annotations"]["batch.kubernetes.io/cronjob-scheduled-timestamp"] == "2026-01-02T01:00:00+05:30"
    sim = simulation(cron_job("off", suspend=True), until=3600)
    assert sim.store.list("Job") == []


def test_cron_job_resumed_after_many_missed_times_starts_the_latest_and_says_so():
    suspended = cron_job("late", schedule="*/1 * * * *", suspend=True)
    resumed = {**suspended, "spec": {**suspended["spec"], "suspend": False}}
    timeline = load_timeline({"apiVersion": "clusterui.io/v1alpha1", "kind": "Timeline", "metadata": {"name": "t"},
                              "steps": [{"at": 7230, "apply": resumed}]})
    sim = Simulation([node_doc("node1"), suspended], schedulers=[(DEFAULT_SCHEDULER, default_policy())], timelines=[timeline])
    sim.run_until(7235)
    assert events(sim, "TooManyMissedTimes") == [(7230, "TooManyMissedTimes", "CronJob/default/late",
                                                  "too many missed start times. Set or decrease .spec.startingDeadlineSeconds "
                                                  "or check clock skew")]
    assert [m for _, _, obj, m in events(sim, "SuccessfulCreate") if obj.startswith("CronJob/")] == [
        f"Created job late-{MINUTES_AT_EPOCH + 120}"]
    assert status(sim, "CronJob", "late")["lastScheduleTime"] == 7200


def test_cron_job_starting_deadline_skips_a_run_it_is_too_late_for():
    sim = simulation(cron_job("strict", command="sleep 400", concurrencyPolicy="Forbid", startingDeadlineSeconds=30), until=1000)
    # the 600 s run waits for the one of 300 s (done at 700 s): by then it is past its deadline
    assert [t for t, _, obj, _ in events(sim, "SuccessfulCreate") if obj.startswith("CronJob/")] == [300, 900]


def test_a_suspended_job_creates_no_pods_until_resumed():
    held = job("held", suspend=True)
    held["metadata"]["uid"] = "held-uid"
    resumed = {**held, "spec": {**held["spec"], "suspend": False}}
    timeline = load_timeline({"apiVersion": "clusterui.io/v1alpha1", "kind": "Timeline", "metadata": {"name": "t"},
                              "steps": [{"at": 50, "apply": resumed}]})
    sim = Simulation([node_doc("node1"), held], schedulers=[(DEFAULT_SCHEDULER, default_policy())], timelines=[timeline])
    sim.run_until(40)
    assert sim.store.list("Pod") == [] and "startTime" not in status(sim, "Job", "held")
    assert conditions(sim, "held") == [("Suspended", "True", "JobSuspended", "Job suspended", 0)]
    assert oc.run(sim.store, "oc get job held", 40).stdout.splitlines()[1].split()[:3] == ["held", "Suspended", "0/1"]
    sim.run_until(100)
    assert conditions(sim, "held")[0] == ("Suspended", "False", "JobResumed", "Job resumed", 50)
    assert [(t, r) for t, r, _, _ in events(sim, "Suspended", "Resumed", "Completed")] == [
        (0, "Suspended"), (50, "Resumed"), (80, "Completed")]
    assert status(sim, "Job", "held")["startTime"] == 50


def test_deleting_a_cronjob_deletes_its_jobs_and_their_pods():
    timeline = load_timeline({"apiVersion": "clusterui.io/v1alpha1", "kind": "Timeline", "metadata": {"name": "t"},
                              "steps": [{"at": 320, "run": "oc delete cronjob hello"}]})
    sim = Simulation([node_doc("node1"), cron_job("hello")], schedulers=[(DEFAULT_SCHEDULER, default_policy())],
                     timelines=[timeline])
    sim.run_until(310)
    assert len(sim.store.list("Job")) == 1 and len(sim.store.list("Pod")) == 1
    sim.run_until(400)
    assert sim.store.list("CronJob") == [] and sim.store.list("Job") == [] and sim.store.list("Pod") == []


def test_pods_that_ran_to_their_end_free_their_node_for_the_scheduler():
    """The scheduler's pod informer leaves Succeeded and Failed pods out: a node full of a
    Job's finished pods takes new ones (node1 has 4 cpu: four 1-cpu pods at a time)."""
    big = job("big", command="sleep 10", completions=8, parallelism=8)
    big["spec"]["template"]["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "1"}}
    sim = simulation(big, until=5)
    assert sum(1 for p in sim.store.list("Pod") if (p.get("spec") or {}).get("nodeName")) == 4
    sim.run_until(100)
    assert status(sim, "Job", "big")["succeeded"] == 8
    assert [c[0] for c in conditions(sim, "big")] == ["SuccessCriteriaMet", "Complete"]


def test_describe_pod_shows_how_its_containers_ended_and_restarted():
    sim = simulation(job("flaky", command="sleep 30; exit 2", restart="OnFailure", backoffLimit=3), until=45)
    name = sim.store.list("Pod")[0]["metadata"]["name"]
    out = oc.run(sim.store, f"oc describe pod {name}", sim.now).stdout
    assert ("    Command:\n      sh\n      -c\n      sleep 30; exit 2\n"
            "    State:          Running\n"
            "      Started:      Thu, 01 Jan 2026 00:00:30 +0000\n"
            "    Last State:     Terminated\n"
            "      Reason:       Error\n"
            "      Exit Code:    2\n"
            "      Started:      Thu, 01 Jan 2026 00:00:00 +0000\n"
            "      Finished:     Thu, 01 Jan 2026 00:00:30 +0000\n"
            "    Ready:          True\n"
            "    Restart Count:  1\n") in out
