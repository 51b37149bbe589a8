"""The named partials of a training session (templates/scheduling/training.html), rendered
the same way for an htmx response (views.py) and for the session socket (broadcast.py
pushes them, consumers.TrainingConsumer sends the current ones when a page connects):

* `presence`: who is following (the instructor's bar);
* `question-instructor`: the question with the room's tally (the instructor's bar);
* `question`: the question as one attendee sees it (their own answer, the verdict);
* `view`: what the instructor shows (page and panel): an attendee's page that follows
  goes there when it is swapped in (static/js/training.js);
* `closed`: the bar of a session that has ended (the page then goes to the ended page).

Pushed fragments carry `hx-swap-oob`; a pushed form gets its CSRF token from the page's
hx-headers (base.html), as every htmx request does.
"""

from __future__ import annotations

from collections import Counter

from django.template.loader import render_to_string

from scheduling.models import Attendee, Question, TrainingSession

TEMPLATE = "scheduling/training.html"


def tally(question: Question) -> list[tuple[str, int]]:
    counts = Counter(c for a in question.answers.all() for c in a.choices)
    return [(choice, counts.get(choice, 0)) for choice in question.choices]


def presence_context(session: TrainingSession) -> dict:
    attendees = list(session.attendees.all())
    connected = [a for a in attendees if a.connections > 0]
    return {"session": session, "connected": connected, "joined_count": len(attendees)}


def question_context(session: TrainingSession, role: str, attendee: Attendee | None = None) -> dict:
    question = session.questions.prefetch_related("answers__attendee").first()
    if question is None:
        return {"question": None, "role": role, "session": session}
    answers = list(question.answers.all())
    mine = next((a.choices for a in answers if attendee is not None and a.attendee_id == attendee.pk), None)
    counts = dict(tally(question)) if (question.revealed or role == "instructor") else {}
    return {
        "session": session,
        "role": role,
        "question": question,
        "rows": [{"choice": c, "count": counts.get(c, 0), "correct": c in question.correct, "mine": bool(mine and c in mine)}
                 for c in question.choices],
        "answered": len(answers),
        "names": sorted(a.attendee.name for a in answers),
        "mine": mine,
        "right": mine is not None and sorted(mine) == sorted(question.correct),
    }


def _oob(name: str, context: dict) -> str:
    return render_to_string(f"{TEMPLATE}#{name}", {**context, "oob": True})


def presence(session: TrainingSession) -> str:
    return _oob("presence", presence_context(session))


def question_for_instructor(session: TrainingSession) -> str:
    return _oob("question-instructor", question_context(session, "instructor"))


def question_for_attendee(session: TrainingSession, attendee: Attendee) -> str:
    return _oob("question", question_context(session, "attendee", attendee))


def view(session: TrainingSession) -> str:
    return _oob("view", {"session": session, "view": session.view or {}})


def closed(session: TrainingSession) -> str:
    return _oob("closed", {"session": session})
