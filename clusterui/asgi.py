"""ASGI entry point: HTTP through Django, websockets through Channels (session auth,
origin checked against ALLOWED_HOSTS)."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "clusterui.settings")
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from .daphne_close import install as close_with_registered_codes  # noqa: E402
from .daphne_limits import install as bound_daphne_requests  # noqa: E402
from .memory import return_large_blocks  # noqa: E402
from .middleware import StreamSizeLimit  # noqa: E402
from .routing import websocket_urlpatterns  # noqa: E402

bound_daphne_requests()  # daphne itself refuses a body past the limit and parses no form
close_with_registered_codes()  # a consumer's 1013 Try Again Later reaches the page
return_large_blocks()  # a freed 20 MiB string leaves the resident set

application = ProtocolTypeRouter(
    {
        "http": StreamSizeLimit(django_asgi_app),  # a body past the limit: 413, never spooled
        "websocket": AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
    }
)
