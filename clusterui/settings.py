"""One settings module, driven by the environment.

DATABASE_URL   database (default: SQLite file var/clusterui.sqlite3)
REDIS_URL      unset: embedded mode (memory:// Celery broker run by a worker thread, in-memory
               channel layer); set: distributed mode (Redis broker and RedisChannelLayer)
SECRET_KEY     required in distributed mode unless DEBUG; embedded mode keeps one in var/
DEBUG          default off
ALLOWED_HOSTS  comma-separated; default localhost names (`manage.py serve --host` adds the
               address it listens on; on 0.0.0.0 the machine's addresses: clusterui/hosts.py)
CLUSTERUI_ADDRESSES  the addresses the room reaches this machine at, for `serve --host 0.0.0.0`
               (default: read from the network interfaces)
HTTPS          serve behind TLS: secure cookies, HSTS, SSL redirect (default: on when DEBUG is off
               in distributed mode)
"""

import os
import secrets
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from .env import env_bool, env_int, env_list, env_url
from .layers import redis_channel_layer

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(os.environ.get("CLUSTERUI_VAR_DIR", BASE_DIR / "var"))

DEBUG = env_bool("DEBUG", False)
REDIS_URL = env_url("REDIS_URL", ("redis", "rediss", "unix"))
EMBEDDED = REDIS_URL is None


def _secret_key() -> str:
    key = os.environ.get("SECRET_KEY", "").strip()
    if key:
        return key
    if not EMBEDDED and not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set in distributed mode (REDIS_URL is set) when DEBUG is off")
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    path = VAR_DIR / "secret_key"
    if not path.exists():
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


SECRET_KEY = _secret_key()
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
# The host of the training join link and QR code: set by `manage.py serve` when it serves the
# room (clusterui/hosts.py); None means the address the instructor's browser used.
JOIN_HOST = None

INSTALLED_APPS = [
    # (no "daphne" app: `manage.py serve` loads daphne itself; every other command, `manage.py oc`
    # first, starts without loading twisted)
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "django_htmx",
    "template_partials",
    "scheduling",
    "updates",
]

MIDDLEWARE = [
    "clusterui.middleware.RequestSizeMiddleware",  # 413 past DATA_UPLOAD_MAX_MEMORY_SIZE, body unread
    "django.middleware.security.SecurityMiddleware",
    "clusterui.middleware.DatabaseUnavailableMiddleware",  # a 503 naming the reason, not a bare 500
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Pages are compressed (the board at 10,000 pods: 1.75 MB -> ~130 KB). Safe against
    # BREACH: Django masks the CSRF token afresh in every response and GZipMiddleware pads
    # each response with random bytes; no other secret is reflected in a page.
    "django.middleware.gzip.GZipMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

ROOT_URLCONF = "clusterui.urls"
ASGI_APPLICATION = "clusterui.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- database -------------------------------------------------------------------------

def _database() -> dict:
    url = os.environ.get("DATABASE_URL", "").strip()
    if not url:
        VAR_DIR.mkdir(parents=True, exist_ok=True)
        url = f"sqlite:///{VAR_DIR / 'clusterui.sqlite3'}"
    try:
        db = dj_database_url.parse(url, conn_max_age=0)
    except ValueError as exc:
        raise ImproperlyConfigured(f"DATABASE_URL={url!r} is not a database URL Django can use: {exc}") from exc
    if db["ENGINE"] not in ("django.db.backends.sqlite3", "django.db.backends.postgresql"):
        raise ImproperlyConfigured(f"DATABASE_URL={url!r}: only sqlite:// and postgres:// are supported")
    if db["ENGINE"] == "django.db.backends.sqlite3":
        # The web server and the worker thread write concurrently: wait for locks, take the
        # write lock at BEGIN (no upgrade deadlocks) and let readers run beside a writer.
        db["OPTIONS"] = {
            "timeout": 30,
            "transaction_mode": "IMMEDIATE",
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
        # A file (not :memory:) so the worker thread shares it; one per test process.
        db.setdefault("TEST", {})["NAME"] = str(VAR_DIR / f"test-{os.getpid()}.sqlite3")
    return db


DATABASES = {"default": _database()}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# A pasted document may be as large as an uploaded file (scheduling.store.kube.MAX_TEXT_BYTES, 20 MiB).
DATA_UPLOAD_MAX_MEMORY_SIZE = 21 * 1024 * 1024

# What one stored cluster may hold (README.md "Limits"): past them a create is
# refused as a ResourceQuota refuses it (`exceeded quota`), the controllers' creates too.
# 4,000 pods keep a server whose Deployment is scaled to 2147483647 under 300 MB (278 MiB
# measured with the hostile imports before it; README.md "Memory"); the benchmarks, with 10,000-pod clusters, raise both (scheduling/bench).
CLUSTER_MAX_PODS = env_int("CLUSTER_MAX_PODS", 4000, minimum=1)
CLUSTER_MAX_OBJECTS = env_int("CLUSTER_MAX_OBJECTS", 10000, minimum=1)
# A reconcile that fails this many times in a row (or dies) marks the cluster and stops.
RECONCILE_MAX_FAILURES = env_int("RECONCILE_MAX_FAILURES", 3, minimum=1)

# --- auth -----------------------------------------------------------------------------

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "cluster-list"
LOGOUT_REDIRECT_URL = "cluster-list"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- static files -----------------------------------------------------------------------

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", BASE_DIR / "staticfiles"))
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # WhiteNoise expects it, even before collectstatic
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        # Compressed copies after `collectstatic`; file names stay unhashed (the vendored
        # files carry their version in their names).
        "BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"
    },
}
# Embedded mode serves straight from the source folders; no collectstatic step.
WHITENOISE_USE_FINDERS = DEBUG or EMBEDDED
WHITENOISE_AUTOREFRESH = DEBUG

