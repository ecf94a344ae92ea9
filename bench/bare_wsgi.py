"""The framework's ceiling: a WSGI app with no Django, served by the same gunicorn
(gunicorn.conf.py, same workers x threads) as the service. Every request gets the
small JSON body ping answers with."""

BODY = b'{"success":true}'
HEADERS = [("Content-Type", "application/json"), ("Content-Length", str(len(BODY)))]


def app(environ, start_response):
    start_response("200 OK", HEADERS)
    return [BODY]
