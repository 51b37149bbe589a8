"""Request bodies bounded in daphne itself, before Django sees them.

Daphne is built on Twisted's `http.Request`, which reads the whole body into a file and
then, for a POST of `multipart/form-data` or `application/x-www-form-urlencoded`, parses
it into `request.args` before daphne hands the request on: a form of 20 MiB cost about
260 MB and seconds of the reactor thread there, although nobody reads those `args`
(daphne passes the raw body to Django, which parses it again, once). So, on daphne's
request class (`daphne.http_protocol.WebRequest`, whichever way daphne was started:
`manage.py serve` or `daphne clusterui.asgi:application`):

* `gotLength`: a declared Content-Length past the limit (middleware.request_limit) is
  answered 413 with the API server's words at once and the connection closed: the body
  is never read;
* `requestReceived`: Twisted's form parsing is skipped (it parses only a body whose
  length it sees: the content file is rewound first; daphne rewinds it anyway).
"""

from __future__ import annotations

import logging

from clusterui.middleware import too_large_body, request_limit

try:
    from daphne.http_protocol import WebRequest
except ImportError:  # daphne not installed: nothing to bound here
    WebRequest = None

logger = logging.getLogger(__name__)


def install() -> bool:
    """Patch daphne's request class (once); False when daphne is not installed."""
    if WebRequest is None:
        return False
    if getattr(WebRequest, "_clusterui_bounded", False):
        return True
    got_length = WebRequest.gotLength
    request_received = WebRequest.requestReceived

    def bounded_got_length(self, length):
        limit = request_limit((self.requestHeaders.getRawHeaders(b"content-type") or [None])[0])
        if length is not None and length > limit:
            self._clusterui_refused = True
            body = too_large_body(limit).encode()
            logger.warning("413: a request body of %s bytes (limit %s)", length, limit)
            transport = self.channel.transport
            transport.write(b"HTTP/1.1 413 Request Entity Too Large\r\nContent-Type: text/html; charset=utf-8\r\n"
                            + f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body)
            transport.loseConnection()
            length = 0  # nothing of the body is kept
        return got_length(self, length)

    def handle_content_chunk(self, data):
        if getattr(self, "_clusterui_refused", False):
            return  # the connection is closing: what still arrives is dropped
        return original_chunk(self, data)

    def unparsed_request_received(self, command, path, version):
        if getattr(self, "_clusterui_refused", False):
            return
        self.content.seek(0, 0)  # Twisted parses a form body only when it sees its length
        return request_received(self, command, path, version)

    original_chunk = WebRequest.handleContentChunk
    WebRequest.gotLength = bounded_got_length
    WebRequest.handleContentChunk = handle_content_chunk
    WebRequest.requestReceived = unparsed_request_received
    WebRequest._clusterui_bounded = True
    return True
