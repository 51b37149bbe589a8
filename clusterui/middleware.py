"""Clear failures when the database is missing, unreachable or busy.

A view that cannot reach the database answers 503 Service Unavailable with the reason in
one line (not Django's bare "Server Error (500)"); `manage.py` prints the same line
instead of a traceback (see manage.py). `database_problem` words the reason.
"""

from __future__ import annotations

import logging

from django.conf import settings
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


# --- request size, refused before the body is read ------------------------------------------------


URLENCODED = "application/x-www-form-urlencoded"
URLENCODED_MAX_BYTES = 1024 * 1024


def request_limit(content_type: str | bytes | None = None) -> int:
    """The largest request body accepted: settings.DATA_UPLOAD_MAX_MEMORY_SIZE (an import's
    20 MiB text and the multipart form around it); a urlencoded form, URLENCODED_MAX_BYTES
    (Django's parse of one costs eight times its size, and every page posts multipart or
    a few fields)."""
    if isinstance(content_type, bytes):
        content_type = content_type.decode("latin-1")
    if (content_type or "").split(";", 1)[0].strip().lower() == URLENCODED:
        return min(URLENCODED_MAX_BYTES, int(settings.DATA_UPLOAD_MAX_MEMORY_SIZE))
    return int(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)


def too_large_message(limit: int) -> str:
    """The API server's words for a body past its limit."""
    return f"Request entity too large: limit is {limit} bytes"


def too_large_body(limit: int) -> str:
    return ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Request Entity Too Large</title></head>"
            f"<body><h1>Request Entity Too Large</h1><p class=\"errorlist\">{escape(too_large_message(limit))}</p></body></html>\n")


def _declared_length(value) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


class RequestSizeMiddleware:
    """A request whose Content-Length is past request_limit() is answered 413 before
    anything reads its body (the Django side: WSGI and the test client)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        length = _declared_length(request.META.get("CONTENT_LENGTH"))
        limit = request_limit(request.META.get("CONTENT_TYPE"))
        if length is not None and length > limit:
            logger.warning("413 for %s: %s bytes", request.path, length)
            return HttpResponse(too_large_body(limit), status=413)
        return self.get_response(request)


class StreamSizeLimit:
    """The ASGI side, around Django's handler, which spools the whole body before any
    middleware runs: a declared Content-Length past the limit is answered 413 at once,
    unread; a body that streams past it (chunked, or longer than declared) is cut off, the
    413 sent, and the handler told the client went away."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope.get("type") != "http":
            return await self.app(scope, receive, send)
        headers = dict(scope.get("headers") or ())
        limit = request_limit(headers.get(b"content-type"))
        length = _declared_length(headers.get(b"content-length"))
        if length is not None and length > limit:
            return await self._refuse(send, limit)
        seen = 0
        refused = False

        async def counted_receive():
            nonlocal seen, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message.get("type") == "http.request":
                seen += len(message.get("body") or b"")
                if seen > limit:
                    refused = True
                    await self._refuse(send, limit)
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message):
            if not refused:
                await send(message)

        return await self.app(scope, counted_receive, guarded_send)

    @staticmethod
    async def _refuse(send, limit: int) -> None:
        body = too_large_body(limit).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"text/html; charset=utf-8"), (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})
