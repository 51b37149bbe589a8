"""The cluster board as plain data: what each node card, pod chip and pending row shows.

Views, htmx responses and the websocket broadcast all render these view models with the
same named partials of templates/scheduling/cluster_detail.html. Everything is read with
one query per kind (nodes, pods, events), never per node, so the board stays cheap at
hundreds of nodes and thousands of pods; documents are read straight from the stored JSON
without building engine objects, except for the pending pods whose FailedScheduling
message is computed on demand (scheduling.pages.explain).

The display options (search, namespace, node label selector, grouping, colouring, large
type, event filters) come from GET parameters so that a view can be shared by URL.
"""

from __future__ import annotations

import dataclasses
import json
from html import escape as _esc
import zlib
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable, Mapping
from urllib.parse import urlencode

from django.db.models import Count, Q, TextField
from django.db.models.functions import Cast
from django.utils.safestring import mark_safe

from scheduling.engine.api import selectors
from scheduling.engine.api.objects import CPU, MEMORY, PODS, Resource, Taint
from scheduling.engine.timeline import sim_time_text
from scheduling.engine.api.selectors import Selector
from scheduling.engine.api.quantity import QuantityError
from scheduling.pages import explain
from scheduling.models import Cluster, Event, Node, Pod

# How many pod chips a node card shows before it aggregates the rest into "+N more".
CHIPS_PER_NODE = 12
PENDING_ROWS = 50
EVENT_ROWS = 100
# Pending pods whose message is computed with the engine when no condition carries one:
# at most this many (pods x nodes) predicate checks per render; beyond, the row links to
# the explainer instead.
PENDING_MESSAGE_BUDGET = 5000
PALETTE_SIZE = 12
# Above this many nodes the board opens in the overview (small tiles, pods counted per node,
# a node's chips loaded when its tile is opened); `view=cards|overview` chooses explicitly.
OVERVIEW_THRESHOLD = 150
VIEW_CHOICES = (("", "automatic"), ("cards", "node cards"), ("overview", "overview (tiles)"))

ZONE_LABELS = ("failure-domain.beta.kubernetes.io/zone", "topology.kubernetes.io/zone", "zone")
ROLE_PREFIX = "node-role.kubernetes.io/"
GROUP_CHOICES = (("zone", "zone"), ("role", "node role"), ("none", "no grouping"))
COLOR_CHOICES = (("namespace", "namespace"), ("owner", "owner"), ("priority", "priority"))
EFFECT_CLASSES = {"NoSchedule": "noschedule", "PreferNoSchedule": "prefer", "NoExecute": "noexecute"}
PRESSURE_CONDITIONS = ("MemoryPressure", "DiskPressure", "PIDPressure", "OutOfDisk", "NetworkUnavailable")


# --- display options (GET parameters) ----------------------------------------------------


@dataclass(frozen=True)
class BoardOptions:
    q: str = ""  # substring of node or pod names
    ns: str = ""  # pods of this namespace only
    label: str = ""  # node label selector
    group: str = "zone"  # zone | role | none | any label key
    color: str = "namespace"  # namespace | owner | priority
    big: bool = False  # large type (projector)
    ev: str = ""  # event filter: substring of reason, object or message
    evtype: str = ""  # event filter: Normal | Warning
    view: str = ""  # "" (automatic: overview above OVERVIEW_THRESHOLD nodes) | cards | overview
    selector: Selector = Selector()
    selector_error: str = ""

    FIELDS = ("q", "ns", "label", "group", "color", "big", "ev", "evtype", "view")

    @classmethod
    def from_query(cls, params: Mapping[str, str]) -> "BoardOptions":
        def get(name: str) -> str:
            return (params.get(name) or "").strip()[:200]

        color = get("color")
        evtype = get("evtype")
        view = get("view")
        label = get("label")
        selector, error = Selector(), ""
        try:
            selector = selectors.parse(label)
        except selectors.SelectorError as exc:
            error = str(exc)
        return cls(
            q=get("q"),
            ns=get("ns"),
            label=label,
            group=get("group") or "zone",
            color=color if color in dict(COLOR_CHOICES) else "namespace",
            big=get("big") in ("1", "on", "true"),
            ev=get("ev"),
            evtype=evtype if evtype in ("Normal", "Warning") else "",
            view=view if view in dict(VIEW_CHOICES) else "",
            selector=selector,
            selector_error=error,
        )

    def overview_for(self, node_count: int) -> bool:
        """Whether the board shows the overview of tiles for a cluster of `node_count` nodes."""
        if self.view:
            return self.view == "overview"
        return node_count > OVERVIEW_THRESHOLD

    @property
    def filters_pods(self) -> bool:
        return bool(self.q or self.ns)

    @property
    def filters_nodes(self) -> bool:
        return bool(self.q or self.selector)

    @property
    def filters_events(self) -> bool:
        return bool(self.ev or self.evtype)

    @property
    def cards_query(self) -> str:
        """The query string of this view with the node cards chosen (the overview's toggle)."""
        return dataclasses.replace(self, view="cards").querystring

    @property
    def overview_query(self) -> str:
        return dataclasses.replace(self, view="overview").querystring

    @property
    def querystring(self) -> str:
        """The options as a query string ("" for the defaults), for links and refetches."""
        defaults = BoardOptions()
        pairs = []
        for name in self.FIELDS:
            v = getattr(self, name)
            if v != getattr(defaults, name):
                pairs.append((name, "1" if v is True else v))
        return ("?" + urlencode(pairs)) if pairs else ""


