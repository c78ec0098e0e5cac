"""The guard and its WSGI and ASGI adapters on the shared vectors' receipt and approval set, and
KeySource(url=...) against a real local HTTP server serving keys.json (or failing)."""
import asyncio
import base64
import io
import json
import socket
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from presence_guard import EvidenceRefused, KeySource, ReceiptGuard, asgi_guard, wsgi_guard
from presence_guard.report import iso_ms

from .vectors import load


def header(evidence: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(evidence).encode()).rstrip(b"=").decode()


class Guard(unittest.TestCase):
    def setUp(self) -> None:
        self.keys, self.receipt, self.action = load("keys.json"), load("receipt.json"), load("action.json")

    def test_accepts_once_then_refuses_reuse(self) -> None:
        guard = ReceiptGuard(self.keys)
        self.assertTrue(guard.check(self.receipt, self.action).valid)
        with self.assertRaises(EvidenceRefused) as caught:
            guard.check(self.receipt, self.action)
        self.assertEqual(caught.exception.check, "singleUse")

    def test_refuses_another_action_and_does_not_consume(self) -> None:
        guard = ReceiptGuard(KeySource(pinned=self.keys))
        with self.assertRaises(EvidenceRefused) as caught:
            guard.check(self.receipt, load("other-action.json"))
        self.assertEqual(caught.exception.check, "action")
        self.assertEqual(caught.exception.problem()["status"], 403)
        self.assertTrue(guard.check(self.receipt, self.action).valid)

    def test_refuses_old_evidence(self) -> None:
        guard = ReceiptGuard(self.keys, max_age_seconds=60)
        issued = iso_ms(self.receipt["receipt"]["issuedAt"]) / 1000
        with self.assertRaises(EvidenceRefused) as caught:
            guard.check(self.receipt, self.action, now=issued + 61)
        self.assertEqual(caught.exception.check, "maxAge")
        self.assertTrue(guard.check(self.receipt, self.action, now=issued + 59).valid)

    def test_approval_set_once(self) -> None:
        guard = ReceiptGuard(self.keys)
        evidence = load("approval-set.json")
        self.assertEqual(guard.check(evidence, self.action).kind, "approvalSet")
        with self.assertRaises(EvidenceRefused):
            guard.check(evidence, self.action)


def _app(environ: dict, start_response) -> list:
    start_response("200 OK", [("content-type", "text/plain")])
    return [b"executed " + environ["wsgi.input"].read()]


class Wsgi(unittest.TestCase):
    def call(self, app, body: bytes, headers: dict) -> tuple:
        environ = {"REQUEST_METHOD": "POST", "CONTENT_LENGTH": str(len(body)), "wsgi.input": io.BytesIO(body), **headers}
        status = []
        out = b"".join(app(environ, lambda s, h: status.append(s)))
        return status[0], out

    def test_header_then_replay(self) -> None:
        action = load("action.json")
        app = wsgi_guard(_app, ReceiptGuard(load("keys.json")), lambda environ, body: body)
        body = json.dumps(action).encode()
        evidence = {"HTTP_PRESENCE_EVIDENCE": header(load("receipt.json"))}
        self.assertEqual(self.call(app, body, evidence), ("200 OK", b"executed " + body))
        status, out = self.call(app, body, evidence)
        self.assertEqual(status, "403 Forbidden")
        self.assertEqual(json.loads(out)["check"], "singleUse")

    def test_body_member_and_missing_evidence(self) -> None:
        action = load("action.json")
        app = wsgi_guard(_app, ReceiptGuard(load("keys.json")), lambda environ, body: {k: v for k, v in body.items() if k != "presenceEvidence"})
        status, _ = self.call(app, json.dumps({**action, "presenceEvidence": load("approval-set.json")}).encode(), {})
        self.assertEqual(status, "200 OK")
        status, out = self.call(app, json.dumps(action).encode(), {})
        self.assertEqual((status, json.loads(out)["check"]), ("403 Forbidden", "evidence"))


