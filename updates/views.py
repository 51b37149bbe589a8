"""The update pages: Cluster Settings (version, channel, the channel's update graph with
its known issues, the simulated facts the risks query, the update button) and the update
progress (runlevel lanes, operators, pools, node phases, updated machines, `oc adm upgrade
status`, history, stuck drains). A view parses, calls updates.services or the engine,
renders; writes need the edit permission (scheduling.store.permissions) and CSRF.

The progress page is live without polling: after every committed change of its objects the
broadcast renders `progress_fragment` once (scheduling/pages/views/fragments.FRAGMENTS) and pushes
it to the cluster's websocket group; the page's htmx ws extension swaps it in
(static/js/updates.js refetches it when the socket opens or reopens)."""

from __future__ import annotations

from django.contrib import messages
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from scheduling.pages import board
from scheduling.engine.api.validation import engine_problem, invalid_object_message
from scheduling.engine.api.validation.crd import SCHEMAS as CUSTOM_KINDS
from scheduling.engine.store import Store
from scheduling.models import ClusterVersion, Event, Pod
from scheduling.store.permissions import can_edit, get_cluster_for_user
from scheduling.store.state import cluster_documents
from updates import services
from scheduling.engine.openshift import alerts as AL
from scheduling.engine.openshift import facts as F
from scheduling.engine.openshift import graph as G
from scheduling.engine.openshift import oc_recommend, progress
from scheduling.engine.openshift import printers as OP
from scheduling.engine.openshift.cvo import current_version
from scheduling.engine.openshift.mco import NODE_CONTROLLER
from scheduling.engine.openshift.versions import Version, is_version

PROGRESS_KINDS = ("ClusterVersion", "ClusterOperator", "MachineConfigPool", "MachineConfig", "Node")
# what "why a drain is stuck" also reads, only while the drain controller works on nodes
DRAIN_KINDS = ("PodDisruptionBudget", "DaemonSet")
CHART_W, CHART_H = 600, 160


def _store(cluster, kinds, skipped: list[str] | None = None) -> Store:
    """The cluster's objects of `kinds`; an OpenShift object stored with a field the engine
    cannot read (validation.engine_problem: before its CRD rules, or written around the API)
    is left out, as the reconcile leaves it out, and its reason added to `skipped`."""
    store = Store()
    for doc in cluster_documents(cluster, kinds):  # fresh documents: no copy needed
        problem = engine_problem(doc) if doc.get("kind") in CUSTOM_KINDS else None
        if problem is None:
            store.put(doc)
        elif skipped is not None:
            skipped.append(invalid_object_message(doc, problem))
    return store


def _progress_store(cluster, state: dict, skipped: list[str] | None = None) -> Store:
    """The documents the progress view reads: the update's kinds, and while drains run the
    pods on the drained nodes with the PDBs and DaemonSets that decide whether they go."""
    store = _store(cluster, PROGRESS_KINDS, skipped)
    drains = (state.get(NODE_CONTROLLER) or {}).get("drains") or {}
    if drains:
        for doc in cluster_documents(cluster, DRAIN_KINDS):
            store.put(doc)
        for pod in Pod.objects.filter(cluster=cluster, node_name__in=list(drains)).order_by("pk"):
            store.put(pod.document)
    return store


def _targets(status: dict, include_known_issues: bool) -> list[dict]:
    """The channel's targets for the page: recommended ones, then (when asked) the ones with
    known issues and their risks, newest first."""
    rows = []
    conditional = {(u.get("release") or {}).get("version"): u for u in status.get("conditionalUpdates") or []}
    for r in status.get("availableUpdates") or []:
        u = conditional.get(r.get("version"))
        rows.append({"version": r.get("version"), "image": r.get("image"), "recommended": True,
                     "risks": (u or {}).get("risks") or [], "condition": None})
    if include_known_issues:
        offered = {r["version"] for r in rows}
        for v, u in conditional.items():
            if v in offered:
                continue
            cond = next((c for c in u.get("conditions") or () if c.get("type") == "Recommended"), {})
            rows.append({"version": v, "image": (u.get("release") or {}).get("image"), "recommended": False,
                         "risks": u.get("risks") or [], "condition": cond})
    rows.sort(key=lambda r: Version(r["version"]) if is_version(r["version"] or "") else Version("0.0.0"), reverse=True)
    for r in rows:
        r["dom_id"] = "target-" + (r["version"] or "").replace(".", "-").replace("+", "-")
    return rows


