"""Why a pod is where it is (or Pending) on a cluster that runs the OpenShift 4 scheduler:
the scheduling framework's plugins instead of 1.11's predicates and priorities.

The same PodExplanation as engine 1.11's explainer (scheduling.pages.explain), read by the
same page: per node, every Filter plugin's verdict (the framework stops at the first
rejecting plugin, marked; the ones after it were not run by the scheduler, shown greyed),
the status code (UnschedulableAndUnresolvable: preemption cannot help there); per scored
node, every Score plugin's 0-100 score after NormalizeScore, its weight and the weighted
total; the FailedScheduling message with its `preemption:` part; the topology domain
counts behind a PodTopologySpread verdict.
"""

from __future__ import annotations

import random
from typing import Mapping

from scheduling.engine.framework import interface as fw
from scheduling.engine.framework.interface import CycleState, Handle
from scheduling.engine.framework.runtime import Framework, Profile, schedule_one
from scheduling.engine.scheduler.cluster import ClusterState
from scheduling.engine.scheduler.scheduler import scheduler_not_running_message
from scheduling.pages.explain import (
    MAX_FILTER_ROWS,
    Candidate,
    Cell,
    FilterRow,
    PodExplanation,
    PreemptionView,
    ScoreCell,
    ScoreRow,
    nominated_pods,
    find_pod,
    infos_without,
    reason_groups,
    taint_fixes,
    top_score_rows,
    unbound_copy,
    untolerated_taints,
)

TAINT_PLUGIN = "TaintToleration"


def explain_pod(state: ClusterState, profile: Profile, key: str, *, seed: int = 0, preemption: bool = True,
                namespace_labels: Mapping[str, Mapping[str, str]] | None = None) -> PodExplanation:
    """The explanation of pod `key` ("<ns>/<name>") under `profile`; KeyError when it is not in `state`."""
    original = find_pod(state, key)
    if original is None:
        raise KeyError(key)
    pod = unbound_copy(original)
    infos = infos_without(state, {key})
    nominated = nominated_pods(state, pod)
    handle = Handle(state=state, node_infos=infos, nominated=nominated, namespace_labels=namespace_labels or {})
    framework = Framework(profile, handle)
    result, _ = schedule_one(framework, pod, random.Random(seed), explain=True, preemption=preemption)

    filter_plugins = [p.name for p in framework.points["filter"]]
    rows = _filter_rows(framework, pod, infos, result, filter_plugins)
    rows.sort(key=lambda r: r.fits)
    failing = {r.node: r.scheduler_reasons for r in rows if r.scheduler_reasons}
    tainted = [name for name, st in result.statuses.items() if st.plugin == TAINT_PLUGIN]
    untolerated = {name: tuple(str(t) for t in untolerated_taints(infos[name].node.taints, pod.tolerations))
                   for name in tainted}
    more = max(0, len(rows) - MAX_FILTER_ROWS)

    weights = tuple(framework.profile.plugins.get("score", ()))
    score_rows = []
    for node, scores in result.scores.items():
        cells = tuple(ScoreCell(int(scores.get(name, 0)), weight, skipped=name not in scores) for name, weight in weights)
        score_rows.append(ScoreRow(node, cells, int(scores.get("total", 0)), node == result.node,
                                   node in result.tied and len(result.tied) > 1))
    score_rows.sort(key=lambda r: -r.total)
    score_rows, more_scores = top_score_rows(score_rows, original.node_name)

    runs = pod.scheduler_name == profile.scheduler_name
    message = result.message
    if not runs and not original.node_name:
        message = scheduler_not_running_message(pod.scheduler_name)
    view = _preemption(framework, result, preemption) if result.node is None and result.statuses else None
    return PodExplanation(
        pod=original,
        current_node=original.node_name,
        predicates=tuple(filter_plugins),
        always_check_all=False,
        filter_rows=rows[:MAX_FILTER_ROWS],
        more_rows=more,
        priorities=weights,
        score_rows=score_rows,
        more_score_rows=more_scores,
        winner=result.node,
        tied=result.tied if len(result.tied) > 1 else (),
        prioritized=result.prioritized,
        message=message,
        preemption=view,
        scheduler_runs=runs,
        reasons=reason_groups(failing),
        taint_fixes=taint_fixes(state, pod, tainted),
        untolerated=untolerated,
        node_count=len(infos),
        framework=True,
        domain_counts=result.domain_counts,
        evaluated=len(result.evaluated),
    )


def _filter_rows(framework: Framework, pod, infos, result, plugins: list[str]) -> list[FilterRow]:
    """Each node's cells: every Filter plugin run on its own after PreFilter (a PreFilter
    rejection fills the row), the plugin the framework stopped at marked."""
    cs = CycleState()
    pre = framework.run_pre_filter(cs, pod, list(infos.values()))
    rows = []
    for name, info in infos.items():
        status = result.statuses.get(name, fw.OK)
        cells = []
        stopped = False
        for plugin in plugins:
            if not pre.is_success:
                cell = Cell(pre.reasons if plugin == pre.plugin else (), skipped=plugin != pre.plugin,
                            stopped=plugin == pre.plugin, code=pre.code if plugin == pre.plugin else "")
            elif plugin in cs.skip_filter:
                cell = Cell((), skipped=True)
            else:
                verdict = framework.plugin(plugin).filter(cs, pod, info)
                is_stop = not stopped and plugin == status.plugin and not status.is_success
                detail = ""
                if plugin == TAINT_PLUGIN and not verdict.is_success:
                    detail = ", ".join(str(t) for t in untolerated_taints(info.node.taints, pod.tolerations))
                cell = Cell(verdict.reasons if not verdict.is_success else (), stopped=is_stop, skipped=stopped,
                            detail=detail, code="" if verdict.is_success else verdict.code)
                stopped = stopped or is_stop
            cells.append(cell)
        rows.append(FilterRow(name, tuple(cells), tuple(status.reasons) if not status.is_success else ()))
    if not pre.is_success:
        return rows
    return rows


def _preemption(framework: Framework, result, enabled: bool) -> PreemptionView:
    if not enabled or framework.profile.disable_preemption:
        return PreemptionView(False, "preemption is disabled for this cluster's scheduler")
    unhelpful = [(node, st.message) for node, st in result.statuses.items() if st.code == fw.UNRESOLVABLE]
    outcome = result.preemption
    if outcome is None:
        return PreemptionView(False, result.postfilter_message.removeprefix("preemption: ").rstrip(".")
                              or "preemption was not tried", unhelpful=unhelpful)
    candidates = [
        Candidate(node, tuple((v.key, v.priority) for v in victims), outcome.pdb_violations.get(node, 0),
                  node == outcome.nominated_node)
        for node, victims in outcome.candidates.items()
    ]
    reason = "" if outcome.nominated_node else (result.postfilter_message.removeprefix("preemption: ").rstrip(".") or
                                                 "no node where removing pods could help")
    return PreemptionView(True, reason, candidates, outcome.nominated_node, unhelpful)
