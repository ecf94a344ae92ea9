"""The address a request really came from. Behind a proxy REMOTE_ADDR is the proxy's;
its X-Forwarded-For is believed only for hops listed in FORWARDED_ALLOW_IPS (the same
setting gunicorn reads), so a client cannot choose its own address by sending the
header itself."""

from django.conf import settings


def _trusted(address: str, allowed: list[str]) -> bool:
    return "*" in allowed or address in allowed


def client_address(request) -> str:
    remote = request.META.get("REMOTE_ADDR", "") or ""
    allowed = settings.FORWARDED_ALLOW_IPS
    if not _trusted(remote, allowed):
        return remote
    hops = [h.strip() for h in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
    hops = [h for h in hops if h]
    # Walk back from the nearest hop: the first one not run by us is the client.
    for hop in reversed(hops):
        if not _trusted(hop, allowed):
            return hop
    return hops[0] if hops else remote
