"""What every verifier returns: one named check per rule, as the TypeScript SDK reports them."""
import base64
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Dict, List, NamedTuple, Optional

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric import ed25519

__all__ = ["Check", "Report", "b64url_decode", "iso_ms", "check_service_signature", "keys_of"]


class Check(NamedTuple):
    ok: bool
    detail: str


@dataclass
class Report:
    valid: bool
    kind: str
    id: Optional[str]
    hash_hex: Optional[str]
    checks: Dict[str, Check] = field(default_factory=dict)

    @property
    def failed(self) -> List[str]:
        return [name for name, check in self.checks.items() if not check.ok]

    @staticmethod
    def of(kind: str, id_: Optional[str], hash_hex: Optional[str], checks: Dict[str, Check]) -> "Report":
        return Report(all(c.ok for c in checks.values()), kind, id_, hash_hex, checks)


_B64URL = re.compile(r"^[A-Za-z0-9_-]*$")
_ISO = re.compile(r"^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})$", re.IGNORECASE)


def b64url_decode(text: str) -> bytes:
    """Decodes like Node's Buffer.from(text, "base64url"): a dangling last character is ignored."""
    text = text.rstrip("=")
    if len(text) % 4 == 1:
        text = text[:-1]
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def is_b64url(value: Any, max_length: int = 65536) -> bool:
    return isinstance(value, str) and len(value) <= max_length and _B64URL.match(value) is not None


def iso_ms(value: Any) -> Optional[int]:
    """Milliseconds since the epoch of an RFC 3339 date-time (as JavaScript's Date.parse), or None."""
    match = _ISO.match(value) if isinstance(value, str) else None
    if match is None:
        return None
    zone = match.group(3).upper()
    try:
        whole = datetime.fromisoformat(match.group(1) + ("+00:00" if zone == "Z" else zone))
    except ValueError:
        return None
    fraction = (match.group(2) or ".")[1:4].ljust(3, "0")
    return int(whole.astimezone(timezone.utc).timestamp()) * 1000 + int(fraction)


def keys_of(document: Any) -> List[dict]:
    """The service keys of a keys.json document (or of a list of keys)."""
    keys = document.get("keys") if isinstance(document, dict) else document
    if not isinstance(keys, list):
        raise ValueError("not a keys.json document: expected {\"keys\": [...]}")
    return keys


def check_service_signature(message: bytes, dated_at: Any, sig: Any, keys: List[dict]) -> Dict[str, Check]:
    """Ed25519 over the canonical bytes with the named key, valid at the evidence's date."""
    if (
        not isinstance(sig, dict)
        or sig.get("alg") != "Ed25519"
        or not isinstance(sig.get("kid"), str)
        or not isinstance(sig.get("signatureB64Url"), str)
    ):
        return {"serviceSignature": Check(False, "no Ed25519 signature record {alg, kid, signatureB64Url} was given")}
    kid = sig["kid"]
    key = next((k for k in keys if isinstance(k, dict) and k.get("kid") == kid and k.get("use") != "log"), None)
    if key is None:
        return {"serviceSignature": Check(False, f"key {kid} is not among the trusted service keys")}
    try:
        public = ed25519.Ed25519PublicKey.from_public_bytes(b64url_decode(str(key.get("publicKeyB64Url"))))
        public.verify(b64url_decode(sig["signatureB64Url"]), message)
        signature = Check(True, f"signed by {kid}")
    except (InvalidSignature, ValueError):
        signature = Check(False, f"the signature does not verify with {kid}")
    at, not_before = iso_ms(dated_at), iso_ms(key.get("notBefore"))
    not_after = key.get("notAfter")
    after_ms = None if not_after is None else iso_ms(not_after)
    in_window = (
        at is not None
        and not_before is not None
        and at >= not_before
        and (not_after is None or (after_ms is not None and at <= after_ms))
    )
    validity = Check(True, f"dated within {kid}'s validity") if in_window else Check(False, f"the date is outside {kid}'s validity")
    return {"serviceSignature": signature, "serviceKeyValid": validity}
