"""The shared cache's Redis backend, with two things the stock one lacks.

- One client per connection pool, made once: Django's client builds a new
  `redis.Redis` (and its table of response callbacks) on every call, which cost more
  than the round trip itself on every rate-limited request.
- `round_trip`: a request's counters in one trip to Redis (a pipeline): the rate
  limit's INCR and the reads every request makes (the failed-auth count, the
  configuration generation), where the stock API would take one trip each (two for
  an INCR: it asks first whether the key exists).
"""

from django.core.cache.backends import redis as django_redis


class RedisCacheClient(django_redis.RedisCacheClient):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients = {}

    def get_client(self, key=None, *, write=False):
        index = self._get_connection_pool_index(write)
        client = self._clients.get(index)
        if client is None:
            pool = self._get_connection_pool(write)
            client = self._clients[index] = self._client(connection_pool=pool)
        return client


class RedisCache(django_redis.RedisCache):
    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = RedisCacheClient

    def round_trip(self, *, incr: tuple[str, int] | None, get: list[str]) -> tuple:
        """INCR `incr[0]` (a counter kept `incr[1]` seconds from its first count) and GET
        each key of `get`, in one trip; returns (count or None, [values])."""
        client = self._cache.get_client(write=True)
        pipe = client.pipeline(transaction=False)
        counter = None
        if incr is not None:
            counter = self.make_and_validate_key(incr[0])
            pipe.incr(counter)
            pipe.ttl(counter)
        for key in get:
            pipe.get(self.make_and_validate_key(key))
        out = pipe.execute()
        count = None
        if counter is not None:
            count, ttl = out[0], out[1]
            out = out[2:]
            if ttl == -1:  # the window's first count: it must not outlive the window
                client.expire(counter, incr[1])
        loads = self._cache._serializer.loads
        return count, [None if value is None else loads(value) for value in out]
