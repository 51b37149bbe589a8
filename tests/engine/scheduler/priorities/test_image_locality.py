import pytest

from scheduling.engine.scheduler.priorities.image_locality import image_locality_priority, normalized_image_name
from tests.engine.builders import cluster, cycle, node, pod

MB = 1024 * 1024


@pytest.mark.parametrize(
    "size, expected",
    [
        pytest.param(0, 0, id="no image present"),
        pytest.param(23 * MB - 1, 0, id="below 23MB scores zero"),
        # 10*(23mb-23mb)/(977mb) + 1 = 1
        pytest.param(23 * MB, 1, id="exactly 23MB scores one"),
        # 10*(477mb)/(977mb) = 4 (4.88 truncated), +1 = 5
        pytest.param(500 * MB, 5, id="500MB scores five"),
        # 10*976/977 = 9, +1 = 10
        pytest.param(999 * MB, 10, id="999MB scores ten"),
        pytest.param(1000 * MB, 10, id="1000MB and more score ten"),
    ],
)
def test_image_size_thresholds(size, expected):
    incoming = pod("p", image="nginx:1.15")
    nodes = [node("n1", images=[(["nginx:1.15"], size)] if size else [])]
    ctx, infos = cycle(incoming, cluster(nodes))
    assert image_locality_priority(incoming, ctx, infos) == [expected]


@pytest.mark.parametrize(
    "name, expected",
    [
        pytest.param("nginx", "nginx:latest", id="no tag gets latest"),
        pytest.param("nginx:1.15", "nginx:1.15", id="a tag is kept"),
        pytest.param("registry:5000/app", "registry:5000/app:latest", id="a registry port is not a tag"),
        pytest.param("registry:5000/app:v1", "registry:5000/app:v1", id="a tag after a registry port is kept"),
    ],
)
def test_normalized_image_name(name, expected):
    assert normalized_image_name(name) == expected


def test_images_are_matched_after_latest_normalisation_against_node_names_verbatim():
    incoming = pod("p", image="nginx")
    nodes = [
        node("n1", images=[(["docker.io/nginx:latest", "nginx:latest"], 500 * MB)]),
        node("n2", images=[(["nginx"], 500 * MB)]),  # the node's name is used verbatim: "nginx" != "nginx:latest"
    ]
    ctx, infos = cycle(incoming, cluster(nodes))
    assert image_locality_priority(incoming, ctx, infos) == [5, 0]


def test_the_sizes_of_every_container_image_add_up():
    incoming = pod("p", containers=[{"name": "a", "image": "a:1"}, {"name": "b", "image": "b:1"}])
    nodes = [
        # 20MB + 20MB = 40MB: 10*(17mb)/(977mb) = 0, +1 = 1
        node("n1", images=[(["a:1"], 20 * MB), (["b:1"], 20 * MB)]),
        # only a:1: 20MB < 23MB -> 0
        node("n2", images=[(["a:1"], 20 * MB)]),
    ]
    ctx, infos = cycle(incoming, cluster(nodes))
    assert image_locality_priority(incoming, ctx, infos) == [1, 0]
