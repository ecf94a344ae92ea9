"""The request being served, for entries written where no request is at hand (an admin
LogEntry, a service called by a view): its client address and which objects this
request has already audited."""

from contextvars import ContextVar

_request: ContextVar = ContextVar("audit_request", default=None)


def current_request():
    return _request.get()


class AuditRequestMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        token = _request.set(request)
        try:
            return self.get_response(request)
        finally:
            _request.reset(token)
