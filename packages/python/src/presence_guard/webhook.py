"""Webhook signature checks under both schemes of docs/api-contract.md#8-webhooks: X-PRESENCE-Signature (HMAC keyed
with the secret string as UTF-8 over "<timestamp>.<deliveryId>.<body>") and Standard Webhooks
(HMAC keyed with the base64 bytes after ``whsec_`` over "<id>.<timestamp>.<body>")."""
import base64
import hashlib
import hmac
import json
import re
import time
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

__all__ = ["verify_webhook", "WebhookVerificationError"]


class WebhookVerificationError(Exception):
    """``code``: no_secret, missing_header, invalid_timestamp, timestamp_out_of_tolerance,
    signature_mismatch or invalid_body (the same codes as the TypeScript SDK)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def _standard_key(secret: str) -> bytes:
    text = secret[6:] if secret.startswith("whsec_") else secret
    text = text.replace("-", "+").replace("_", "/")
    return base64.b64decode(text + "=" * (-len(text) % 4))


_SCHEMES = {
    "presence": ("x-presence-signature", "x-presence-timestamp", "x-presence-delivery-id"),
    "standard-webhooks": ("webhook-signature", "webhook-timestamp", "webhook-id"),
}


def _header(headers: Mapping[str, Any], name: str, required: bool = True) -> str:
    value = next((v for k, v in headers.items() if k.lower() == name), None)
    if isinstance(value, (list, tuple)):
        value = " ".join(value)
    if value is None or str(value).strip() == "":
        if not required:
            return ""
        raise WebhookVerificationError("missing_header", f"the {name} header is missing")
    return str(value).strip()


def _macs(scheme: str, header: str) -> List[bytes]:
    parts = [p for p in re.split(r"\s+|,(?=v1[=,])", header) if p]
    if scheme == "presence":
        return [bytes.fromhex(p[3:]) for p in parts if re.fullmatch(r"v1=[0-9a-f]{64}", p)]
    return [base64.b64decode(p[3:]) for p in parts if re.fullmatch(r"v1,[A-Za-z0-9+/]{43}=", p)]


def verify_webhook(
    secret: Union[str, Sequence[str]],
    headers: Mapping[str, Any],
    raw_body: Union[bytes, str],
    now: Optional[float] = None,
    tolerance_seconds: int = 300,
) -> Dict[str, Any]:
    """Returns the event ``{id, type, createdAt, data}`` plus ``deliveryId``, ``timestamp`` and
    ``scheme``; raises WebhookVerificationError otherwise. Pass the body exactly as received;
    ``secret`` may be a list during a rotation. Dedupe on ``deliveryId``."""
    secrets = [secret] if isinstance(secret, str) else list(secret)
    if not secrets or any(not isinstance(s, str) or s == "" for s in secrets):
        raise WebhookVerificationError("no_secret", "pass the endpoint secret (or secrets)")
    body = raw_body.encode("utf-8") if isinstance(raw_body, str) else bytes(raw_body)
    scheme = "presence" if _header(headers, "x-presence-signature", False) else "standard-webhooks"
    sig_name, ts_name, id_name = _SCHEMES[scheme]
    signature, ts_text, delivery_id = (_header(headers, n) for n in (sig_name, ts_name, id_name))
    if not re.fullmatch(r"\d{1,12}", ts_text):
        raise WebhookVerificationError("invalid_timestamp", f"{ts_name} is not Unix seconds")
    timestamp = int(ts_text)
    if abs((time.time() if now is None else now) - timestamp) > tolerance_seconds:
        raise WebhookVerificationError("timestamp_out_of_tolerance", f"{ts_name} is more than {tolerance_seconds} s away from now")
    if scheme == "presence":
        signed, keys = f"{timestamp}.{delivery_id}.".encode("utf-8") + body, [s.encode("utf-8") for s in secrets]
    else:
        signed, keys = f"{delivery_id}.{timestamp}.".encode("utf-8") + body, [_standard_key(s) for s in secrets]
    expected = [hmac.new(k, signed, hashlib.sha256).digest() for k in keys]
    if not any(hmac.compare_digest(m, e) for m in _macs(scheme, signature) for e in expected):
        raise WebhookVerificationError("signature_mismatch", f"no v1 signature in {sig_name} matches any of the secrets")
    try:
        event = json.loads(body.decode("utf-8"))
    except ValueError as error:
        raise WebhookVerificationError("invalid_body", "the body is not JSON") from error
    if not isinstance(event, dict) or not all(isinstance(event.get(k), str) for k in ("id", "type", "createdAt")):
        raise WebhookVerificationError("invalid_body", "the body is not a Presence event {id, type, createdAt, data}")
    return {**event, "deliveryId": delivery_id, "timestamp": timestamp, "scheme": scheme}