class Asgi(unittest.TestCase):
    def test_refuses_and_accepts(self) -> None:
        async def app(scope, receive, send) -> None:
            message = await receive()
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": message["body"]})

        guard = asgi_guard(app, ReceiptGuard(load("keys.json")), lambda scope, body: body)

        async def call(body: bytes, evidence: object) -> tuple:
            sent = []
            scope = {"type": "http", "headers": [(b"presence-evidence", header(evidence).encode())]}
            messages = [{"type": "http.request", "body": body, "more_body": False}]

            async def receive() -> dict:
                return messages.pop(0)

            async def send(message: dict) -> None:
                sent.append(message)

            await guard(scope, receive, send)
            return sent[0]["status"], sent[1]["body"]

        other = json.dumps(load("other-action.json")).encode()
        status, out = asyncio.run(call(other, load("receipt.json")))
        self.assertEqual((status, json.loads(out)["check"]), (403, "action"))
        body = json.dumps(load("action.json")).encode()
        self.assertEqual(asyncio.run(call(body, load("receipt.json"))), (200, body))


if __name__ == "__main__":
    unittest.main()


class KeyServer(BaseHTTPRequestHandler):
    body = b""
    down = False
    fetches = 0

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        type(self).fetches += 1
        status, body = (503, b"") if type(self).down else (200, type(self).body)
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


class FetchedKeys(unittest.TestCase):
    def setUp(self) -> None:
        self.keys, self.receipt, self.action = load("keys.json"), load("receipt.json"), load("action.json")
        KeyServer.body, KeyServer.down, KeyServer.fetches = json.dumps(self.keys).encode(), False, 0
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), KeyServer)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/.well-known/presence/keys.json"
        self.now = 0.0

    def tearDown(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def source(self) -> KeySource:
        return KeySource(url=self.url, cache_seconds=60, refetch_seconds=30, retry_seconds=5, clock=lambda: self.now)

    def test_cached_then_refetched_for_an_unknown_kid_after_the_interval(self) -> None:
        source = self.source()
        guard = ReceiptGuard(source)
        self.assertTrue(guard.check(self.receipt, self.action).valid)
        self.assertEqual(source.keys(), self.keys["keys"])
        source.keys("ed25519-unknown")
        self.assertEqual(KeyServer.fetches, 1)
        self.now = 31
        source.keys("ed25519-unknown")
        self.assertEqual(KeyServer.fetches, 2)
        self.now = 92  # past cache_seconds: fetched again even for a known key id
        source.keys()
        self.assertEqual(KeyServer.fetches, 3)

    def test_unreachable_cache_then_named_refusal_and_backoff(self) -> None:
        source = self.source()
        guard = ReceiptGuard(source)
        source.keys()
        KeyServer.down = True
        self.now = 31  # the re-fetch for an unknown key id fails: the cached keys still serve
        self.assertEqual(source.keys("ed25519-unknown"), self.keys["keys"])
        self.assertEqual(source.keys("ed25519-unknown"), self.keys["keys"])
        self.assertEqual(KeyServer.fetches, 2)
        self.now = 61  # the cache has expired: no keys, the guard refuses naming the check
        for _ in range(2):
            with self.assertRaises(EvidenceRefused) as caught:
                guard.check(self.receipt, self.action)
            self.assertEqual(caught.exception.check, "serviceSignature")
            self.assertIn("503", caught.exception.detail)
        self.assertEqual(KeyServer.fetches, 3)
        KeyServer.down = False
        self.now = 65.9
        with self.assertRaises(EvidenceRefused):
            guard.check(self.receipt, self.action)
        self.assertEqual(KeyServer.fetches, 3)
        self.now = 66
        self.assertTrue(guard.check(self.receipt, self.action).valid)
        self.assertEqual(KeyServer.fetches, 4)

    def test_nothing_listening_is_a_named_refusal(self) -> None:
        closed = socket.socket()
        closed.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{closed.getsockname()[1]}/keys.json"
        closed.close()
        with self.assertRaises(EvidenceRefused) as caught:
            ReceiptGuard(self.source()).check(self.receipt, self.action)
        self.assertEqual(caught.exception.check, "serviceSignature")
        self.assertIn("could not be read", caught.exception.detail)
