"""Thin WSGI and ASGI adapters (no framework dependency): the evidence comes from the
``Presence-Evidence`` header (base64url of the JSON) or the ``presenceEvidence`` member of a JSON
body; ``action`` builds the action from the request (environ or scope, and the parsed JSON body or
None). A refusal is a 403 application/problem+json naming the failed check; on success the report
is in ``environ["presence.evidence"]`` (WSGI) or ``scope["presence.evidence"]`` (ASGI)."""
import base64
import io
import json
from typing import Any, Callable, Iterable, Optional, Tuple

from .guard import EvidenceRefused, ReceiptGuard

__all__ = ["wsgi_guard", "asgi_guard", "read_evidence"]

HEADER = "presence-evidence"
BODY_FIELD = "presenceEvidence"


def read_evidence(header: Optional[str], body: Any) -> Any:
    """The evidence from the header value or the parsed body; raises EvidenceRefused."""
    if header:
        try:
            text = base64.urlsafe_b64decode(header + "=" * (-len(header) % 4)).decode("utf-8")
            return json.loads(text)
        except ValueError as error:
            raise EvidenceRefused("evidence", "the Presence-Evidence header is not base64url of JSON evidence") from error
    member = body.get(BODY_FIELD) if isinstance(body, dict) else None
    if member is None:
        raise EvidenceRefused("evidence", f"no evidence: send the Presence-Evidence header or the {BODY_FIELD} body member")
    if isinstance(member, str):
        try:
            return json.loads(member)
        except ValueError as error:
            raise EvidenceRefused("evidence", f"{BODY_FIELD} is not JSON evidence") from error
    return member


def _json_body(raw: bytes) -> Any:
    try:
        return json.loads(raw.decode("utf-8")) if raw else None
    except ValueError:
        return None


def _problem(refused: EvidenceRefused) -> Tuple[bytes, list]:
    body = json.dumps(refused.problem()).encode("utf-8")
    return body, [("content-type", "application/problem+json"), ("content-length", str(len(body)))]


def wsgi_guard(app: Callable, guard: ReceiptGuard, action: Callable[[dict, Any], Any]) -> Callable:
    """WSGI middleware: ``app`` runs only when the evidence passes; its body stays readable."""

    def middleware(environ: dict, start_response: Callable) -> Iterable[bytes]:
        length = int(environ.get("CONTENT_LENGTH") or 0)
        raw = environ["wsgi.input"].read(length) if length > 0 else b""
        environ["wsgi.input"] = io.BytesIO(raw)
        body = _json_body(raw)
        try:
            evidence = read_evidence(environ.get("HTTP_PRESENCE_EVIDENCE"), body)
            environ["presence.evidence"] = guard.check(evidence, action(environ, body))
        except EvidenceRefused as refused:
            payload, headers = _problem(refused)
            start_response("403 Forbidden", headers)
            return [payload]
        return app(environ, start_response)

    return middleware


def asgi_guard(app: Callable, guard: ReceiptGuard, action: Callable[[dict, Any], Any]) -> Callable:
    """ASGI middleware for HTTP scopes; the body is read once and replayed to ``app``."""

    async def middleware(scope: dict, receive: Callable, send: Callable) -> None:
        if scope.get("type") != "http":
            await app(scope, receive, send)
            return
        chunks, more = [], True
        while more:
            message = await receive()
            chunks.append(message.get("body", b""))
            more = message.get("more_body", False)
        raw = b"".join(chunks)
        body = _json_body(raw)
        header = next((v.decode("latin-1") for k, v in scope.get("headers", []) if k.decode("latin-1").lower() == HEADER), None)
        try:
            evidence = read_evidence(header, body)
            scope["presence.evidence"] = guard.check(evidence, action(scope, body))
        except EvidenceRefused as refused:
            payload, headers = _problem(refused)
            await send({"type": "http.response.start", "status": 403, "headers": [(k.encode(), v.encode()) for k, v in headers]})
            await send({"type": "http.response.body", "body": payload})
            return
        replayed = False

        async def replay() -> dict:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": raw, "more_body": False}
            return await receive()

        await app(scope, replay, send)

    return middleware