# --- quantities ---------------------------------------------------------------------------


SHOWN_RESOURCES = (CPU, MEMORY, PODS)


def _add(total: Resource, amounts: Mapping | None) -> None:
    """The engine's accumulation (Resource.add_list, Resource.add) of the amounts a card
    shows. The store holds validated documents; should a stray amount not parse, it counts
    0 rather than breaking the board."""
    for name, amount in (amounts or {}).items():
        if name in SHOWN_RESOURCES:
            total.add(_amount(name, amount if isinstance(amount, (str, int, float)) else str(amount)))


@lru_cache(maxsize=4096)
def _amount(name: str, amount) -> Resource:
    """One amount as a Resource (a board reads the same few quantities thousands of times)."""
    one = Resource()
    try:
        one.add_list({name: amount})
    except (QuantityError, ValueError, TypeError):
        pass
    return one


def format_cpu(milli: int) -> str:
    """Cores, as a person reads them: 2, 0.25, 31.5."""
    text = f"{milli / 1000:.3f}".rstrip("0").rstrip(".")
    return text or "0"


def format_bytes(n: int) -> str:
    for unit, size in (("Ti", 2**40), ("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10)):
        if abs(n) >= size:
            amount = n / size
            text = f"{amount:.1f}".rstrip("0").rstrip(".")
            return f"{text}{unit}"
    return str(n)


def format_duration(seconds: float) -> str:
    """kubectl's ShortHumanDuration (the AGE and LAST SEEN columns)."""
    s = int(seconds)
    if s < -1:
        return "<invalid>"
    if s < 0:
        return "0s"
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m"
    if s < 86400:
        return f"{s // 3600}h"
    if s < 86400 * 365:
        return f"{s // 86400}d"
    return f"{s // (86400 * 365)}y"


def format_clock(seconds: float) -> str:
    """Simulated time as it reads on the clock: 0:00:00, 1d 2:03:04."""
    s = int(seconds)
    days, s = divmod(s, 86400)
    hours, s = divmod(s, 3600)
    minutes, s = divmod(s, 60)
    text = f"{hours}:{minutes:02d}:{s:02d}"
    return f"{days}d {text}" if days else text


# --- view models --------------------------------------------------------------------------


def _palette(text: str) -> int:
    return zlib.crc32(text.encode()) % PALETTE_SIZE


def priority_band(priority: int) -> int:
    """0 below zero, 1 zero (the default), 2 user classes, 3 system-critical classes."""
    if priority < 0:
        return 0
    if priority == 0:
        return 1
    if priority < 1_000_000_000:
        return 2
    return 3


def pod_dom_id(namespace: str, name: str) -> str:
    return f"pod-{namespace}-{name}"


def node_dom_id(name: str) -> str:
    return f"node-{name}"


@dataclass(frozen=True)
class PodChip:
    namespace: str
    name: str
    node: str
    phase: str
    terminating: bool
    priority: int
    owner: str  # "Kind/name" of the controller, "" for a bare pod
    ns_color: int
    owner_color: int
    priority_band: int
    request_cpu: int  # millicores, regular containers
    request_memory: int
    html: str = ""  # the rendered chip (chip_html), kept with the chip

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def dom_id(self) -> str:
        return pod_dom_id(self.namespace, self.name)

    @property
    def status(self) -> str:
        return "Terminating" if self.terminating else self.phase

    @property
    def title(self) -> str:
        parts = [self.status]
        if self.owner:
            parts.append(self.owner.replace("/", " ", 1))
        parts.append(f"priority {self.priority}")
        parts.append(f"{format_cpu(self.request_cpu)} cpu, {format_bytes(self.request_memory)}")
        return " · ".join(parts)


def chip_html(chip: PodChip) -> str:
    """A pod chip: the one fragment built in Python rather than in a template partial,
    because a board shows thousands of them; every value is escaped (html.escape, what
    Django's escape does, without its lazy-string wrapper: ten times faster here). A
    button, keyboard-reachable, that opens the pod's explainer (static/js/clusterui.js)."""
    css = f"pod c{chip.ns_color} o{chip.owner_color} p{chip.priority_band}" + (" terminating" if chip.terminating else "")
    if chip.phase in ("Succeeded", "Failed"):  # a Job's pod that ran to its end
        css += f" finished {chip.phase.lower()}"
    return mark_safe(
        f'<button type="button" class="{css}" id="{_esc(chip.dom_id)}" data-pod="{_esc(chip.key)}" '
        f'title="{_esc(chip.title)}">{_esc(chip.name)}</button>'
    )


@dataclass
class TaintChip:
    key: str
    value: str
    effect: str

    @property
    def text(self) -> str:
        return str(Taint(self.key, self.value, self.effect))

    @property
    def css(self) -> str:
        return EFFECT_CLASSES.get(self.effect, "other")


@dataclass
class Bar:
    label: str
    used: int
    total: int
    text: str

    @property
    def percent(self) -> int:
        if self.total <= 0:
            return 100 if self.used else 0
        return round(100 * self.used / self.total)

    @property
    def width(self) -> int:
        return min(100, self.percent)

    @property
    def over(self) -> bool:
        return self.used > self.total


@dataclass
class NodeCard:
    name: str
    labels: dict
    roles: list[str]
    ready: str  # "True" | "False" | "Unknown"
    unschedulable: bool
    pressures: list[str]
    taints: list[TaintChip]
    bars: list[Bar]
    chips: list[PodChip]  # shown (matching, capped)
    pod_count: int  # every pod bound to the node
    more: int  # matching pods not shown as chips
    hidden_by_filter: int  # pods hidden by the namespace/search filter
    visible: bool = True
    filtered: bool = False  # rendered for a filtered view (refetched instead of swapped)

    @property
    def dom_id(self) -> str:
        return node_dom_id(self.name)

    @property
    def status(self) -> str:
        """The STATUS column of `oc get nodes`."""
        text = "Ready" if self.ready == "True" else "NotReady"
        if self.unschedulable:
            text += ",SchedulingDisabled"
        return text

    @property
    def labels_hash(self) -> str:
        """A fingerprint of the labels: a page compares it to notice a node that may have
        moved to another group."""
        text = json.dumps(self.labels, sort_keys=True, separators=(",", ":"))
        return f"{zlib.crc32(text.encode()):08x}"

    @property
    def roles_text(self) -> str:
        return ",".join(self.roles) or "<none>"

    @property
    def zone_group(self) -> str:
        """Its group when the board is grouped by zone: a page compares it (data-zone) to
        notice a node that moved to another group, without refetching for other labels."""
        return group_value(self.labels, "zone")

    @property
    def role_group(self) -> str:
        """Its group when the board is grouped by role (data-roles)."""
        return group_value(self.labels, "role")


@dataclass
class Group:
    value: str
    title: str
    cards: list[NodeCard] = field(default_factory=list)

    @property
    def visible_count(self) -> int:
        return sum(1 for c in self.cards if c.visible)


@dataclass
class PendingRow:
    chip: PodChip
    scheduler: str
    nominated: str
    message: str  # FailedScheduling text (condition or computed), "" when unknown
    message_source: str  # "condition" | "computed" | ""
    would_schedule_to: str = ""  # not attempted yet, but it fits there now
    victims: list[PodChip] = field(default_factory=list)  # preempted for it: terminating on its nominated node


@dataclass
class Pending:
    rows: list[PendingRow]
    total: int  # pending pods (before the filter)
    matching: int  # after the filter
    filtered: bool = False

    @property
    def more(self) -> int:
        return self.matching - len(self.rows)


@dataclass
class EventRow:
    pk: int
    namespace: str
    last_seen: str
    type: str
    reason: str
    object: str
    message: str
    count: int
    source: str
    at: str = ""  # the simulated time, as the scenarios write it: t=105 s
    clock: str = ""  # the same on the clock: 0:01:45


@dataclass
class Events:
    rows: list[EventRow]
    filtered: bool = False


@dataclass
class Board:
    groups: list[Group]
    node_count: int
    visible_nodes: int
    pod_count: int
    namespaces: list[str]
    group_keys: list[str]


# --- reading documents -----------------------------------------------------------------------


def _roles(labels: Mapping[str, str]) -> list[str]:
    roles = []
    for key, val in labels.items():
        if key.startswith(ROLE_PREFIX):
            roles.append(key[len(ROLE_PREFIX):])
        elif key == "kubernetes.io/role" and val:
            roles.append(val)
    return sorted(set(r for r in roles if r))


def group_value(labels: Mapping[str, str], group: str) -> str:
    if group == "none":
        return ""
    if group == "zone":
        for key in ZONE_LABELS:
            if labels.get(key):
                return labels[key]
        return ""
    if group == "role":
        return ",".join(_roles(labels))
    return labels.get(group, "")


def group_title(value: str, group: str) -> str:
    if group == "none":
        return "All nodes"
    if value:
        return value
    return {"zone": "no zone", "role": "no role"}.get(group, f"no {group} label")


def _container_requests(spec: Mapping) -> tuple[int, int]:
    """(milli cpu, memory) the pod's regular containers request: what it adds to its node
    (as engine.api.objects.Pod.container_request counts it)."""
    total = Resource()
    for c in spec.get("containers") or ():
        _add(total, (c.get("resources") or {}).get("requests"))
    return total.milli_cpu, total.memory


def _owner(metadata: Mapping) -> str:
    for ref in metadata.get("ownerReferences") or ():
        if ref.get("controller"):
            return f"{ref.get('kind', '')}/{ref.get('name', '')}"
    return ""


def make_chip(namespace: str, name: str, node: str, phase: str, metadata: Mapping, spec: Mapping) -> PodChip:
    owner = _owner(metadata)
    priority = spec.get("priority")
    priority = int(priority) if isinstance(priority, (int, float)) else 0
    cpu, mem = _container_requests(spec)
    chip = PodChip(
        namespace=namespace,
        name=name,
        node=node,
        phase=phase or "Pending",
        terminating=bool(metadata.get("deletionTimestamp") is not None),
        priority=priority,
        owner=owner,
        ns_color=_palette(namespace),
        owner_color=_palette(owner) if owner else PALETTE_SIZE,  # PALETTE_SIZE: "no owner" grey
        priority_band=priority_band(priority),
        request_cpu=cpu,
        request_memory=mem,
    )
    object.__setattr__(chip, "html", chip_html(chip))  # the chip is complete only with it
    return chip


# Chips by (cluster, pod pk, resource_version) and a hash of the stored documents' text: a
# stored pod never changes without a new resource_version, so a chip read once is reused by
# every later render of this process (only the changed pods' documents are decoded again).
# The hash is there because a rolled-back transaction hands its primary keys and revisions
# out again (SQLite reuses both), so (pk, resource_version) alone can name another pod.
_CHIP_CACHE: OrderedDict = OrderedDict()
CHIP_CACHE_SIZE = 60_000


def _cached_chips(qs) -> list[PodChip]:
    """The chip of every pod of `qs`, in pk order (creation order), with one query; the
    documents are decoded only for pods not in the cache."""
    out = []
    rows = qs.order_by("pk").annotate(m=Cast("metadata", TextField()), s=Cast("spec", TextField())).values_list(
        "cluster_id", "pk", "resource_version", "namespace", "name", "node_name", "phase", "m", "s"
    )
    for cluster_id, pk, rv, ns, name, node, phase, m, sp in rows:
        key = (cluster_id, pk, rv, hash((m, sp)))
        chip = _CHIP_CACHE.get(key)
        if chip is not None and chip.node == node and chip.phase == (phase or "Pending"):
            _CHIP_CACHE.move_to_end(key)
            out.append(chip)
            continue
        chip = make_chip(ns, name, node, phase, _loads(m), _loads(sp))
        _CHIP_CACHE[key] = chip
        if len(_CHIP_CACHE) > CHIP_CACHE_SIZE:
            _CHIP_CACHE.popitem(last=False)
        out.append(chip)
    return out


def _loads(text) -> dict:
    if text is None:
        return {}
    if isinstance(text, dict):
        return text
    value = json.loads(text)
    # PostgreSQL casts a JSON string value to its quoted text; a document is an object.
    return value if isinstance(value, dict) else {}


def _is_pending(chip: PodChip) -> bool:
    return not chip.node and not chip.terminating and chip.phase not in ("Succeeded", "Failed")


def _node_card(name: str, metadata: Mapping, spec: Mapping, status: Mapping, chips: list[PodChip], options: BoardOptions,
               filtered: bool) -> NodeCard:
    """The node's card. A node stored with a status the board cannot read (written before
    today's validation) shows as not reporting, rather than failing the page; the reconcile
    reports it with an InvalidObject event."""
    try:
        return _read_node_card(name, metadata, spec, status, chips, options, filtered)
    except (TypeError, ValueError, AttributeError, OverflowError):
        return _read_node_card(name, metadata if isinstance(metadata, dict) else {}, {}, {}, chips, options, filtered)


def _read_node_card(name: str, metadata: Mapping, spec: Mapping, status: Mapping, chips: list[PodChip],
                    options: BoardOptions, filtered: bool) -> NodeCard:
    labels = dict(metadata.get("labels") or {})
    conditions = {c.get("type"): c.get("status") for c in status.get("conditions") or ()}
    capacity = status.get("capacity") or {}
    allocatable = status.get("allocatable") or capacity
    alloc = Resource()
    _add(alloc, allocatable)
    alloc_cpu, alloc_mem, alloc_pods = alloc.milli_cpu, alloc.memory, alloc.allowed_pods
    counted = [c for c in chips if c.phase not in ("Succeeded", "Failed")]  # as the scheduler counts them
    used_cpu = sum(c.request_cpu for c in counted)
    used_mem = sum(c.request_memory for c in counted)
    bars = [
        Bar("cpu", used_cpu, alloc_cpu, f"{format_cpu(used_cpu)} / {format_cpu(alloc_cpu)}"),
        Bar("memory", used_mem, alloc_mem, f"{format_bytes(used_mem)} / {format_bytes(alloc_mem)}"),
        Bar("pods", len(counted), alloc_pods, f"{len(counted)} / {alloc_pods}"),
    ]
    taints = [TaintChip(t.get("key") or "", t.get("value") or "", t.get("effect") or "") for t in spec.get("taints") or ()]
    ready = conditions.get("Ready", "True") if conditions else "True"
    pressures = [
        c for c in PRESSURE_CONDITIONS
        if conditions.get(c) == "True"
    ]

    q = options.q.lower()
    node_matches_q = not q or q in name.lower()
    if node_matches_q and not options.ns:
        shown, matching = chips[:CHIPS_PER_NODE], len(chips)
    else:
        ns = options.ns
        selected = [c for c in chips if (not ns or c.namespace == ns) and (node_matches_q or q in c.name.lower())]
        shown, matching = selected[:CHIPS_PER_NODE], len(selected)
    visible = options.selector.matches(labels) and not options.selector_error
    if options.q and not node_matches_q and not matching:
        visible = False
    return NodeCard(
        name=name,
        labels=labels,
        roles=_roles(labels),
        ready=ready,
        unschedulable=bool(spec.get("unschedulable")),
        pressures=pressures,
        taints=taints,
        bars=bars,
        chips=shown,
        pod_count=len(chips),
        more=matching - len(shown),
        hidden_by_filter=len(chips) - matching,
        visible=visible,
        filtered=filtered,
    )


def _pods_by_node(cluster: Cluster, nodes: Iterable[str] | None = None):
    """(chips by node name, pending [(chip, status)] in creation order, namespaces): one query."""
    qs = Pod.objects.filter(cluster=cluster)
    if nodes is not None:
        qs = qs.filter(node_name__in=list(nodes))
    by_node: dict[str, list[PodChip]] = {}
    pending = []
    namespaces = set()
    for chip in _cached_chips(qs):
        namespaces.add(chip.namespace)
        if chip.node:
            by_node.setdefault(chip.node, []).append(chip)
        elif _is_pending(chip):
            pending.append(chip)
    return by_node, pending, namespaces


def node_cards(cluster: Cluster, names: Iterable[str], options: BoardOptions | None = None) -> dict[str, NodeCard | None]:
    """The cards of the named nodes (None for a node that no longer exists): two queries."""
    names = list(dict.fromkeys(names))
    options = options or BoardOptions()
    filtered = options.filters_pods or options.filters_nodes
    by_node, _, _ = _pods_by_node(cluster, names)
    out: dict[str, NodeCard | None] = {n: None for n in names}
    for name, metadata, spec, status in Node.objects.filter(cluster=cluster, name__in=names).values_list(
        "name", "metadata", "spec", "status"
    ):
        out[name] = _node_card(name, metadata, spec, status, by_node.get(name, []), options, filtered)
    return out


def build_board(cluster: Cluster, options: BoardOptions) -> tuple[Board, Pending]:
    """Every node card, grouped, and the pending queue: one query for nodes, one for pods."""
    by_node, pending, namespaces = _pods_by_node(cluster)
    filtered = options.filters_pods or options.filters_nodes
    groups: dict[str, Group] = {}
    label_keys: set[str] = set()
    node_count = visible = 0
    for name, metadata, spec, status in Node.objects.filter(cluster=cluster).order_by("pk").values_list(
        "name", "metadata", "spec", "status"
    ):
        card = _node_card(name, metadata, spec, status, by_node.get(name, []), options, filtered)
        label_keys.update(card.labels)
        value = group_value(card.labels, options.group)
        group = groups.get(value)
        if group is None:
            group = groups[value] = Group(value, group_title(value, options.group))
        group.cards.append(card)
        node_count += 1
        visible += card.visible
    ordered = sorted(groups.values(), key=lambda g: (g.value == "", g.value))
    keys = sorted(k for k in label_keys if k not in ("kubernetes.io/hostname",) and not k.startswith(ROLE_PREFIX))
    board = Board(
        groups=ordered,
        node_count=node_count,
        visible_nodes=visible,
        pod_count=sum(len(v) for v in by_node.values()) + len(pending),
        namespaces=sorted(namespaces),
        group_keys=keys,
    )
    return board, _pending(cluster, pending, options)


# --- the overview: one small tile per node -------------------------------------------------------

TILE_STATES = (
    ("notready", "NotReady"),
    ("cordoned", "cordoned (SchedulingDisabled)"),
    ("pressure", "under pressure"),
    ("tainted", "tainted (NoSchedule / NoExecute)"),
    ("ready", "Ready"),
)


@dataclass(frozen=True)
class Tile:
    name: str
    state: str  # one of TILE_STATES: the most serious that applies
    status: str  # `oc get nodes` STATUS
    pods: int  # pods bound to it
    allowed_pods: int
    taints: tuple[str, ...]
    pressures: tuple[str, ...]
    labels_hash: str
    visible: bool = True
    html: str = ""
    zone: str = ""  # its group by zone (data-zone), by role (data-roles): see NodeCard.zone_group
    role: str = ""

    @property
    def dom_id(self) -> str:
        return tile_dom_id(self.name)


def tile_dom_id(name: str) -> str:
    return f"tile-{name}"


def tile_html(tile: Tile, node_base: str) -> str:
    """A node tile, built in Python as a pod chip is (a board shows thousands): a link that
    loads the node's card (its chips) into the overview's detail area; its fill shows how
    many pods it holds against its allocatable pods."""
    fill = min(100, round(100 * tile.pods / tile.allowed_pods)) if tile.allowed_pods > 0 else 0
    title = f"{tile.name} · {tile.status} · {tile.pods} pod{'s' if tile.pods != 1 else ''}"
    if tile.pressures:
        title += " · " + ", ".join(tile.pressures)
    if tile.taints:
        title += " · " + ", ".join(tile.taints)
    url = f"{node_base}{tile.name}/card"
    hidden = "" if tile.visible else " hidden"
    return mark_safe(
        f'<a class="tile s-{tile.state}" id="{_esc(tile.dom_id)}" data-tile="{_esc(tile.name)}" '
        f'data-labels="{tile.labels_hash}" href="{_esc(url)}" hx-get="{_esc(url)}" hx-target="#tile-detail" '
        f'hx-swap="innerHTML" title="{_esc(title)}" aria-label="{_esc(title)}" data-zone="{_esc(tile.zone)}" data-roles="{_esc(tile.role)}"{hidden}>'
        f'<span class="fill" style="height:{fill}%"></span></a>'
    )


def _node_state(spec: Mapping, status: Mapping) -> tuple[str, str, bool, tuple[str, ...]]:
    """(tile state, Ready condition status, unschedulable, pressures) of a node."""
    conditions = {c.get("type"): c.get("status") for c in status.get("conditions") or ()}
    ready = conditions.get("Ready", "True") if conditions else "True"
    unschedulable = bool(spec.get("unschedulable"))
    pressures = tuple(c for c in PRESSURE_CONDITIONS if conditions.get(c) == "True")
    hard = any(t.get("effect") in ("NoSchedule", "NoExecute") for t in spec.get("taints") or ())
    if ready != "True":
        state = "notready"
    elif unschedulable:
        state = "cordoned"
    elif pressures:
        state = "pressure"
    elif hard:
        state = "tainted"
    else:
        state = "ready"
    return state, ready, unschedulable, pressures


def _tile(name: str, metadata: Mapping, spec: Mapping, status: Mapping, pods: int, visible: bool, node_base: str) -> Tile:
    labels = dict(metadata.get("labels") or {})
    state, ready, unschedulable, pressures = _node_state(spec, status)
    taints = tuple(
        str(Taint(t.get("key") or "", t.get("value") or "", t.get("effect") or "")) for t in spec.get("taints") or ()
    )
    allocatable = status.get("allocatable") or status.get("capacity") or {}
    pods_amount = allocatable.get(PODS)
    allowed = _amount(PODS, pods_amount if isinstance(pods_amount, (str, int, float)) else str(pods_amount)).allowed_pods if pods_amount is not None else 0
    tile = Tile(
        name=name, state=state,
        status=("Ready" if ready == "True" else "NotReady") + (",SchedulingDisabled" if unschedulable else ""),
        pods=pods, allowed_pods=allowed, taints=taints, pressures=pressures,
        labels_hash=f"{zlib.crc32(json.dumps(labels, sort_keys=True, separators=(',', ':')).encode()):08x}",
        visible=visible, zone=group_value(labels, "zone"), role=group_value(labels, "role"),
    )
    return dataclasses.replace(tile, html=tile_html(tile, node_base))


@dataclass
class TileGroup:
    value: str
    title: str
    tiles: list[Tile] = field(default_factory=list)

    @property
    def visible_count(self) -> int:
        return sum(1 for t in self.tiles if t.visible)


@dataclass
class Overview:
    groups: list[TileGroup]
    node_count: int
    visible_nodes: int
    pod_count: int
    states: list[tuple[str, str, int]]  # (state, label, nodes) for the legend
    namespaces: list[str]
    group_keys: list[str]


def _pod_counts(cluster: Cluster, options: BoardOptions, nodes: Iterable[str] | None = None) -> tuple[dict[str, int], dict[str, int]]:
    """(pods per node, pods per node matching the namespace/search filter): one query, the
    pods counted in the database, no document read."""
    qs = Pod.objects.filter(cluster=cluster).exclude(node_name="")
    if nodes is not None:
        qs = qs.filter(node_name__in=list(nodes))
    match = Q()
    if options.ns:
        match &= Q(namespace=options.ns)
    if options.q:
        match &= Q(name__icontains=options.q)
    rows = qs.values_list("node_name").annotate(n=Count("pk"), m=Count("pk", filter=match)).order_by()
    counts, matching = {}, {}
    for node, n, m in rows:
        counts[node], matching[node] = n, m
    return counts, matching


def build_overview(cluster: Cluster, options: BoardOptions, node_base: str) -> Overview:
    """Every node as a tile, grouped, with its pod count: three queries (node documents, pod
    counts, namespaces); no pod document is read."""
    counts, matching = _pod_counts(cluster, options)
    q = options.q.lower()
    groups: dict[str, TileGroup] = {}
    label_keys: set[str] = set()
    states: dict[str, int] = {}
    node_count = visible = 0
    for name, metadata, spec, status in Node.objects.filter(cluster=cluster).order_by("pk").values_list(
        "name", "metadata", "spec", "status"
    ):
        labels = metadata.get("labels") or {}
        shown = options.selector.matches(labels) and not options.selector_error
        if options.filters_pods and shown:
            shown = (bool(q) and q in name.lower() and not options.ns) or matching.get(name, 0) > 0
        tile = _tile(name, metadata, spec, status, counts.get(name, 0), shown, node_base)
        label_keys.update(labels)
        value = group_value(labels, options.group)
        group = groups.get(value)
        if group is None:
            group = groups[value] = TileGroup(value, group_title(value, options.group))
        group.tiles.append(tile)
        node_count += 1
        visible += shown
        states[tile.state] = states.get(tile.state, 0) + 1
    namespaces = sorted(Pod.objects.filter(cluster=cluster).values_list("namespace", flat=True).distinct().order_by())
    return Overview(
        groups=sorted(groups.values(), key=lambda g: (g.value == "", g.value)),
        node_count=node_count,
        visible_nodes=visible,
        pod_count=sum(counts.values()) + Pod.objects.filter(cluster=cluster, node_name="").count(),
        states=[(state, label, states.get(state, 0)) for state, label in TILE_STATES],
        namespaces=namespaces,
        group_keys=sorted(k for k in label_keys if k not in ("kubernetes.io/hostname",) and not k.startswith(ROLE_PREFIX)),
    )


def overview_counts(cluster: Cluster) -> Overview:
    """The overview's counts with the default options (the legend and the line above it),
    without its tiles: what a push re-renders when nodes or pods change (two queries, no
    pod document read)."""
    states: dict[str, int] = {}
    node_count = 0
    for spec, status in Node.objects.filter(cluster=cluster).values_list("spec", "status"):
        state = _node_state(spec or {}, status or {})[0]
        states[state] = states.get(state, 0) + 1
        node_count += 1
    pods = Pod.objects.filter(cluster=cluster).count()
    return Overview(groups=[], node_count=node_count, visible_nodes=node_count, pod_count=pods,
                    states=[(state, label, states.get(state, 0)) for state, label in TILE_STATES],
                    namespaces=[], group_keys=[])


def node_tiles(cluster: Cluster, names: Iterable[str], node_base: str) -> dict[str, Tile | None]:
    """The tiles of the named nodes (None for a node that no longer exists): two queries."""
    names = list(dict.fromkeys(names))
    counts, _ = _pod_counts(cluster, BoardOptions(), names)
    out: dict[str, Tile | None] = {n: None for n in names}
    for name, metadata, spec, status in Node.objects.filter(cluster=cluster, name__in=names).values_list(
        "name", "metadata", "spec", "status"
    ):
        out[name] = _tile(name, metadata, spec, status, counts.get(name, 0), True, node_base)
    return out


def node_count(cluster: Cluster) -> int:
    return Node.objects.filter(cluster=cluster).count()


def pending_queue(cluster: Cluster, options: BoardOptions | None = None) -> Pending:
    """The pending queue alone (one query: the unbound pods)."""
    options = options or BoardOptions()
    pending = [chip for chip in _cached_chips(Pod.objects.filter(cluster=cluster, node_name="")) if _is_pending(chip)]
    return _pending(cluster, pending, options)


def condition_message(status: Mapping) -> str:
    for c in status.get("conditions") or ():
        if c.get("type") == "PodScheduled" and c.get("status") == "False":
            return c.get("message") or c.get("reason") or ""
    return ""


def _pending(cluster: Cluster, pending: list[PodChip], options: BoardOptions) -> Pending:
    # Queue order: priority high to low, then creation order (stable sort).
    pending = sorted(pending, key=lambda chip: -chip.priority)
    q = options.q.lower()
    matching = [
        chip for chip in pending
        if (not options.ns or chip.namespace == options.ns) and (not q or q in chip.name.lower())
    ]
    shown = matching[:PENDING_ROWS]
    # The rows' status (conditions, nomination, scheduler): one more query, for these pods only.
    details = {}
    if shown:
        wanted = {(c.namespace, c.name) for c in shown}
        for ns, name, spec, status in Pod.objects.filter(
            cluster=cluster, node_name="", name__in={c.name for c in shown}
        ).values_list("namespace", "name", "spec", "status"):
            if (ns, name) in wanted:
                details[(ns, name)] = (spec, status)
    rows = []
    for chip in shown:
        spec, status = details.get((chip.namespace, chip.name), ({}, {}))
        message = condition_message(status)
        rows.append(
            PendingRow(
                chip=chip,
                scheduler=spec.get("schedulerName") or "default-scheduler",
                nominated=status.get("nominatedNodeName") or "",
                message=message,
                message_source="condition" if message else "",
            )
        )
    nominated = {r.nominated for r in rows if r.nominated}
    if nominated:  # the victims of their preemption: lower-priority pods terminating there (one query)
        terminating = [c for c in _cached_chips(Pod.objects.filter(cluster=cluster, node_name__in=nominated)) if c.terminating]
        for r in rows:
            r.victims = [c for c in terminating if c.node == r.nominated and c.priority < r.chip.priority]
    missing = [r for r in rows if not r.message]
    if missing:
        computed = explain.pending_messages(cluster, [r.chip.key for r in missing], budget=PENDING_MESSAGE_BUDGET)
        for r in missing:
            text = computed.get(r.chip.key)
            if text and text.startswith(explain.WOULD_SCHEDULE):
                r.would_schedule_to = text[len(explain.WOULD_SCHEDULE):]
            elif text:
                r.message, r.message_source = text, "computed"
    return Pending(rows=rows, total=len(pending), matching=len(matching), filtered=options.filters_pods)


def events(cluster: Cluster, options: BoardOptions | None = None, limit: int = EVENT_ROWS) -> Events:
    """The newest events, as `oc get events -A` prints them (one query)."""
    options = options or BoardOptions()
    qs = Event.objects.filter(cluster=cluster)
    if options.evtype:
        qs = qs.filter(type=options.evtype)
    if options.ev:
        text = options.ev
        qs = qs.filter(
            Q(reason__icontains=text) | Q(message__icontains=text) | Q(involved_name__icontains=text)
            | Q(involved_kind__icontains=text) | Q(involved_namespace__icontains=text)
        )
    rows = [
        EventRow(
            pk=e.pk,
            namespace=e.involved_namespace,
            last_seen=format_duration(cluster.now - e.last_time),
            type=e.type,
            reason=e.reason,
            object=f"{e.involved_kind.lower()}/{e.involved_name}",
            message=e.message,
            count=e.count,
            source=e.source,
            at=sim_time_text(e.last_time),
            clock=format_clock(e.last_time),
        )
        for e in qs.order_by("-last_time", "-id")[:limit]
    ]
    return Events(rows=rows, filtered=options.filters_events)


@dataclass(frozen=True)
class DescribeEvent:
    """A row of the Events table of `oc describe`: Type Reason Age From Message."""

    type: str
    reason: str
    age: str
    source: str
    message: str
    at: str = ""  # when it was last seen on the simulated clock: t=105 s
    clock: str = ""  # the same on the clock: 0:01:45


def object_events(cluster, kind: str, name: str, namespace: str = "") -> list[DescribeEvent]:
    rows = []
    for e in Event.objects.filter(
        cluster=cluster, involved_kind=kind, involved_namespace=namespace, involved_name=name
    ).order_by("last_time", "id"):
        if e.count > 1:
            age = f"{format_duration(cluster.now - e.last_time)} (x{e.count} over {format_duration(cluster.now - e.first_time)})"
        else:
            age = format_duration(cluster.now - e.first_time)
        rows.append(DescribeEvent(e.type, e.reason, age, e.source, e.message.strip(), sim_time_text(e.last_time), format_clock(e.last_time)))
    return rows
