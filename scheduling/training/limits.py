"""Join codes that cannot be guessed: a client that names codes no open session has is
slowed down, and so is a flood of joins on one code.

A code is CODE_LENGTH (8) characters of a 32-letter alphabet: 32^8, about 1.1e12 codes.
Each client (its address) may name CLIENT_FAILURES codes that lead nowhere per
CLIENT_WINDOW seconds, on every page that takes a code (join, follow, the QR code, ...);
past that, and past CODE_ATTEMPTS joins of one code per CODE_WINDOW, the answer is 429 Too
Many Requests with Retry-After. At 30 wrong codes per 5 minutes a client needs about
35,000 years on average to find one open session by guessing. A room behind one address
(a classroom's Wi-Fi) only counts its typos, and a session 300 joins a minute.

The counters live in Django's cache (fixed windows): the local memory of the process in
embedded mode, Redis in distributed mode (settings.CACHES). When the cache fails, the
limit is not applied (a join must not fail because of the counters)."""

from __future__ import annotations

import functools
import logging
import math
import time

from django.core.cache import cache
from django.http import HttpResponse

logger = logging.getLogger(__name__)

CLIENT_FAILURES = 30
CLIENT_WINDOW = 300
CODE_ATTEMPTS = 300
CODE_WINDOW = 60


class TooManyRequests(Exception):
    def __init__(self, retry_after: int):
        self.retry_after = retry_after
        super().__init__(f"too many attempts: try again in {retry_after} seconds")


def client_of(request) -> str:
    return request.META.get("REMOTE_ADDR") or "unknown"


def _key(kind: str, who: str, window: int, now: float) -> tuple[str, int]:
    start = int(now // window)
    return f"training-limit:{kind}:{who}:{start}", max(1, math.ceil((start + 1) * window - now))


def _count(kind: str, who: str, window: int) -> tuple[int, int]:
    key, retry = _key(kind, who, window, time.time())
    try:
        return int(cache.get(key) or 0), retry
    except Exception:  # noqa: BLE001 - the counters are a guard, never a reason to fail
        logger.warning("training limits: the cache is unavailable", exc_info=False)
        return 0, retry


def _add(kind: str, who: str, window: int) -> None:
    key, _ = _key(kind, who, window, time.time())
    try:
        if not cache.add(key, 1, window + 1):
            cache.incr(key)
    except Exception:  # noqa: BLE001
        logger.warning("training limits: the cache is unavailable", exc_info=False)


def check_client(request) -> None:
    """TooManyRequests when this client named too many codes that lead nowhere."""
    failures, retry = _count("client", client_of(request), CLIENT_WINDOW)
    if failures >= CLIENT_FAILURES:
        raise TooManyRequests(retry)


def missed(request) -> None:
    """The client named a code no (open) session has."""
    _add("client", client_of(request), CLIENT_WINDOW)


def join_attempt(code: str) -> None:
    """One more join of `code`; TooManyRequests past CODE_ATTEMPTS in the window."""
    attempts, retry = _count("code", code, CODE_WINDOW)
    if attempts >= CODE_ATTEMPTS:
        raise TooManyRequests(retry)
    _add("code", code, CODE_WINDOW)


def too_many_requests(exc: TooManyRequests) -> HttpResponse:
    response = HttpResponse(f"Too many requests: {exc}\n", status=429, content_type="text/plain; charset=utf-8")
    response["Retry-After"] = str(exc.retry_after)
    return response


def limited(view):
    """A view that answers 429 with Retry-After when TooManyRequests is raised in it."""

    @functools.wraps(view)
    def wrapper(request, *args, **kwargs):
        try:
            return view(request, *args, **kwargs)
        except TooManyRequests as exc:
            return too_many_requests(exc)

    return wrapper
