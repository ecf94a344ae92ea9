"""The address a request really came from. Behind a proxy REMOTE_ADDR is the proxy's;
its X-Forwarded-For is believed only for hops listed in FORWARDED_ALLOW_IPS (the same
setting gunicorn reads: addresses or networks), so a client cannot choose its own
address by sending the header itself (traders.md §24).

The client is the rightmost hop that is not a trusted proxy: every trusted proxy
appends the address it was connected from, so the hops to the right of the client are
ours and the ones to its left are whatever the client wrote. `*` trusts whoever
connects as a proxy, and only that one: its last hop is the client."""

import ipaddress
from functools import lru_cache

from django.conf import settings


@lru_cache(maxsize=8)
def _networks(allowed: tuple[str, ...]) -> tuple:
    networks = []
    for entry in allowed:
        try:
            networks.append(ipaddress.ip_network(entry.strip(), strict=False))
        except ValueError:
            continue  # "*" and anything unreadable trust no hop by address
    return tuple(networks)


def _address(text: str):
    try:
        address = ipaddress.ip_address(text.strip())
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        return address.ipv4_mapped
    return address


def _trusted(text: str, networks: tuple) -> bool:
    address = _address(text)
    return address is not None and any(address in network for network in networks)


def client_address(request) -> str:
    remote = request.META.get("REMOTE_ADDR", "") or ""
    allowed = tuple(settings.FORWARDED_ALLOW_IPS)
    networks = _networks(allowed)
    any_peer = "*" in allowed
    if not (any_peer or _trusted(remote, networks)):
        return remote
    hops = [h.strip() for h in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
    hops = [h for h in hops if h]
    if not hops:
        return remote
    if any_peer:
        return hops[-1]
    # Walk back from the nearest hop: the first one not run by us is the client.
    for hop in reversed(hops):
        if not _trusted(hop, networks):
            return hop
    # Every hop is one of our proxies (a probe of its own): the connection's address.
    return remote


def client_ip(request) -> str | None:
    """client_address() when it is an IP address (for a column that stores one)."""
    address = _address(client_address(request))
    return str(address) if address is not None else None