ALERT_KINDS = ("ClusterVersion", "ClusterOperator", "Node", "PodDisruptionBudget")


def _alerts(store: Store, facts: dict, now: float) -> list[dict]:
    """The cluster's alerts for the page: firing ones first, then pending; each with how it
    came (fired by hand, or from the objects) and the key that stops it."""
    rows = []
    for a in AL.alert_data(store, facts, now)["data"]["alerts"]:
        labels = dict(a.get("labels") or {})
        name = labels.pop("alertname", "")
        rows.append({"name": name, "severity": labels.pop("severity", ""), "state": a.get("state"), "since": a.get("activeAt"),
                     "labels": labels, "summary": (a.get("annotations") or {}).get("summary") or "",
                     "description": (a.get("annotations") or {}).get("description") or "",
                     "derived": name in AL.DERIVED, "key": services.alert_key(a)})
    rows.sort(key=lambda r: (r["state"] != "firing", r["derived"], r["name"]))
    return rows


def _recommend_text(store: Store, cluster) -> str:
    """What `oc adm upgrade recommend` prints for this cluster (both streams, in order)."""
    result = oc_recommend.recommend(store, [], cluster.now, files={oc_recommend.FACTS_FILE: [dict(cluster.facts or {})]})
    return "".join(text for _, text in result.lines)


def _operators(store: Store, now: float) -> dict:
    """The ClusterOperators as `oc get co` prints them (the same printer), and how many are
    not Available, Progressing or Degraded, for the folded section's summary."""
    headers, rows = OP.cluster_operators(sorted(store.list("ClusterOperator"), key=lambda d: d["metadata"]["name"]), now, False)
    column = {h: i for i, h in enumerate(headers)}
    return {"headers": headers, "rows": rows,
            "unavailable": sum(r[column["AVAILABLE"]] != "True" for r in rows),
            "progressing": sum(r[column["PROGRESSING"]] == "True" for r in rows),
            "degraded": sum(r[column["DEGRADED"]] == "True" for r in rows)}


def settings_context(request, cluster, **extra) -> dict:
    skipped: list[str] = []
    store = _store(cluster, ALERT_KINDS + ("MachineConfigPool",), skipped)
    cv = store.get("ClusterVersion", "", "version")
    pools = sorted(progress.pools(store), key=lambda p: (p["name"] != "master", p["name"]))
    status = (cv or {}).get("status") or {}
    include = request.GET.get("known_issues") == "1" or request.POST.get("known_issues") == "1"
    facts = F.facts_of(cluster.facts)
    return {
        "cluster": cluster,
        "can_edit": can_edit(request.user),
        "cv": cv,
        "current": current_version(cv) if cv else "",
        "channel": ((cv or {}).get("spec") or {}).get("channel", ""),
        "channels": G.channels(),
        "desired_channels": (status.get("desired") or {}).get("channels") or [],
        "desired_update": ((cv or {}).get("spec") or {}).get("desiredUpdate"),
        "conditions": {c.get("type"): c for c in status.get("conditions") or ()},
        "targets": _targets(status, include),
        "known_issues": include,
        "hidden_known_issues": sum(1 for u in status.get("conditionalUpdates") or []
                                   for c in u.get("conditions") or () if c.get("type") == "Recommended" and c.get("status") != "True"),
        "facts": facts,
        "platforms": F.PLATFORMS,
        "network_types": F.NETWORK_TYPES,
        "capabilities": F.CAPABILITIES,
        "alerts": _alerts(store, facts, cluster.now),
        "alert_presets": AL.PRESETS,
        "alert_names": sorted((set(AL.PRESETS) | set(oc_recommend.KNOWN_ALERTS)) - set(AL.DERIVED)),
        "severities": AL.SEVERITIES,
        "recommend_text": _recommend_text(store, cluster) if cv else "",
        "admin_gates": services.admin_gates(cluster) if cv else [],
        "operators": _operators(store, cluster.now),
        "pools": pools,
        # what the finished control plane still waits on: paused pools not on its version yet,
        # pools still rolling
        "paused_behind": [p["name"] for p in pools if p["paused"] and p["updated"] < p["machineCount"]],
        "rolling": [p["name"] for p in pools if not p["paused"] and p["updated"] < p["machineCount"]],
        "invalid_objects": skipped,
        **extra,
    }


@require_GET
def update_settings(request, pk: int):
    cluster = get_cluster_for_user(request, pk)
    context = settings_context(request, cluster)
    if request.htmx and request.htmx.target == "update-graph":
        return render(request, "updates/settings.html#update-graph", context)
    return render(request, "updates/settings.html", context)


