"""The registered close codes a server sends, sent by daphne too.

A page's socket that cannot join its group while the channel layer's broker is down is
closed with 1013 Try Again Later (scheduling/consumers.py), a code the htmx ws extension
reconnects on (with 1006, 1011 and 1012). Daphne passes a consumer's close code to
autobahn's `sendClose`, which allows only 1000 and 3000-4999 and raised instead
(`invalid close code 1013`): a traceback in daphne's log for every socket that connected
during the outage, and the socket closed with 1011. Daphne itself closes with 1011 through
autobahn's `sendCloseFrame`; the patched `serverClose` sends the codes RFC 6455 and the
IANA registry give servers for such cases (1011 Internal Error, 1012 Service Restart, 1013
Try Again Later, 1014 Bad Gateway) the same way, and leaves every other code to
`sendClose` as before.
"""

from __future__ import annotations

try:
    from daphne.ws_protocol import WebSocketProtocol
except ImportError:  # daphne not installed: nothing to patch
    WebSocketProtocol = None

SERVER_CODES = frozenset({1011, 1012, 1013, 1014})


def install() -> bool:
    """Patch daphne's websocket protocol (once); False when daphne is not installed."""
    if WebSocketProtocol is None:
        return False
    if getattr(WebSocketProtocol, "_clusterui_server_codes", False):
        return True
    server_close = WebSocketProtocol.serverClose

    def close_with_registered_codes(self, code=None):
        if code in SERVER_CODES:
            self.sendCloseFrame(code=code, isReply=False)
        else:
            server_close(self, code)

    WebSocketProtocol.serverClose = close_with_registered_codes
    WebSocketProtocol._clusterui_server_codes = True
    return True
