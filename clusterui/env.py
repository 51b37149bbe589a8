"""Small typed readers for settings from the environment; bad values fail loudly."""

import os
from urllib.parse import urlparse

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean: use one of 1/0, true/false, yes/no, on/off")


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_url(name: str, schemes: tuple[str, ...]) -> str | None:
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return None
    parsed = urlparse(raw.strip())
    if parsed.scheme not in schemes:
        raise ImproperlyConfigured(
            f"{name}={raw!r} is not a valid URL: the scheme must be one of {', '.join(schemes)}"
        )
    return raw.strip()


def env_int(name: str, default: int, minimum: int = 0) -> int:
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not an integer") from None
    if value < minimum:
        raise ImproperlyConfigured(f"{name}={raw!r} must be at least {minimum}")
    return value
