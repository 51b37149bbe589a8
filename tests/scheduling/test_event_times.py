"""Where events are listed, the simulated time they were last seen stands beside their age:
`t=105 s` (as the scenarios write times), with the clock reading `0:01:45` on hover."""

from __future__ import annotations

from django.urls import reverse

from scheduling.engine.timeline import sim_time_text
from scheduling.pages import board
from scheduling.store import services


def _events(demo):
    demo.now = 600
    demo.save()
    services.record_event(demo, reason="FailedScheduling", type="Warning", kind="Pod", namespace="default",
                          name="new-pod-key1", source="default-scheduler", message="m", time=105)


def test_the_describe_events_carry_the_simulated_time(demo):
    _events(demo)
    [row] = board.object_events(demo, "Pod", "new-pod-key1", "default")
    assert (row.age, row.at, row.clock) == ("8m", "t=105 s", "0:01:45")


def test_the_pod_page_shows_the_age_and_the_simulated_time(client, demo):
    _events(demo)
    body = client.get(reverse("pod-detail", args=[demo.pk, "default", "new-pod-key1"])).content.decode()
    assert '<td class="when">8m <span class="sim-time hint" title="simulated time 0:01:45">t=105 s</span></td>' in body


def test_the_board_event_stream_shows_the_simulated_time_beside_last_seen(client, demo):
    _events(demo)
    body = client.get(reverse("cluster-detail", args=[demo.pk])).content.decode()
    assert '<span class="sim-time" title="simulated time 0:01:45">t=105 s</span> <span class="hint age">8m</span>' in body


def test_the_formatter_is_the_clock_and_the_scenarios_notation():
    assert [sim_time_text(t) for t in (0, 105, 7.5)] == ["t=0 s", "t=105 s", "t=7.5 s"]
    assert [board.format_clock(t) for t in (0, 105, 90061)] == ["0:00:00", "0:01:45", "1d 1:01:01"]
