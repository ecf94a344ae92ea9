"""A real HTTP receiver on 127.0.0.1 for webhook tests."""

import threading
import time
from http.server import BaseHTTPRequestHandler

from core.testing import LocalServer


class Receiver:
    def __init__(self):
        self.requests: list[dict] = []
        self.status = 200
        self.delay = 0.0
        self.body = b"ok"
        self.redirect_to: str | None = None
        # Answer one header byte at a time, this many seconds apart: every read is
        # quick, the whole answer is not.
        self.trickle = 0.0
        # Answer as HTTP/1.1 and keep the connection open for the next request.
        self.keep_alive = False
        # Requests being answered right now, and the most there ever were at once.
        self.in_flight = 0
        self.most_in_flight = 0
        lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            @property
            def protocol_version(self):
                return "HTTP/1.1" if receiver.keep_alive else "HTTP/1.0"

            def do_POST(self):
                with lock:
                    receiver.in_flight += 1
                    receiver.most_in_flight = max(receiver.most_in_flight, receiver.in_flight)
                self.counted = True
                try:
                    self.answer()
                finally:
                    self.answered()

            def answered(self):
                """Out of the count once the answer starts: a sender that has read it
                may send its next request before this thread gets a core back."""
                if self.counted:
                    self.counted = False
                    with lock:
                        receiver.in_flight -= 1

            def answer(self):
                length = int(self.headers.get("Content-Length", 0))
                body = self.rfile.read(length)
                receiver.requests.append(
                    {
                        "headers": dict(self.headers),
                        "body": body,
                        "path": self.path,
                        "client_port": self.client_address[1],
                    }
                )
                if receiver.delay:
                    time.sleep(receiver.delay)
                self.answered()
                if receiver.trickle:
                    self.wfile.write(b"HTTP/1.1 200 OK\r\n")
                    try:
                        for byte in b"X-Slow: " + b"a" * 200:
                            self.wfile.write(bytes([byte]))
                            self.wfile.flush()
                            time.sleep(receiver.trickle)
                    except OSError:
                        pass
                    return
                if receiver.redirect_to:
                    self.send_response(302)
                    self.send_header("Location", receiver.redirect_to)
                    self.end_headers()
                    return
                self.send_response(receiver.status)
                self.send_header("Content-Length", str(len(receiver.body)))
                self.end_headers()
                self.wfile.write(receiver.body)

            def log_message(self, *args):
                pass

        self.local = LocalServer(Handler)

    @property
    def url(self) -> str:
        return f"{self.local.base_url}/hooks"

    def close(self):
        self.local.close()
