"""NodeLabelPriority, the `labelPreference` argument (1.11 `priorities/node_label.go`).

    exists := labels.Set(node.Labels).Has(n.label)
    if (exists && n.presence) || (!exists && !n.presence) { score = 10 } else { 0 }

The label's value is ignored. No reduce.
"""

from __future__ import annotations

NAME = "NodeLabelPriority"


def new_node_label_priority(label: str, presence: bool):
    def node_label_priority(pod, ctx, infos) -> list[int]:
        hit, miss = (10, 0) if presence else (0, 10)
        return [hit if label in info.node.labels else miss for info in infos]

    node_label_priority.static_key = lambda pod: None  # reads only the node (engine.scheduler.cache)
    node_label_priority.label = label
    node_label_priority.presence = presence
    return node_label_priority
