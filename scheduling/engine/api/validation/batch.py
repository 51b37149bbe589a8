"""The batch group: Job and CronJob (pkg/apis/batch/validation, ValidateJob and
ValidateCronJobCreate), as the API server runs them on a create: after the job strategy
generated the selector (unless spec.manualSelector), so a Job without a selector is not
refused for lacking one.
"""

from __future__ import annotations

from scheduling.engine.api import cron
from scheduling.engine.api.validation.common import (
    label_selector_as_selector,
    selector_mismatch,
    validate_label_selector,
    validate_nonnegative,
    validate_object_meta,
    validate_pod_template_spec,
)
from scheduling.engine.api.validation.field import (
    Errors,
    GoValue,
    dict_at,
    get_at,
    go_label_selector,
    invalid,
    name_is_dns_subdomain,
    not_supported,
    required_value,
    str_at,
)

RESTART_POLICIES = ("OnFailure", "Never")
CONCURRENCY_POLICIES = ("Allow", "Forbid", "Replace")
COMPLETION_MODES = ("NonIndexed", "Indexed")
POD_REPLACEMENT_POLICIES = ("TerminatingOrFailed", "Failed")
CRONJOB_NAME_MAX = 52  # 63 less the controller's `-<minutes>` suffix of 11 characters


def _job_spec(spec: dict, path: str, errs: Errors) -> None:
    """validateJobSpec: the counts, the completion mode, the template and its restartPolicy."""
    for field in ("parallelism", "completions", "activeDeadlineSeconds", "backoffLimit", "ttlSecondsAfterFinished"):
        validate_nonnegative(get_at(spec, field), f"{path}.{field}", errs)
    mode = get_at(spec, "completionMode")
    if mode is not None:
        if mode not in COMPLETION_MODES:
            errs.append(not_supported(f"{path}.completionMode", mode, COMPLETION_MODES))
        if mode == "Indexed" and get_at(spec, "completions") is None:
            errs.append(required_value(f"{path}.completions", "when completion mode is Indexed"))
    replacement = get_at(spec, "podReplacementPolicy")
    if replacement is not None and replacement not in POD_REPLACEMENT_POLICIES:
        errs.append(not_supported(f"{path}.podReplacementPolicy", replacement, POD_REPLACEMENT_POLICIES))
    template = dict_at(spec, "template")
    validate_pod_template_spec(template, f"{path}.template", errs)
    restart = str_at(dict_at(template, "spec"), "restartPolicy")
    if restart in ("", "Always"):
        errs.append(required_value(f"{path}.template.spec.restartPolicy", 'valid values: "OnFailure", "Never"'))
    elif restart not in RESTART_POLICIES:
        errs.append(not_supported(f"{path}.template.spec.restartPolicy", restart, RESTART_POLICIES))


def validate_job(doc: dict, errs: Errors) -> None:
    """ValidateJob: metadata (a DNS subdomain), the spec; the selector (given with
    manualSelector, generated otherwise) must select the template's labels."""
    validate_object_meta(dict_at(doc, "metadata"), True, name_is_dns_subdomain, errs)
    spec = dict_at(doc, "spec")
    _job_spec(spec, "spec", errs)
    if not get_at(spec, "manualSelector"):
        return  # generateSelector puts the selector and the labels it selects
    selector = get_at(spec, "selector")
    if selector is None:
        errs.append(required_value("spec.selector"))
        return
    validate_label_selector(selector, "spec.selector", errs)
    converted = label_selector_as_selector(selector)
    labels = get_at(dict_at(dict_at(spec, "template"), "metadata"), "labels")
    if converted is not None and not converted.matches(labels if isinstance(labels, dict) else {}):
        errs.append(selector_mismatch(dict_at(spec, "template")))


def validate_cron_job(doc: dict, errs: Errors) -> None:
    """ValidateCronJobCreate: metadata, the schedule (robfig/cron's ParseStandard), the time
    zone, the concurrency policy, the job template (its selector is generated), the limits,
    and a name short enough for the Jobs' names."""
    meta = dict_at(doc, "metadata")
    validate_object_meta(meta, True, name_is_dns_subdomain, errs)
    spec = dict_at(doc, "spec")
    schedule = get_at(spec, "schedule")
    if not schedule:
        errs.append(required_value("spec.schedule"))
    else:
        try:
            cron.parse(str(schedule))
        except cron.CronError as exc:
            errs.append(invalid("spec.schedule", str(schedule), str(exc)))
        if "TZ" in str(schedule):
            errs.append(invalid("spec.schedule", str(schedule), "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"))
    validate_nonnegative(get_at(spec, "startingDeadlineSeconds"), "spec.startingDeadlineSeconds", errs)
    time_zone = get_at(spec, "timeZone")
    if time_zone is not None:
        _time_zone(str(time_zone), errs)
    policy = get_at(spec, "concurrencyPolicy")
    if policy is not None:  # (defaulted to Allow before validation: an explicit "" is refused)
        if policy == "":
            errs.append(required_value("spec.concurrencyPolicy"))
        elif policy not in CONCURRENCY_POLICIES:
            errs.append(not_supported("spec.concurrencyPolicy", policy, CONCURRENCY_POLICIES))
    job_spec = dict_at(dict_at(spec, "jobTemplate"), "spec")
    _job_spec(job_spec, "spec.jobTemplate.spec", errs)
    if get_at(job_spec, "selector") is not None:
        errs.append(invalid("spec.jobTemplate.spec.selector", go_label_selector(get_at(job_spec, "selector")),
                            "`selector` will be auto-generated"))
    if get_at(job_spec, "manualSelector"):
        errs.append(not_supported("spec.jobTemplate.spec.manualSelector", GoValue("true"), ("nil", "false")))
    for field in ("successfulJobsHistoryLimit", "failedJobsHistoryLimit"):
        validate_nonnegative(get_at(spec, field), f"spec.{field}", errs)
    name = str_at(meta, "name")
    if len(name) > CRONJOB_NAME_MAX:
        errs.append(invalid("metadata.name", name, f"must be no more than {CRONJOB_NAME_MAX} characters"))


def _time_zone(name: str, errs: Errors) -> None:
    """validateTimeZone."""
    if not name:
        errs.append(invalid("spec.timeZone", name, "timeZone must be nil or non-empty string"))
        return
    if name.lower() == "local":
        errs.append(invalid("spec.timeZone", name, "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones"))
    problem = cron.time_zone_error(name)
    if problem is not None:
        errs.append(invalid("spec.timeZone", name, problem))
