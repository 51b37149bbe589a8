"""Jobs and CronJobs in `oc`: kubectl's printJob and printCronJob against the cases of
kubernetes pkg/printers/internalversion/printers_test.go (TestPrintJob, TestPrintCronJob;
the Go structs become documents, `time.Now().Add(d)` a time d from the pinned clock, and the
columns are v1.35's: STATUS in printJob, TIMEZONE in printCronJob); describeJob and
describeCronJob (kubectl pkg/describe); `oc create job|cronjob` as kubectl create builds
them; jobs and cronjobs in `oc get all`; and the API server's validation of both kinds
(pkg/apis/batch/validation)."""

from __future__ import annotations

import pytest

from scheduling.engine import oc
from scheduling.engine.api.defaults import apply_defaults
from scheduling.engine.api.validation import validate
from scheduling.engine.oc import printers
from scheduling.engine.store import Store
from tests.engine.builders import node_doc

NOW = 400_000_000.0  # a little over 12 years after the epoch: room for a ten-year-old Job
TEN_YEARS = 10 * 365 * 86_400


def job(name, created=NOW + 1.9, completions=2, selector=None, containers=(), **status):
    spec = {"template": {"spec": {"containers": [{"name": n, "image": i} for n, i in containers]}}}
    if completions is not None:
        spec["completions"] = completions
    if selector is not None:
        spec["selector"] = {"matchLabels": selector}
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name, "namespace": "default", "creationTimestamp": created},
            "spec": spec, "status": status}


TWO = (("fake-job-container1", "fake-job-image1"), ("fake-job-container2", "fake-job-image2"))


@pytest.mark.parametrize("doc, wide, cells", [
    pytest.param(job("job1", containers=TWO, selector={"job-label": "job-lable-value"}, succeeded=1), False,
                 ["job1", "Running", "1/2", "", "0s"], id="no generate options"),
    pytest.param(job("job1", containers=TWO, selector={"job-label": "job-label-value"}, succeeded=1), True,
                 ["job1", "Running", "1/2", "", "0s", "fake-job-container1,fake-job-container2",
                  "fake-job-image1,fake-job-image2", "job-label=job-label-value"], id="wide"),
    pytest.param(job("job2", created=NOW - TEN_YEARS, completions=None, succeeded=0), False,
                 ["job2", "Running", "0/1", "", "10y"], id="ten-year age"),
    pytest.param(job("job3", created=NOW - TEN_YEARS, completions=None, succeeded=0, startTime=NOW + 60,
                     completionTime=NOW + 31 * 60), False,
                 ["job3", "Running", "0/1", "30m", "10y"], id="duration"),
    pytest.param(job("job4", created=NOW - TEN_YEARS, completions=None, succeeded=0, startTime=NOW - 20 * 60), False,
                 ["job4", "Running", "0/1", "20m", "10y"], id="running for 20m"),
])
def test_print_job_upstream_cases(doc, wide, cells):
    headers, rows = printers.jobs([doc], NOW, wide)
    assert headers[:5] == ["NAME", "STATUS", "COMPLETIONS", "DURATION", "AGE"]
    assert rows == [cells]


@pytest.mark.parametrize("conditions, deleted, status", [
    ([{"type": "Complete", "status": "True"}], False, "Complete"),
    ([{"type": "Failed", "status": "True"}], False, "Failed"),
    ([{"type": "FailureTarget", "status": "True"}], True, "Terminating"),
    ([{"type": "Suspended", "status": "True"}], False, "Suspended"),
    ([{"type": "FailureTarget", "status": "True"}], False, "FailureTarget"),
    ([{"type": "SuccessCriteriaMet", "status": "True"}], False, "SuccessCriteriaMet"),
    ([{"type": "Suspended", "status": "False"}], False, "Running"),
])
def test_print_job_status_in_printjobs_order(conditions, deleted, status):
    doc = job("j", conditions=conditions)
    if deleted:
        doc["metadata"]["deletionTimestamp"] = NOW
    assert printers.jobs([doc], NOW, False)[1][0][1] == status


