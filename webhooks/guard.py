"""Where webhooks may go (docs/webhooks.md#where-webhooks-may-go-ssrf): only http(s), and only to public addresses
unless WEBHOOK_ALLOW_PRIVATE_NETWORKS; the connection goes to the address checked."""

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit, urlunsplit

from django.conf import settings


class DeliveryRefused(Exception):
    """The target may not be called (SSRF guard); retried like any failure."""


@dataclass(frozen=True)
class Target:
    url: str  # what is connected to: the address that passed the check
    host: str  # the Host header: the merchant's name (and port)
    server_name: str | None  # TLS SNI and certificate name for https
    auth: tuple[str, str] | None


# NAT64's well-known prefix: the last 32 bits are the IPv4 address reached.
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


def _embedded(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address carries (and reaches through a relay or a
    translator): IPv4-mapped, 6to4, Teredo (server and client), NAT64."""
    out = [ip.ipv4_mapped, ip.sixtofour, *(ip.teredo or ())]
    if ip in _NAT64:
        out.append(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    return [address for address in out if address is not None]


def _is_public(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = _embedded(ip)
        if any(not _is_public_itself(inner) for inner in embedded):
            return False
        if ip.ipv4_mapped:
            return True  # the IPv4 address itself, checked just above
    return _is_public_itself(ip)


def _is_public_itself(ip) -> bool:
    # is_global also rules out shared (carrier-grade NAT, some clouds' metadata
    # services), documentation and benchmarking ranges, which is_private misses;
    # site-local (fec0::/10, deprecated but still routed by some) it does not.
    return ip.is_global and not (
        ip.is_private
        or ip.is_loopback
        or ip.is_link_local
        or ip.is_reserved
        or ip.is_multicast
        or ip.is_unspecified
        or getattr(ip, "is_site_local", False)
    )


def names_an_address(url: str) -> bool:
    """Whether the URL's host is an IP address: resolving it looks nothing up, so it
    cannot wait on DNS."""
    try:
        ipaddress.ip_address((urlsplit(url).hostname or "").split("%", 1)[0])
    except ValueError:
        return False
    return True


def resolve_target(url: str) -> Target:
    """Resolve the host once, check every address, and connect to the first one.

    The connection goes to the checked address whatever the scheme, so DNS cannot
    answer differently between the check and the connection (rebinding); the Host
    header and, for https, the TLS server name and certificate check keep the
    merchant's host name."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.scheme not in ("http", "https") or not host:
        raise DeliveryRefused(f"Refused: not an http(s) URL: {url[:100]}")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise DeliveryRefused(f"Cannot resolve {host}: {exc}")
    # getaddrinfo's order is the system's preference (RFC 6724): keep it.
    addresses = list(dict.fromkeys(info[4][0] for info in infos))
    if not addresses:
        raise DeliveryRefused(f"Cannot resolve {host}: no address")
    if not settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS:
        blocked = [a for a in addresses if not _is_public(a)]
        if blocked:
            raise DeliveryRefused(
                f"Refused: {host} resolves to a non-public address ({blocked[0]})"
            )
    address = addresses[0]
    literal = f"[{address}]" if ":" in address else address
    netloc = f"{literal}:{parts.port}" if parts.port else literal
    host_header = parts.netloc.rsplit("@", 1)[-1]
    auth = None
    if parts.username is not None:
        auth = (unquote(parts.username), unquote(parts.password or ""))
    return Target(
        url=urlunsplit((parts.scheme, netloc, parts.path or "/", parts.query, "")),
        host=host_header,
        server_name=host if parts.scheme == "https" else None,
        auth=auth,
    )
