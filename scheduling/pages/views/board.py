"""The cluster page: the board of node cards, the pending queue and the event stream, the
sections a page refetches with its viewer's filters, and the out-of-band fragments the
broadcast pushes (registered in fragments.py)."""

from __future__ import annotations

from typing import Iterable

from django.db.models import BooleanField, Count, ExpressionWrapper, Q, TextField
from django.db.models.functions import Cast
from django.http import Http404
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils.html import format_html
from django.views.decorators.http import require_GET

from scheduling.pages import board
from scheduling.models import KIND_MODELS, Cluster
from scheduling.store.permissions import can_edit, get_cluster_for_user
from scheduling.pages.views.clock import clock_context
from scheduling.pages.views.common import page_urls

PAGE = "scheduling/cluster_detail.html"


def summary_context(cluster: Cluster) -> dict:
    counts = []
    for kind, model in KIND_MODELS.items():
        n = model.objects.filter(cluster=cluster).count()
        if n:
            counts.append((kind, n))
    zones = [
        {"name": z["metadata"]["name"], **(z.get("status") or {})}
        for z in (cluster.controller_state or {}).get("zones") or []
    ]
    return {"cluster": cluster, "counts": counts, "pod_phases": pod_statuses(cluster), "zones": zones}


def pod_statuses(cluster: Cluster) -> list[tuple[str, int]]:
    """The pods by what the board shows of them (one query): "Pending" counts exactly the
    pending queue (unbound, not terminating); a pod bound to a node but not started yet is
    "Pending on a node", a pod being deleted "Terminating", the rest by phase."""
    counts: dict[str, int] = {}
    rows = (
        KIND_MODELS["Pod"].objects.filter(cluster=cluster)
        .annotate(m=Cast("metadata", TextField()))
        .annotate(
            unbound=ExpressionWrapper(Q(node_name=""), output_field=BooleanField()),
            # the key as stored JSON text spells it: a substring test, far cheaper than a JSON
            # lookup on every row (a quoted string value cannot match: its quotes are escaped)
            terminating=ExpressionWrapper(Q(m__contains='"deletionTimestamp":'), output_field=BooleanField()),
        )
        .values_list("phase", "unbound", "terminating").annotate(n=Count("pk")).order_by()
    )
    for phase, unbound, terminating, n in rows:
        phase = phase or "Pending"
        if terminating:
            label = "Terminating"
        elif phase == "Pending" and not unbound:
            label = "Pending on a node"
        else:
            label = phase
        counts[label] = counts.get(label, 0) + n
    return sorted(counts.items())


def live_context(request, cluster: Cluster, options: board.BoardOptions) -> dict:
    urls = page_urls(cluster)
    overview = options.overview_for(board.node_count(cluster))
    if overview:  # tiles and pod counts; a node's chips load when its tile is opened
        the_board, pending = board.build_overview(cluster, options, urls["node_base"]), board.pending_queue(cluster, options)
    else:
        the_board, pending = board.build_board(cluster, options)
    return {
        "overview": overview,
        "view_choices": board.VIEW_CHOICES,
        **summary_context(cluster),
        **clock_context(cluster),
        **page_urls(cluster),
        "options": options,
        "board": the_board,
        "pending": pending,
        "events": board.events(cluster, options),
        "can_edit": can_edit(request.user),
        "group_choices": board.GROUP_CHOICES,
        "color_choices": board.COLOR_CHOICES,
    }


@require_GET
def cluster_detail(request, pk: int):
    cluster = get_cluster_for_user(request, pk)
    options = board.BoardOptions.from_query(request.GET)
    context = live_context(request, cluster, options)
    if request.htmx and request.htmx.target == "live":
        return render(request, f"{PAGE}#live", context)
    return render(request, PAGE, context)


@require_GET
def node_card(request, pk: int, name: str):
    cluster = get_cluster_for_user(request, pk)
    options = board.BoardOptions.from_query(request.GET)
    card = board.node_cards(cluster, [name], options)[name]
    if card is None:
        raise Http404(f'nodes "{name}" not found')
    return render(request, f"{PAGE}#node-card", {"cluster": cluster, "card": card, **page_urls(cluster)})


@require_GET
def pending_section(request, pk: int):
    cluster = get_cluster_for_user(request, pk)
    options = board.BoardOptions.from_query(request.GET)
    return render(request, f"{PAGE}#pending", {"cluster": cluster, "pending": board.pending_queue(cluster, options), **page_urls(cluster)})


@require_GET
def overview_meta_section(request, pk: int):
    """The overview's counts and legend with this page's options (a filtered page refetches them)."""
    cluster = get_cluster_for_user(request, pk)
    options = board.BoardOptions.from_query(request.GET)
    overview = board.build_overview(cluster, options, page_urls(cluster)["node_base"])
    return render(request, f"{PAGE}#overview-meta", {"cluster": cluster, "board": overview, "options": options})


@require_GET
def events_section(request, pk: int):
    cluster = get_cluster_for_user(request, pk)
    options = board.BoardOptions.from_query(request.GET)
    return render(request, f"{PAGE}#events", {"cluster": cluster, "events": board.events(cluster, options)})


# --- out-of-band fragments, rendered with the default display options -----------------------------


def summary_fragment(cluster: Cluster) -> str:
    return render_to_string(f"{PAGE}#cluster-summary", {**summary_context(cluster), "oob": True})


def node_card_fragments(cluster: Cluster, names: Iterable[str], gone: set[str]) -> str:
    """The cards of `names`; for a node of `gone` that no longer exists, an element that
    deletes its card."""
    base = {"cluster": cluster, "oob": True, **page_urls(cluster)}
    parts = []
    for name, card in board.node_cards(cluster, names).items():
        if card is not None:
            parts.append(render_to_string(f"{PAGE}#node-card", {**base, "card": card}))
        elif name in gone:
            parts.append(format_html('<div id="{}" hx-swap-oob="delete"></div>', board.node_dom_id(name)))
    return "".join(parts)


def node_tile_fragments(cluster: Cluster, names: Iterable[str]) -> str:
    """The overview tiles of `names` (pages showing the overview swap them by id; pages
    showing cards have no such element and skip them)."""
    node_base = page_urls(cluster)["node_base"]
    parts = []
    for tile in board.node_tiles(cluster, names, node_base).values():
        if tile is not None:
            html = tile.html
            parts.append(html.replace("<a ", '<a hx-swap-oob="true" ', 1))
    return "".join(parts)


def overview_meta_fragment(cluster: Cluster) -> str:
    return render_to_string(f"{PAGE}#overview-meta", {"cluster": cluster, "oob": True, "options": board.BoardOptions(),
                                                       "board": board.overview_counts(cluster)})


def pending_fragment(cluster: Cluster) -> str:
    return render_to_string(f"{PAGE}#pending", {"cluster": cluster, "oob": True, **page_urls(cluster), "pending": board.pending_queue(cluster)})


def events_fragment(cluster: Cluster) -> str:
    return render_to_string(f"{PAGE}#events", {"cluster": cluster, "oob": True, **page_urls(cluster), "events": board.events(cluster)})