def test_print_job_parallel_without_completions():
    doc = job("j", completions=None, succeeded=1)
    doc["spec"]["parallelism"] = 3
    assert printers.jobs([doc], NOW, False)[1][0][2] == "1/1 of 3"


def cron_job(name, created, last=None):
    status = {} if last is None else {"lastScheduleTime": last}
    return {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": name, "namespace": "default", "creationTimestamp": created},
            "spec": {"schedule": "0/5 * * * ?", "suspend": False}, "status": status}


@pytest.mark.parametrize("doc, line", [
    (cron_job("cronjob1", NOW + 1.9, NOW + 1.9), "cronjob1   0/5 * * * ?   <none>   False   0     0s     0s"),
    (cron_job("cronjob2", NOW - 300, NOW - 30), "cronjob2   0/5 * * * ?   <none>   False   0     30s    5m"),
    (cron_job("cronjob3", NOW - 300), "cronjob3   0/5 * * * ?   <none>   False   0     <none>   5m"),
])
def test_print_cron_job_upstream_cases(doc, line):
    """TestPrintCronJob's rows (with the TIMEZONE column), one table per row as upstream prints them."""
    out = oc.run(Store([doc]), f"oc get cronjob {doc['metadata']['name']} --no-headers", NOW).stdout
    assert " ".join(out.split()) == " ".join(line.split())


def test_get_cron_jobs_wide_headers_and_job_template_columns():
    doc = cron_job("c", NOW - 60)
    doc["spec"]["timeZone"] = "Europe/Paris"
    doc["spec"]["jobTemplate"] = {"spec": {"template": {"spec": {"containers": [{"name": "hello", "image": "busybox"}]}}}}
    doc["status"]["active"] = [{"name": "c-1"}, {"name": "c-2"}]
    out = oc.run(Store([doc]), "oc get cj -o wide", NOW).stdout
    assert out.splitlines() == [
        "NAME   SCHEDULE      TIMEZONE       SUSPEND   ACTIVE   LAST SCHEDULE   AGE   CONTAINERS   IMAGES    SELECTOR",
        "c      0/5 * * * ?   Europe/Paris   False     2        <none>          60s   hello        busybox   <none>",
    ]


# --- oc create job / cronjob, get all, describe -------------------------------------------------------------


def test_create_job_builds_what_kubectl_builds():
    store = Store([node_doc("node1")])
    result = oc.run(store, "oc create job pi --image=perl -- perl -Mbignum=bpi -wle 'print bpi(2000)'", 0)
    assert (result.stdout, result.exit_code) == ("job.batch/pi created\n", 0)
    created = result.actions[0].doc
    container = created["spec"]["template"]["spec"]["containers"][0]
    assert (container["name"], container["image"], container["command"]) == ("pi", "perl", ["perl", "-Mbignum=bpi", "-wle", "print bpi(2000)"])
    assert created["spec"]["template"]["spec"]["restartPolicy"] == "Never"
    uid = created["metadata"]["uid"]
    # the API server's defaults and generated selector
    assert (created["spec"]["completions"], created["spec"]["parallelism"], created["spec"]["backoffLimit"],
            created["spec"]["completionMode"], created["spec"]["suspend"], created["spec"]["podReplacementPolicy"]) == (
        1, 1, 6, "NonIndexed", False, "TerminatingOrFailed")
    assert created["spec"]["selector"] == {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}}
    assert created["spec"]["template"]["metadata"]["labels"] == {
        "batch.kubernetes.io/controller-uid": uid, "batch.kubernetes.io/job-name": "pi", "controller-uid": uid, "job-name": "pi"}


@pytest.mark.parametrize("command, message", [
    ("oc create job x", "error: either --image or --from must be specified\n"),
    ("oc create job x --image=a --from=cronjob/c", "error: either --image or --from must be specified\n"),
    ("oc create job x --from=cronjob/nope", 'error: from must be an existing cronjob: cronjobs.batch "nope" not found\n'),
    ("oc create cronjob y --image=a", 'error: required flag(s) "schedule" not set\n'),
    ("oc create cronjob y --image=a --schedule='61 * * * *'",
     'The CronJob "y" is invalid: spec.schedule: Invalid value: "61 * * * *": end of range (61) above maximum (59): 61\n'),
])
def test_create_job_and_cronjob_errors(command, message):
    result = oc.run(Store([node_doc("node1")]), command, 0)
    assert result.exit_code == 1
    assert result.stderr == message


