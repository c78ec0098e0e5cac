"""The guard and its WSGI and ASGI adapters on the shared vectors' receipt and approval set."""
import asyncio
import base64
import io
import json
import unittest

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