def _back(cluster, request):
    url = reverse("update-settings", args=[cluster.pk])
    if request.POST.get("known_issues") == "1":
        url += "?known_issues=1"
    return redirect(url)


@require_POST
def update_preview(request, pk: int):
    """What requesting the update does: `oc adm upgrade --to` on a copy of the cluster's loop,
    run on until the update is done or the preview's horizon. Nothing is written (viewers
    may preview too); the fragment's button requests the update."""
    cluster = get_cluster_for_user(request, pk)
    version = request.POST.get("version", "")
    flags = {"accept_risks": request.POST.get("accept_risks") == "1", "with_warnings": request.POST.get("with_warnings") == "1",
             "known_issues": request.POST.get("known_issues") == "1"}
    context = {"cluster": cluster, "can_edit": can_edit(request.user), "version": version, **flags,
               "pod_base": reverse("cluster-detail", args=[cluster.pk]) + "pods/"}
    try:
        context["preview"] = services.preview_update(cluster, version, allow_not_recommended=flags["accept_risks"],
                                                     allow_with_warnings=flags["with_warnings"])
    except services.UpdateError as exc:
        context["error"] = str(exc)
    if request.htmx:
        return render(request, "updates/settings.html#update-preview", context)
    return render(request, "updates/settings.html", settings_context(request, cluster, update_preview=context))


@require_POST
def update_request(request, pk: int):
    cluster = get_cluster_for_user(request, pk, write=True)
    version = request.POST.get("version", "")
    try:
        if request.POST.get("action") == "clear":
            text = services.clear_update(cluster)
        else:
            text = services.request_update(cluster, version, allow_not_recommended=request.POST.get("accept_risks") == "1",
                                           allow_with_warnings=request.POST.get("with_warnings") == "1")
    except services.UpdateError as exc:
        messages.error(request, str(exc))
        return _back(cluster, request)
    messages.success(request, text)
    if request.POST.get("action") == "clear":
        return _back(cluster, request)
    return redirect("update-progress", pk=cluster.pk)


@require_POST
def update_channel(request, pk: int):
    cluster = get_cluster_for_user(request, pk, write=True)
    try:
        text = services.set_channel(cluster, request.POST.get("channel", ""))
    except services.UpdateError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, text or f"channel set to {request.POST.get('channel', '')}")
    return _back(cluster, request)


@require_POST
def update_alert(request, pk: int):
    """Fire an alert on the simulated cluster, or stop one fired by hand."""
    cluster = get_cluster_for_user(request, pk, write=True)
    if request.POST.get("action") == "stop":
        if services.stop_alert(cluster, request.POST.get("key", "")):
            messages.success(request, "alert stopped")
        else:
            messages.error(request, "that alert is not firing (any more)")
        return _back(cluster, request)
    try:
        alert = services.fire_alert(cluster, {**request.POST.dict(), "precheck": request.POST.get("precheck") == "1"})
    except services.UpdateError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"alert {alert['labels']['alertname']} firing")
    return _back(cluster, request)


@require_POST
def update_facts(request, pk: int):
    cluster = get_cluster_for_user(request, pk, write=True)
    data = {k: request.POST.get(k) for k in request.POST}
    data["capabilities"] = request.POST.getlist("capabilities")
    try:
        services.set_facts(cluster, data)
    except services.UpdateError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, "cluster characteristics saved; the CVO re-evaluates the update risks")
    return _back(cluster, request)


def _chart(points: list[tuple[float, int]], since: float, now: float, total: int) -> str:
    """The polyline of updated machines over simulated time (SVG coordinates)."""
    span = max(now - since, 1.0)
    top = max(total, 1)
    coords = []
    last = 0
    for t, n in points:
        x = CHART_W * (t - since) / span
        coords.append(f"{x:.1f},{CHART_H - CHART_H * last / top:.1f}")
        coords.append(f"{x:.1f},{CHART_H - CHART_H * n / top:.1f}")
        last = n
    coords.append(f"{CHART_W:.1f},{CHART_H - CHART_H * last / top:.1f}")
    return " ".join(coords)