def test_create_cronjob_and_a_job_from_it():
    store = Store([node_doc("node1")])
    result = oc.run(store, "oc create cronjob hello --image=busybox --schedule='*/1 * * * *' -- date", 0)
    assert result.stdout == "cronjob.batch/hello created\n"
    cj = result.actions[0].doc
    assert cj["spec"]["concurrencyPolicy"] == "Allow" and cj["spec"]["suspend"] is False
    assert (cj["spec"]["successfulJobsHistoryLimit"], cj["spec"]["failedJobsHistoryLimit"]) == (3, 1)
    template = cj["spec"]["jobTemplate"]
    assert template["metadata"] == {"name": "hello"}
    assert template["spec"]["template"]["spec"]["restartPolicy"] == "OnFailure"
    assert template["spec"]["template"]["spec"]["containers"][0]["command"] == ["date"]
    store = Store([node_doc("node1"), cj])
    manual = oc.run(store, "oc create job manual --from=cronjob/hello", 30)
    assert manual.stdout == "job.batch/manual created\n"
    doc = manual.actions[0].doc
    assert doc["metadata"]["annotations"] == {"cronjob.kubernetes.io/instantiate": "manual"}
    assert doc["metadata"]["ownerReferences"][0]["kind"] == "CronJob"
    assert doc["metadata"]["ownerReferences"][0]["name"] == "hello"
    assert doc["spec"]["template"]["spec"]["containers"][0]["command"] == ["date"]


def test_get_all_lists_cronjobs_and_jobs():
    docs = [cron_job("nightly", 0), apply_defaults(job("once", created=0, containers=(("c", "busybox"),)))]
    docs[1]["spec"]["template"]["spec"]["restartPolicy"] = "Never"
    out = oc.run(Store(docs), "oc get all", 600).stdout
    assert out.splitlines() == [
        "NAME                    SCHEDULE      TIMEZONE   SUSPEND   ACTIVE   LAST SCHEDULE   AGE",
        "cronjob.batch/nightly   0/5 * * * ?   <none>     False     0        <none>          10m",
        "",
        "NAME             STATUS    COMPLETIONS   DURATION   AGE",
        "job.batch/once   Running   0/2                      10m",
    ]


def test_describe_job():
    doc = apply_defaults({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "pi", "namespace": "default", "uid": "u-1",
                                                                                 "creationTimestamp": 0},
                          "spec": {"template": {"spec": {"restartPolicy": "Never",
                                                         "containers": [{"name": "pi", "image": "perl", "command": ["perl", "-v"]}]}}}})
    doc["status"] = {"startTime": 0, "completionTime": 75, "active": 0, "ready": 0, "succeeded": 1, "failed": 0}
    out = oc.run(Store([doc]), "oc describe job pi", 100).stdout
    assert out.splitlines()[:20] == [
        "Name:             pi",
        "Namespace:        default",
        "Selector:         batch.kubernetes.io/controller-uid=u-1",
        "Labels:           batch.kubernetes.io/controller-uid=u-1",
        "                  batch.kubernetes.io/job-name=pi",
        "                  controller-uid=u-1",
        "                  job-name=pi",
        "Annotations:      <none>",
        "Parallelism:      1",
        "Completions:      1",
        "Completion Mode:  NonIndexed",
        "Suspend:          false",
        "Backoff Limit:    6",
        "Start Time:       Thu, 01 Jan 2026 00:00:00 +0000",
        "Completed At:     Thu, 01 Jan 2026 00:01:15 +0000",
        "Duration:         75s",
        "Pods Statuses:    0 Active (0 Ready) / 1 Succeeded / 0 Failed",
        "Pod Template:",
        "  Labels:  batch.kubernetes.io/controller-uid=u-1",
        "           batch.kubernetes.io/job-name=pi",
    ]
    assert "    Command:\n      perl\n      -v\n" in out


