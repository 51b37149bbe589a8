"""The cluster board as plain data: what each node card, pod chip and pending row shows.

Views, htmx responses and the websocket broadcast all render these view models with the
same named partials of templates/scheduling/cluster_detail.html. Everything is read with
one query per kind (nodes, pods, events), never per node, so the board stays cheap at
hundreds of nodes and thousands of pods; documents are read straight from the stored JSON
without building engine objects, except for the pending pods whose FailedScheduling
message is computed on demand (scheduling.explain).

The display options (search, namespace, node label selector, grouping, colouring, large
type, event filters) come from GET parameters so that a view can be shared by URL.
"""

from __future__ import annotations

import json
from html import escape as _esc
import re
import zlib
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable, Mapping
from urllib.parse import urlencode

from django.db.models import TextField
from django.db.models.functions import Cast
from django.utils.safestring import mark_safe

from .engine.objects import Taint
from .engine.quantity import QuantityError, milli_value, value
from .models import Cluster, Event, Node, Pod

# How many pod chips a node card shows before it aggregates the rest into "+N more".
CHIPS_PER_NODE = 12
PENDING_ROWS = 50
EVENT_ROWS = 100
# Pending pods whose message is computed with the engine when no condition carries one:
# at most this many (pods x nodes) predicate checks per render; beyond, the row links to
# the explainer instead.
PENDING_MESSAGE_BUDGET = 5000
PALETTE_SIZE = 12

ZONE_LABELS = ("failure-domain.beta.kubernetes.io/zone", "topology.kubernetes.io/zone", "zone")
ROLE_PREFIX = "node-role.kubernetes.io/"
GROUP_CHOICES = (("zone", "zone"), ("role", "node role"), ("none", "no grouping"))
COLOR_CHOICES = (("namespace", "namespace"), ("owner", "owner"), ("priority", "priority"))
EFFECT_CLASSES = {"NoSchedule": "noschedule", "PreferNoSchedule": "prefer", "NoExecute": "noexecute"}
PRESSURE_CONDITIONS = ("MemoryPressure", "DiskPressure", "PIDPressure", "OutOfDisk", "NetworkUnavailable")


# --- display options (GET parameters) ----------------------------------------------------


class SelectorError(ValueError):
    """A label selector that does not parse; str() is the message for the user."""


@dataclass(frozen=True)
class Requirement:
    key: str
    op: str  # "=", "!=", "exists", "!exists", "in", "notin"
    values: tuple[str, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        if self.op == "exists":
            return self.key in labels
        if self.op == "!exists":
            return self.key not in labels
        if self.op in ("=", "in"):
            return self.key in labels and labels[self.key] in self.values
        return self.key not in labels or labels[self.key] not in self.values  # != and notin


_REQ_SET = re.compile(r"^\s*(!?)\s*([A-Za-z0-9_./-]+)\s*(?:(in|notin)\s*\(([^)]*)\)|(==|=|!=)\s*([A-Za-z0-9_.-]*))?\s*$")


def parse_selector(text: str) -> tuple[Requirement, ...]:
    """kubectl's `-l` syntax: `k=v`, `k==v`, `k!=v`, `k`, `!k`, `k in (a,b)`, `k notin (a,b)`,
    comma-separated (commas inside parentheses belong to the set)."""
    text = (text or "").strip()
    if not text:
        return ()
    parts, depth, current = [], 0, ""
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    parts.append(current)
    reqs = []
    for part in parts:
        m = _REQ_SET.match(part)
        if not m or (m.group(1) and (m.group(3) or m.group(5))):
            raise SelectorError(f"unable to parse requirement: {part.strip()!r}")
        neg, key, set_op, set_values, eq_op, eq_value = m.groups()
        if set_op:
            values = tuple(v.strip() for v in set_values.split(",") if v.strip())
            reqs.append(Requirement(key, set_op, values))
        elif eq_op:
            reqs.append(Requirement(key, "!=" if eq_op == "!=" else "=", (eq_value,)))
        else:
            reqs.append(Requirement(key, "!exists" if neg else "exists"))
    return tuple(reqs)


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
    selector: tuple[Requirement, ...] = ()
    selector_error: str = ""

    FIELDS = ("q", "ns", "label", "group", "color", "big", "ev", "evtype")

    @classmethod
    def from_query(cls, params: Mapping[str, str]) -> "BoardOptions":
        def get(name: str) -> str:
            return (params.get(name) or "").strip()[:200]

        color = get("color")
        evtype = get("evtype")
        label = get("label")
        selector, error = (), ""
        try:
            selector = parse_selector(label)
        except SelectorError as exc:
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
            selector=selector,
            selector_error=error,
        )

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


@lru_cache(maxsize=4096)
def _milli(raw) -> int:
    try:
        return milli_value(raw)
    except (QuantityError, ValueError, TypeError):
        return 0


@lru_cache(maxsize=4096)
def _units(raw) -> int:
    try:
        return value(raw)
    except (QuantityError, ValueError, TypeError):
        return 0


def _hashable(raw):
    return raw if isinstance(raw, (str, int, float)) else str(raw)


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
    cpu = mem = 0
    for c in spec.get("containers") or ():
        requests = ((c.get("resources") or {}).get("requests")) or {}
        if "cpu" in requests:
            cpu += _milli(_hashable(requests["cpu"]))
        if "memory" in requests:
            mem += _units(_hashable(requests["memory"]))
    return cpu, mem


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


# Chips by (cluster, pod pk, resource_version): a stored pod never changes without a new
# resource_version, so a chip read once is reused by every later render of this process
# (only the changed pods' documents are decoded again).
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
        key = (cluster_id, pk, rv)
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
    labels = dict(metadata.get("labels") or {})
    conditions = {c.get("type"): c.get("status") for c in status.get("conditions") or ()}
    capacity = status.get("capacity") or {}
    allocatable = status.get("allocatable") or capacity
    alloc_cpu = _milli(_hashable(allocatable.get("cpu", 0)))
    alloc_mem = _units(_hashable(allocatable.get("memory", 0)))
    alloc_pods = _units(_hashable(allocatable.get("pods", 0)))
    used_cpu = sum(c.request_cpu for c in chips)
    used_mem = sum(c.request_memory for c in chips)
    bars = [
        Bar("cpu", used_cpu, alloc_cpu, f"{format_cpu(used_cpu)} / {format_cpu(alloc_cpu)}"),
        Bar("memory", used_mem, alloc_mem, f"{format_bytes(used_mem)} / {format_bytes(alloc_mem)}"),
        Bar("pods", len(chips), alloc_pods, f"{len(chips)} / {alloc_pods}"),
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
    visible = all(r.matches(labels) for r in options.selector) and not options.selector_error
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
    missing = [r for r in rows if not r.message]
    if missing:
        from . import explain

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
        from django.db.models import Q

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
        )
        for e in qs.order_by("-last_time", "-id")[:limit]
    ]
    return Events(rows=rows, filtered=options.filters_events)
