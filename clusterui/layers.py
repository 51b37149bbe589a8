"""An in-memory channel layer that may be written to from any thread.

Embedded mode runs the Celery worker in a thread of the web process. Channels'
InMemoryChannelLayer keeps asyncio queues that belong to the server's event loop; putting
into them from the worker thread's own loop would not wake the server's loop. This layer
remembers the loop its consumers receive on and hops sends over to it.
"""

import asyncio

from channels.layers import InMemoryChannelLayer


class ThreadSafeInMemoryChannelLayer(InMemoryChannelLayer):
    _home_loop: asyncio.AbstractEventLoop | None = None

    async def receive(self, channel):
        self._home_loop = asyncio.get_running_loop()
        return await super().receive(channel)

    async def _at_home(self, coro_fn, *args):
        home = self._home_loop
        here = asyncio.get_running_loop()
        if home is None or home is here or home.is_closed() or not home.is_running():
            return await coro_fn(*args)
        future = asyncio.run_coroutine_threadsafe(coro_fn(*args), home)
        return await asyncio.wrap_future(future)

    async def send(self, channel, message):
        return await self._at_home(super().send, channel, message)

    async def group_send(self, group, message):
        return await self._at_home(super().group_send, group, message)

    async def group_add(self, group, channel):
        return await self._at_home(super().group_add, group, channel)

    async def group_discard(self, group, channel):
        return await self._at_home(super().group_discard, group, channel)


# channels_redis waits for messages with a blocking pop of up to 5 s. redis-py 8 gives every
# connection a 5 s socket_timeout by default, which cuts that pop and kills the consumer
# (redis.exceptions.TimeoutError; django/channels_redis#422): every idle websocket was
# dropped within seconds. A read timeout well above the pop keeps them; a dead Redis is
# still noticed by the connect timeout and the health check.
REDIS_SOCKET_TIMEOUT = 30
REDIS_CONNECT_TIMEOUT = 5
# redis-py 8's asyncio pools hold at most 100 connections and refuse the 101st at once
# (MaxConnectionsError) instead of waiting: a room of 100 pages connecting, joining their
# group and receiving at the same moment took more, and sockets were closed (1013) for it.
# Redis itself takes 10,000 clients.
REDIS_MAX_CONNECTIONS = 2000


def redis_channel_layer(url: str, **config) -> dict:
    """The CHANNEL_LAYERS entry for a RedisChannelLayer at `url`."""
    host = {"address": url, "socket_timeout": REDIS_SOCKET_TIMEOUT, "socket_connect_timeout": REDIS_CONNECT_TIMEOUT,
            "max_connections": REDIS_MAX_CONNECTIONS}
    return {"BACKEND": "channels_redis.core.RedisChannelLayer", "CONFIG": {"hosts": [host], **config}}
