"""The clock controls of the cluster page: step, play at a speed, pause."""

from __future__ import annotations

from django.urls import reverse




def test_the_clock_steps_plays_and_pauses(editor_client, demo):
    response = editor_client.post(reverse("clock-action", args=[demo.pk]), {"action": "step-600"}, HTTP_HX_REQUEST="true")
    assert '<strong class="clock-time" role="timer" data-now="600">0:10:00</strong>' in response.content.decode()
    editor_client.post(reverse("clock-action", args=[demo.pk]), {"action": "play", "speed": "600"})
    demo.refresh_from_db()
    assert not demo.paused and demo.speed == 600
    editor_client.post(reverse("clock-action", args=[demo.pk]), {"action": "pause"})
    demo.refresh_from_db()
    assert demo.paused
