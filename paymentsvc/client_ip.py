"""The client's address, believing `X-Forwarded-For` only from our own proxies.

`REMOTE_ADDR` is the peer that opened the connection. When that peer is one of
`TRUSTED_PROXIES` (addresses or networks), the header's entries are read from the
right, skipping further trusted proxies; the first one that is not ours is the client.
Anything a client writes into the header itself sits to the left of that and is never
believed. With no trusted proxies configured the header is ignored altogether.
"""

import ipaddress
from functools import lru_cache

from django.conf import settings


@lru_cache(maxsize=8)
def _networks(proxies: tuple[str, ...]):
    return tuple(ipaddress.ip_network(p.strip(), strict=False) for p in proxies if p.strip())


def _trusted(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in net for net in _networks(tuple(settings.TRUSTED_PROXIES)))


def client_address(request) -> str:
    address = request.META.get("REMOTE_ADDR", "") or ""
    if not _trusted(address):
        return address
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    for hop in reversed([h.strip() for h in forwarded.split(",") if h.strip()]):
        try:
            ipaddress.ip_address(hop)
        except ValueError:
            return address
        if not _trusted(hop):
            return hop
        address = hop
    return address
