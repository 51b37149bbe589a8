"""The pending queue of the cluster page: each pending pod with the FailedScheduling summary."""

from __future__ import annotations


from tests.scheduling.pages import page, set_doc


def test_the_pending_queue_shows_the_failedscheduling_summary(client, demo):
    message = "0/9 nodes are available: 9 Insufficient cpu."
    set_doc(demo, "Pod", "batch-huge", lambda d: d["status"].update(conditions=[
        {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": message}]), "default")
    body = page(client, demo)
    pending = body[body.index('<section id="pending"'):body.index('<section id="board"')]
    assert message in pending
    # no condition yet: computed on demand with the engine
    assert ("0/9 nodes are available: 1 node(s) had taints that the pod didn&#x27;t tolerate, "
            "8 node(s) didn&#x27;t match node selector.") in pending
    assert "the scheduler would place it on</span> node3" in pending
    # each pending pod is a chip with its id, in queue order
    assert pending.index("pod-default-new-pod-key1") < pending.index("pod-default-batch-huge")