# --- channels and celery ----------------------------------------------------------------

if EMBEDDED:
    CHANNEL_LAYERS = {"default": {"BACKEND": "clusterui.layers.ThreadSafeInMemoryChannelLayer"}}
    CELERY_BROKER_URL = "memory://localhost/"
    CELERY_RESULT_BACKEND = "cache+memory://"
else:
    CHANNEL_LAYERS = {"default": redis_channel_layer(REDIS_URL)}
    CELERY_BROKER_URL = REDIS_URL
    CELERY_RESULT_BACKEND = REDIS_URL

CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_ACKS_LATE = True  # a worker killed mid-task leaves the message for another one
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# The longest a task may run (a reconcile of a very large cluster); the worker kills it after.
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 600, minimum=1)
# Redis redelivers a message its worker never acknowledged (killed mid-task: acks_late) once
# it has been unacknowledged this long. It must outlast the longest task, or a task still
# running would be handed to a second worker; kombu's default is an hour, which left a killed
# worker's reconcile stuck for that long. The sweep that restores such messages runs every
# tenth of it (at most every 10 s); a test can shorten both with CELERY_VISIBILITY_TIMEOUT.
CELERY_VISIBILITY_TIMEOUT = env_int("CELERY_VISIBILITY_TIMEOUT", CELERY_TASK_TIME_LIMIT + 60, minimum=1)
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": CELERY_VISIBILITY_TIMEOUT,
    "unacked_restore_interval": max(1, min(10, CELERY_VISIBILITY_TIMEOUT // 10)),
    "unacked_restore_throttle": 1,
}
# A reconcile redelivered after a worker died must not be dropped as expired on the way:
# reconcile_cluster's own `expires` (120 s) is raised past the visibility timeout.
CELERY_TASK_ANNOTATIONS = {"scheduling.tasks.reconcile_cluster": {"expires": CELERY_VISIBILITY_TIMEOUT + 120}}
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BEAT_SCHEDULE = {
    "tick": {"task": "scheduling.tasks.tick", "schedule": 1.0, "options": {"expires": 5}},
}
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")

# --- security ---------------------------------------------------------------------------

HTTPS = env_bool("HTTPS", not DEBUG and not EMBEDDED)
SESSION_COOKIE_SECURE = HTTPS
CSRF_COOKIE_SECURE = HTTPS
SECURE_SSL_REDIRECT = HTTPS
SECURE_HSTS_SECONDS = 31536000 if HTTPS else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = HTTPS
SECURE_HSTS_PRELOAD = HTTPS
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if HTTPS else None
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": "WARNING"},
    "loggers": {"clusterui": {"level": "INFO"}, "scheduling": {"level": "INFO"}},
}
