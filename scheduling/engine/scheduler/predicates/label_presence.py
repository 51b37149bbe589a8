"""CheckNodeLabelPresence, the configurable `labelsPresence` predicate (Kubernetes 1.11
`NewNodeLabelPredicate`): with `presence: true` every listed label must exist on the node,
with `presence: false` none may; values are ignored."""

from __future__ import annotations

from scheduling.engine.api.objects import Pod

NAME = "CheckNodeLabelPresence"
ERR_NODE_LABEL_PRESENCE_VIOLATED = "node(s) didn't have the requested labels"
REASONS = (ERR_NODE_LABEL_PRESENCE_VIOLATED,)


def new_node_label_predicate(labels: list[str], presence: bool):
    """A predicate checking that `labels` are all present (presence) or all absent (not presence)."""
    wanted = tuple(labels)

    def check_node_label_presence(pod: Pod, ctx, info) -> tuple[str, ...]:
        node_labels = info.node.labels
        for label in wanted:
            exists = label in node_labels
            if exists != presence:
                return (ERR_NODE_LABEL_PRESENCE_VIOLATED,)
        return ()

    check_node_label_presence.static_key = lambda pod: None  # reads only the node (engine.scheduler.cache)
    return check_node_label_presence
