"""ImageLocality (pkg/scheduler/framework/plugins/imagelocality): prefers nodes that already
have the pod's images (init and regular containers), each image's size scaled by the share
of all nodes that have it (`spread = nodes with the image / all nodes`), the sum clamped to
[23 MiB, 1000 MiB * number of containers] and mapped linearly onto 0-100. Image names are
normalised: a name without a tag gets `:latest`. No NormalizeScore."""

from __future__ import annotations

from scheduling.engine.framework.interface import MAX_NODE_SCORE, OK, Plugin, Status
from scheduling.engine.api.objects import Pod
from scheduling.engine.scheduler.cluster import NodeInfo
from scheduling.engine.scheduler.priorities.image_locality import normalized_image_name
from scheduling.engine.scheduler.priorities.normalize import node_cached

NAME = "ImageLocality"
MB = 1024 * 1024
MIN_THRESHOLD = 23 * MB
MAX_CONTAINER_THRESHOLD = 1000 * MB
PRE_SCORE_STATE_KEY = "PreScore" + NAME


def calculate_priority(sum_scores: int, num_containers: int) -> int:
    max_threshold = MAX_CONTAINER_THRESHOLD * num_containers
    if sum_scores < MIN_THRESHOLD:
        sum_scores = MIN_THRESHOLD
    elif sum_scores > max_threshold:
        sum_scores = max_threshold
    return MAX_NODE_SCORE * (sum_scores - MIN_THRESHOLD) // (max_threshold - MIN_THRESHOLD)


def scaled_image_score(size: int, num_nodes: int, total_num_nodes: int) -> int:
    return int(size * (num_nodes / total_num_nodes))


def _image_names(node) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for image in node.images:
        for name in image.names:
            sizes[name] = image.size_bytes
    return sizes


def _sizes(info: NodeInfo) -> dict[str, int]:
    return node_cached(info, "framework_image_sizes", lambda i: _image_names(i.node), token=info.node)


class _ImageIndex:
    """How many nodes have each image name (ImageStateSummary.NumNodes), for the node
    objects it was built from; rebuilt when a node is added, removed or replaced."""

    __slots__ = ("nodes", "counts")

    def __init__(self, infos: dict):
        self.nodes = {name: i.node for name, i in infos.items()}
        counts: dict[str, int] = {}
        for i in infos.values():
            if i.node.images:
                for name in _sizes(i):
                    counts[name] = counts.get(name, 0) + 1
        self.counts = counts

    def valid_for(self, infos: dict) -> bool:
        nodes = self.nodes
        if len(nodes) != len(infos):
            return False
        get = nodes.get
        for name, i in infos.items():
            if get(name) is not i.node:
                return False
        return True


class _State:
    """The pod's normalised image names; the node counts are looked up on first use."""

    __slots__ = ("names", "num_containers", "num_nodes", "total")

    def __init__(self, names, num_containers):
        self.names = names
        self.num_containers = num_containers
        self.num_nodes = None
        self.total = 0


class ImageLocality(Plugin):
    name = NAME
    events = frozenset()

    def __init__(self, args, handle):
        super().__init__(args, handle)
        self._index: _ImageIndex | None = None

    @staticmethod
    def _state(pod: Pod) -> _State:
        names = tuple(normalized_image_name(c.image) for c in (*pod.init_containers, *pod.containers))
        return _State(names, len(names))

    def _counts(self, state: _State) -> None:
        infos = self.handle.node_infos
        index = self._index
        if index is None or not index.valid_for(infos):
            index = self._index = _ImageIndex(infos)
        state.num_nodes = {name: index.counts.get(name, 0) for name in state.names}
        state.total = len(infos)

    def pre_score(self, cs, pod: Pod, nodes) -> Status:
        cs[PRE_SCORE_STATE_KEY] = self._state(pod)
        return OK

    def score(self, cs, pod: Pod, info: NodeInfo) -> int:
        state = cs.get(PRE_SCORE_STATE_KEY)
        if state is None:
            state = cs[PRE_SCORE_STATE_KEY] = self._state(pod)
        total = 0
        if info.node.images and state.names:
            sizes = _sizes(info)
            for name in state.names:
                size = sizes.get(name)
                if size is not None:
                    if state.num_nodes is None:
                        self._counts(state)
                    total += scaled_image_score(size, state.num_nodes[name], state.total)
        return calculate_priority(total, state.num_containers)
