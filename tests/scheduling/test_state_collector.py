"""The cyclic collector is paused while a process reads a cluster or builds its engine state
(scheduling.store.state.collector_paused), and always runs again after: nested or concurrent
pauses, and a read that fails, leave it as it was."""

from __future__ import annotations

import gc
import threading

import pytest

from scheduling.store import services, state


@pytest.fixture
def collector_on():
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_a_pause_stops_the_collector_and_its_end_restarts_it(collector_on):
    with state.collector_paused():
        assert not gc.isenabled()
        with state.collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer pause still runs
    assert gc.isenabled()


def test_a_failing_read_restarts_the_collector(collector_on):
    with pytest.raises(ZeroDivisionError):
        with state.collector_paused():
            1 / 0
    assert gc.isenabled()


def test_a_collector_off_before_stays_off(collector_on):
    gc.disable()
    with state.collector_paused():
        pass
    assert not gc.isenabled()


def test_concurrent_pauses_restart_the_collector_when_the_last_ends(collector_on):
    inside, release = threading.Barrier(3), threading.Event()

    def pause():
        with state.collector_paused():
            inside.wait()
            release.wait()

    threads = [threading.Thread(target=pause) for _ in range(2)]
    for t in threads:
        t.start()
    inside.wait()
    assert not gc.isenabled()
    release.set()
    for t in threads:
        t.join()
    assert gc.isenabled()


def test_reading_a_cluster_and_building_its_state_leave_the_collector_on(db, collector_on):
    cluster = services.import_new_cluster("c", "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n", "c.yaml")
    state.forget(cluster)
    docs, _ = state.shared_documents(cluster)
    assert [d["metadata"]["name"] for d in docs if d["kind"] == "Node"] == ["n1"]
    assert [n.name for n in state.cluster_state(cluster).nodes] == ["n1"]
    assert gc.isenabled()
