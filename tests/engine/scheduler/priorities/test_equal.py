from scheduling.engine.scheduler.priorities.equal import equal_priority
from tests.engine.builders import cluster, cycle, node, pod


def test_every_node_scores_one():
    incoming = pod("p")
    ctx, infos = cycle(incoming, cluster([node("n1"), node("n2"), node("n3")]))
    assert equal_priority(incoming, ctx, infos) == [1, 1, 1]