def test_describe_cron_job():
    doc = apply_defaults({"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "hello", "namespace": "default",
                                                                                     "creationTimestamp": 0},
                          "spec": {"schedule": "*/5 * * * *", "jobTemplate": {"spec": {"template": {"spec": {
                              "restartPolicy": "OnFailure", "containers": [{"name": "hello", "image": "busybox"}]}}}}}})
    doc["status"] = {"lastScheduleTime": 300, "active": [{"name": "hello-29453765"}]}
    out = oc.run(Store([doc]), "oc describe cronjob hello", 400).stdout
    lines = out.splitlines()
    assert lines[:14] == [
        "Name:                          hello",
        "Namespace:                     default",
        "Labels:                        <none>",
        "Annotations:                   <none>",
        "Schedule:                      */5 * * * *",
        "Concurrency Policy:            Allow",
        "Suspend:                       False",
        "Time Zone:                     <unset>",
        "Successful Job History Limit:  3",
        "Failed Job History Limit:      1",
        "Starting Deadline Seconds:     <unset>",
        "Selector:                      <unset>",
        "Parallelism:                   <unset>",
        "Completions:                   <unset>",
    ]
    # (the pod template's lines hold no tab: Go's tabwriter aligns the lines after them apart)
    assert lines[-3:] == ["Last Schedule Time:  Thu, 01 Jan 2026 00:05:00 +0000", "Active Jobs:         hello-29453765",
                          "Events:              <none>"]


# --- validation (pkg/apis/batch/validation) ---------------------------------------------------------------------


def _job(restart=None, **spec):
    pod_spec = {"containers": [{"name": "c", "image": "busybox"}]}
    if restart is not None:
        pod_spec["restartPolicy"] = restart
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"}, "spec": {"template": {"spec": pod_spec}, **spec}}


@pytest.mark.parametrize("doc, errors", [
    (_job(), ['spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"']),
    (_job("Always"), ['spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"']),
    (_job("Never"), []),
    (_job("Never", parallelism=-1, backoffLimit=-2),
     ["spec.parallelism: Invalid value: -1: must be greater than or equal to 0",
      "spec.backoffLimit: Invalid value: -2: must be greater than or equal to 0"]),
    (_job("Never", completionMode="Indexed"), ["spec.completions: Required value: when completion mode is Indexed"]),
    (_job("Never", manualSelector=True), ["spec.selector: Required value"]),
])
def test_job_validation(doc, errors):
    assert [str(e) for e in validate(doc)] == errors


def _cron(schedule, **spec):
    return {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "c"},
            "spec": {"schedule": schedule, "jobTemplate": {"spec": {"template": {"spec": {
                "restartPolicy": "OnFailure", "containers": [{"name": "c", "image": "busybox"}]}}}}, **spec}}


@pytest.mark.parametrize("doc, errors", [
    (_cron("*/5 * * * *"), []),
    (_cron("@hourly"), []),
    (_cron("0 0 * * MON-FRI"), []),
    (_cron(""), ["spec.schedule: Required value"]),
    (_cron("* * *"), ['spec.schedule: Invalid value: "* * *": expected exactly 5 fields, found 3: [* * *]']),
    (_cron("*/0 * * * *"), ['spec.schedule: Invalid value: "*/0 * * * *": step of range should be a positive number: */0']),
    (_cron("@fortnightly"), ['spec.schedule: Invalid value: "@fortnightly": unrecognized descriptor: @fortnightly']),
    (_cron("0 25 * * *"), ['spec.schedule: Invalid value: "0 25 * * *": end of range (25) above maximum (23): 25']),
    (_cron("TZ=UTC 0 * * * *"),
     ['spec.schedule: Invalid value: "TZ=UTC 0 * * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead']),
    (_cron("0 * * * *", timeZone="Mars/Olympus"), ['spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus']),
    (_cron("0 * * * *", concurrencyPolicy="Sometimes"),
     ['spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"']),
])
def test_cron_job_validation(doc, errors):
    assert [str(e) for e in validate(doc)] == errors


