from django.urls import Resolver404, resolve
from django.views.decorators.csrf import csrf_exempt

from .error_codes import ErrorCode
from .errors import error_response


# The API authenticates by key, never by cookie: without the exemption a POST to an
# unknown route would meet the CSRF check's HTML 403 instead of the JSON 404.
@csrf_exempt
def api_fallback(request, *args, **kwargs):
    """Unknown /api/ route: JSON 404. A route that differs from a known one only by
    its trailing slash is served by that route rather than redirected (a redirect
    would drop a POST body)."""
    path = request.path_info
    alternative = path[:-1] if path.endswith("/") else path + "/"
    try:
        match = resolve(alternative)
    except Resolver404:
        match = None
    if match is not None and match.func is not api_fallback:
        request.path_info = alternative
        return match.func(request, *match.args, **match.kwargs)
    return error_response(ErrorCode.NOT_FOUND)
