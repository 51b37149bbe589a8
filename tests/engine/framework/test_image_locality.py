"""ImageLocality, translated from upstream's image_locality_test.go (TestImageLocalityPriority).
The expected scores are those of v1.35's formula: the maximum threshold is 1000 MiB per
container and each image's size is scaled by the share of nodes that have it."""

import pytest

from scheduling.engine.framework.plugins.image_locality import ImageLocality
from tests.engine.framework.plugin_builders import handle, info, node, pod, scores

MB = 1024 * 1024

NODE_40_300_2000 = [(["gcr.io/40:latest", "gcr.io/40:v1", "gcr.io/40:v1"], 40 * MB),
                    (["gcr.io/300:latest", "gcr.io/300:v1"], 300 * MB),
                    (["gcr.io/2000:latest"], 2000 * MB)]
NODE_250_10 = [(["gcr.io/250:latest"], 250 * MB), (["gcr.io/10:latest", "gcr.io/10:v1"], 10 * MB)]


def images_pod(*images, init=()):
    spec = {"containers": [{"name": f"c{i}", "image": im} for i, im in enumerate(images)]}
    if init:
        spec["initContainers"] = [{"name": f"i{i}", "image": im} for i, im in enumerate(init)]
    return pod("p", **spec)


CASES = [
    # 250M/2 spread over 2 nodes: 100 * (125M - 23M) / (2000M - 23M) = 5
    ("two images spread on two nodes, prefer the larger image one", images_pod("gcr.io/40", "gcr.io/250"),
     [("machine1", NODE_40_300_2000), ("machine2", NODE_250_10)], {"machine1": 0, "machine2": 5}),
    # 100 * ((40M + 300M)/2 - 23M) / (2000M - 23M) = 7
    ("two images on one node, prefer this node", images_pod("gcr.io/40", "gcr.io/300"),
     [("machine1", NODE_40_300_2000), ("machine2", NODE_250_10)], {"machine1": 7, "machine2": 0}),
    # 100 * (2000M/2 - 23M) / (2000M - 23M) = 49
    ("if exceed limit, use limit", images_pod("gcr.io/10", "gcr.io/2000"),
     [("machine1", NODE_40_300_2000), ("machine2", NODE_250_10)], {"machine1": 49, "machine2": 0}),
    # 100 * (2000M/3 - 23M) / (2000M - 23M) = 32
    ("if exceed limit, use limit (with node which has no images present)", images_pod("gcr.io/10", "gcr.io/2000"),
     [("machine1", NODE_40_300_2000), ("machine2", NODE_250_10), ("machine3", [])],
     {"machine1": 32, "machine2": 0, "machine3": 0}),
    # Init containers count too (their images and the container count).
    ("init container images count", images_pod("gcr.io/10", init=["gcr.io/2000"]),
     [("machine1", NODE_40_300_2000), ("machine2", NODE_250_10)], {"machine1": 49, "machine2": 0}),
]


@pytest.mark.parametrize("name,p,nodes,expected", CASES, ids=[c[0] for c in CASES])
def test_image_locality_priority(name, p, nodes, expected):
    infos = [info(node(n, images=imgs)) for n, imgs in nodes]
    assert scores(ImageLocality({}, handle(infos)), p, infos) == expected
    assert scores(ImageLocality({}, handle(infos)), p, infos, pre_score=False) == expected


def test_image_counts_follow_node_changes():
    """The node counts are kept across cycles and rebuilt when a node changes."""
    infos = [info(node("machine1", images=NODE_40_300_2000)), info(node("machine2", images=NODE_250_10))]
    h = handle(infos)
    plugin = ImageLocality({}, h)
    p = images_pod("gcr.io/10", "gcr.io/2000")
    assert scores(plugin, p, infos) == {"machine1": 49, "machine2": 0}
    # machine2 now has gcr.io/2000 too: spread 2/2, 100 * (2000M - 23M) / (2000M - 23M)
    replaced = info(node("machine2", images=NODE_250_10 + [(["gcr.io/2000:latest"], 2000 * MB)]))
    infos[1] = replaced
    h.node_infos["machine2"] = replaced
    assert scores(plugin, p, infos) == {"machine1": 100, "machine2": 100}