def live_context(cluster) -> dict:
    """What the live fragment of the progress page shows: the same for every viewer (it is
    rendered once per change and pushed to every open page), so nothing here depends on
    the request; the editor buttons in it are shown by the page (data-can-edit)."""
    state = (cluster.controller_state or {}).get("controllers") or {}
    skipped: list[str] = []
    store = _progress_store(cluster, state, skipped)
    events = [{"time": e.last_time, "reason": e.reason, "kind": e.involved_kind, "name": e.involved_name, "message": e.message}
              for e in Event.objects.filter(cluster=cluster, involved_kind="Node",
                                            reason__in=list(progress.PHASE_EVENTS)).order_by("first_time", "id")]
    view = progress.build(store, cluster.now, events, state, facts=cluster.facts or None)
    span = max(view["now"] - view["since"], 1.0)
    total = sum(p["machineCount"] for p in view["pools"])
    for pool in view["pools"]:
        for node in pool["nodes"]:
            node["segments"] = [{**s, "left": 100 * (s["start"] - view["since"]) / span,
                                 "width": max(100 * (s["end"] - s["start"]) / span, 0.3)}
                                for s in view["timelines"].get(node["name"], [])]
    pod_base = reverse("cluster-detail", args=[cluster.pk]) + "pods/"
    for stuck in view["stuck"]:
        for pod in stuck["pods"]:
            pod["url"] = f"{pod_base}{pod['namespace']}/{pod['name']}/"
    return {"cluster": cluster, "view": view, "chart_points": _chart(view["updated_points"], view["since"], view["now"], total),
            "chart_total": total, "chart_w": CHART_W, "chart_h": CHART_H, "invalid_objects": skipped}


def progress_context(request, cluster, **extra) -> dict:
    pools = sorted(((d.get("metadata") or {}).get("name") or "", (d.get("spec") or {}).get("maxUnavailable", 1))
                   for d in cluster_documents(cluster, ("MachineConfigPool",)))
    return {**live_context(cluster), "can_edit": can_edit(request.user), "clock_text": board.format_clock(cluster.now),
            "pool_actions": ("pause", "resume"), "inject_actions": list(services.INJECTIONS), "pool_settings": pools, **extra}


def progress_fragment(cluster) -> str:
    """The live fragment, out of band, for the broadcast (views/fragments.FRAGMENTS): empty
    for a cluster without a ClusterVersion (no update to show)."""
    if not ClusterVersion.objects.filter(cluster=cluster).exists():
        return ""
    return render_to_string("updates/progress.html#progress-live", {**live_context(cluster), "oob": True})


@require_GET
def update_progress(request, pk: int):
    cluster = get_cluster_for_user(request, pk)
    if request.htmx and request.htmx.target == "progress-live":  # a page catching up (its socket (re)opened)
        return render(request, "updates/progress.html#progress-live", live_context(cluster))
    return render(request, "updates/progress.html", progress_context(request, cluster))


@require_POST
def update_inject(request, pk: int):
    cluster = get_cluster_for_user(request, pk, write=True)
    try:
        text = services.inject(cluster, request.POST.get("kind", ""), request.POST.get("name", ""),
                               request.POST.get("action", ""), request.POST.get("message", ""))
    except services.UpdateError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, text)
    return redirect("update-progress", pk=cluster.pk)


@require_POST
def update_ack(request, pk: int):
    """Acknowledge an admin gate (the admin-acks ConfigMap), as the page's command says."""
    cluster = get_cluster_for_user(request, pk, write=True)
    try:
        text = services.acknowledge_gate(cluster, request.POST.get("gate", ""))
    except services.UpdateError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, text)
    return redirect("update-settings", pk=cluster.pk)


@require_POST
def update_pool_max(request, pk: int):
    """maxUnavailable of a pool: `preview` shows what it does (anyone may), `apply` writes it."""
    pool, text = request.POST.get("pool", ""), request.POST.get("max_unavailable", "")
    if request.POST.get("action") == "apply":
        cluster = get_cluster_for_user(request, pk, write=True)
        try:
            messages.success(request, services.set_max_unavailable(cluster, pool, text))
        except services.UpdateError as exc:
            messages.error(request, str(exc))
        return redirect("update-progress", pk=cluster.pk)
    cluster = get_cluster_for_user(request, pk)
    try:
        preview = services.preview_max_unavailable(cluster, pool, text)
    except services.UpdateError as exc:
        preview = {"pool": pool, "error": str(exc)}
    return render(request, "updates/progress.html", progress_context(request, cluster, pool_preview=preview))


@require_POST
def update_pool(request, pk: int):
    cluster = get_cluster_for_user(request, pk, write=True)
    try:
        text = services.set_pool_paused(cluster, request.POST.get("pool", ""), request.POST.get("action") == "pause")
    except services.UpdateError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, text)
    return redirect("update-progress", pk=cluster.pk)
