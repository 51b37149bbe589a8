"""Clear failures when the database is missing, unreachable or busy.

A view that cannot reach the database answers 503 Service Unavailable with the reason in
one line (not Django's bare "Server Error (500)"); `manage.py` prints the same line
instead of a traceback (see manage.py). `database_problem` words the reason.
"""

from __future__ import annotations

import logging

from django.db.utils import InterfaceError, OperationalError, ProgrammingError
from django.http import HttpResponse
from django.utils.html import escape

logger = logging.getLogger(__name__)

DATABASE_ERRORS = (OperationalError, InterfaceError)
RETRY_AFTER_SECONDS = 5


def database_problem(exc: BaseException) -> str:
    """One line saying what is wrong with the database, for a person."""
    text = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]
    if "no such table" in text or (isinstance(exc, ProgrammingError) and "does not exist" in text):
        return f"the database has no tables yet (run `manage.py migrate`): {text}"
    if "database is locked" in text:
        return f"the database is busy with a long write; try again in a few seconds ({text})"
    return f"the database is unavailable: {text}"


def is_database_error(exc: BaseException) -> bool:
    if isinstance(exc, DATABASE_ERRORS):
        return True
    return isinstance(exc, ProgrammingError) and "does not exist" in str(exc) and "relation" in str(exc)


class DatabaseUnavailableMiddleware:
    """Turns a view's database connection failure into a 503 with the reason."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if not is_database_error(exception):
            return None
        reason = database_problem(exception)
        logger.error("503 for %s: %s", request.path, reason)
        body = (
            "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Service Unavailable</title></head>"
            f"<body><h1>Service Unavailable</h1><p>{escape(reason)}</p></body></html>\n"
        )
        response = HttpResponse(body, status=503)
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response