def test_explain_job_and_cronjob_fields():
    out = oc.run(Store([]), "oc explain cronjob.spec.concurrencyPolicy", 0).stdout
    assert out.splitlines()[:5] == ["GROUP:      batch", "KIND:       CronJob", "VERSION:    v1", "",
                                    "FIELD: concurrencyPolicy <string>"]
    assert '    - "Allow" (default): allows CronJobs to run concurrently; - "Forbid":' in out.splitlines()
    fields = oc.run(Store([]), "oc explain job.spec", 0).stdout
    assert "  template\t<PodTemplateSpec> -required-" in fields.splitlines()
    assert "  backoffLimit\t<integer>" in fields.splitlines()
    assert oc.run(Store([]), "oc explain jobs.status.conditions.type", 0).exit_code == 0


def _describe(doc, command):
    return oc.run(Store([doc]), command, 0).stdout


def _bare_job(**spec):
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "bar", "namespace": "foo"}, "spec": spec}


@pytest.mark.parametrize("spec, status, want, dont_want", [
    pytest.param({}, {}, [], ["Completed Indexes:", "Suspend:", "Backoff Limit:", "TTL Seconds After Finished:"], id="empty job"),
    pytest.param({"completionMode": "Indexed"}, {}, ["Completed Indexes:  <none>"], [], id="no completed indexes"),
    pytest.param({"completionMode": "Indexed"}, {"completedIndexes": "0-5,7,9,10,12,13,15,16,18,20,21,23,24,26,27,29,30,32"},
                 ["Completed Indexes:  0-5,7,9,10,12,13,15,16,18,20,21,23,24,26,27,29,30,32"], [], id="few completed indexes"),
    pytest.param({"completionMode": "Indexed"},
                 {"completedIndexes": "0-5,7,9,10,12,13,15,16,18,20,21,23,24,26,27,29,30,32-34,36,37"},
                 ["Completed Indexes:  0-5,7,9,10,12,13,15,16,18,20,21,23,24,26,27,29,30,32-34,..."], [],
                 id="too many completed indexes"),
    pytest.param({"suspend": True, "ttlSecondsAfterFinished": 123, "backoffLimit": 1}, {},
                 ["Suspend:                     true", "TTL Seconds After Finished:  123", "Backoff Limit:               1"], [],
                 id="suspend set to true"),
    pytest.param({"suspend": False}, {}, ["Suspend:        false"], [], id="suspend set to false"),
])
def test_describe_job_upstream_cases(spec, status, want, dont_want):
    """kubectl pkg/describe TestDescribeJob."""
    doc = {**_bare_job(**spec), "status": status}
    out = _describe(doc, "oc describe job bar -n foo")
    assert all(w in out for w in want), out
    assert not any(d in out for d in dont_want), out


def test_describe_cron_job_upstream_case():
    """kubectl pkg/describe TestDescribeCronJob ("standard cronjob")."""
    doc = {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "bar", "namespace": "foo"},
           "spec": {"schedule": "*/5 * * * *", "concurrencyPolicy": "Forbid", "suspend": False, "timeZone": "America/New_York",
                    "successfulJobsHistoryLimit": 3, "failedJobsHistoryLimit": 1, "startingDeadlineSeconds": 200,
                    "jobTemplate": {"spec": {"selector": {}, "parallelism": 4, "completions": 5, "activeDeadlineSeconds": 400,
                                             "template": {"spec": {}}}}}}
    out = _describe(doc, "oc describe cronjob bar -n foo")
    for expect in ["Name:                          bar", "Namespace:                     foo",
                   "Schedule:                      */5 * * * *", "Concurrency Policy:            Forbid",
                   "Suspend:                       False", "Time Zone:                     America/New_York",
                   "Starting Deadline Seconds:     200", "Successful Job History Limit:  3",
                   "Failed Job History Limit:      1", "Starting Deadline Seconds:     200s",
                   "Parallelism:                   4", "Completions:                   5",
                   "Active Deadline Seconds:       400s", "Last Schedule Time:  <unset>", "Active Jobs:         <none>",
                   "Events:              <none>"]:
        assert expect in out, (expect, out)
