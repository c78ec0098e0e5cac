"""Offline check of a `presence.receipt.v1` receipt, the same checks as the TypeScript SDK:
schema, hash, serviceSignature, serviceKeyValid, challengeBinding, clientData, rpIdHash, flags,
webauthnSignature; plus ``action`` (the executor's own action) and ``maxAge`` when asked."""
import base64
import hashlib
import hmac
import json
import time
from typing import Any, Dict, List, Optional, Tuple

from .canonical import action_hash, canonical_json
from .cbor import decode_cbor
from .cose import verify_cose_signature
from .report import Check, Report, b64url_decode, check_service_signature, iso_ms, keys_of
from .schema import RECEIPT_V1, schema_problem

__all__ = ["verify_receipt", "derive_challenge", "check_action", "check_max_age"]

CHALLENGE_LABEL = b"presence/v1/challenge"


def derive_challenge(action_hash_bytes: bytes, nonce: bytes) -> bytes:
    """SHA-256("presence/v1/challenge" || 0x00 || actionHash[32] || nonce[32]) (docs/api-contract.md#2-the-action-is-inside-the-signed-bytes)."""
    if len(action_hash_bytes) != 32 or len(nonce) != 32:
        raise ValueError("the action hash and the nonce must be 32 bytes each")
    return hashlib.sha256(CHALLENGE_LABEL + b"\x00" + action_hash_bytes + nonce).digest()


def _b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _no_duplicates(pairs: List[tuple]) -> dict:
    out: dict = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"clientDataJSON has the member {json.dumps(key)} more than once")
        out[key] = value
    return out


def _client_data(raw: bytes) -> Any:
    if raw.startswith(b"\xef\xbb\xbf"):
        return "clientDataJSON starts with a UTF-8 byte order mark"
    try:
        value = json.loads(raw.decode("utf-8"), object_pairs_hook=_no_duplicates)
    except ValueError as error:
        return str(error) if "more than once" in str(error) else "clientDataJSON is not UTF-8 JSON"
    if not isinstance(value, dict):
        return "clientDataJSON is not a JSON object"
    if not all(isinstance(value.get(k), str) for k in ("type", "challenge", "origin")):
        return "clientDataJSON lacks a string type, challenge or origin"
    if "crossOrigin" in value and not isinstance(value["crossOrigin"], bool):
        return "clientDataJSON crossOrigin is not a boolean"
    if "topOrigin" in value and not isinstance(value["topOrigin"], str):
        return "clientDataJSON topOrigin is not a string"
    return value


def _flags(auth: bytes, r: dict) -> Check:
    if len(auth) < 37:
        return Check(False, f"authenticatorData is {len(auth)} bytes; an assertion needs at least 37")
    bits = auth[32]
    up, uv, be, bs, at, ed = (bool(bits & m) for m in (0x01, 0x04, 0x08, 0x10, 0x40, 0x80))
    if at:
        return Check(False, "the AT flag (attested credential data) must not be set in an assertion")
    if ed and len(auth) == 37:
        return Check(False, "the ED flag is set but no extension data follows")
    if not ed and len(auth) > 37:
        return Check(False, f"{len(auth) - 37} bytes follow signCount without the ED flag")
    if ed:
        try:
            if not isinstance(decode_cbor(auth[37:]), dict):
                return Check(False, "the extension data after the ED flag is not a CBOR map")
        except ValueError as error:
            return Check(False, f"the extension data after the ED flag is not well-formed CBOR ({error})")
    if not (up and uv):
        return Check(False, "user presence and user verification must both be set")
    if bs and not be:
        return Check(False, "BS is set without BE")
    claimed = r.get("flags") or {}
    same = all(claimed.get(k) is v for k, v in (("UP", up), ("UV", uv), ("BE", be), ("BS", bs)))
    if not same or int.from_bytes(auth[33:37], "big") != r.get("signCount"):
        return Check(False, "flags or signCount differ from authenticatorData")
    return Check(True, "UP and UV set; flags and signCount match authenticatorData")


def _assertion(r: dict) -> Dict[str, Check]:
    checks: Dict[str, Check] = {}
    try:
        challenge = _b64u(derive_challenge(bytes.fromhex(r["actionHashHex"]), b64url_decode(r["challengeNonceB64Url"])))
    except ValueError:
        challenge = None
    client_bytes = b64url_decode(r["clientDataJSONB64Url"])
    parsed = _client_data(client_bytes)
    client = parsed if isinstance(parsed, dict) else {}
    if isinstance(parsed, str):
        checks["clientData"] = Check(False, parsed)
    bound = challenge == r["challengeB64Url"] and client.get("challenge") == r["challengeB64Url"]
    checks["challengeBinding"] = (
        Check(True, "challenge = SHA-256(label || 0x00 || actionHash || nonce), and clientDataJSON carries it")
        if bound
        else Check(False, "the challenge does not commit to this action hash and nonce, or clientDataJSON carries another")
    )
    if "clientData" not in checks:
        same = (
            client.get("type") == "webauthn.get"
            and client.get("origin") == r["origin"]
            and (client.get("crossOrigin") is True) == (r["crossOrigin"] is True)
        )
        checks["clientData"] = (
            Check(True, f"webauthn.get from {r['origin']}") if same else Check(False, "clientDataJSON type, origin or crossOrigin differ from the receipt")
        )
    auth = b64url_decode(r["authenticatorDataB64Url"])
    rp_ok = len(auth) >= 37 and hmac.compare_digest(auth[:32], hashlib.sha256(r["rpId"].encode("utf-8")).digest())
    checks["rpIdHash"] = Check(True, f"authenticatorData is for {r['rpId']}") if rp_ok else Check(False, "rpIdHash in authenticatorData is not SHA-256(rpId)")
    checks["flags"] = _flags(auth, r)
    signed = auth + hashlib.sha256(client_bytes).digest()
    ok, detail = verify_cose_signature(b64url_decode(r["credentialPublicKeyB64Url"]), signed, b64url_decode(r["signatureB64Url"]))
    checks["webauthnSignature"] = Check(ok, detail)
    return checks


def check_action(action: Any, action_hash_hex: str) -> Check:
    try:
        computed = action_hash(action)
    except (TypeError, ValueError) as error:
        return Check(False, f"the executor's action has no canonical form: {error}")
    if computed == action_hash_hex:
        return Check(True, "the executor action hashes to actionHashHex")
    return Check(False, f"the executor action hashes to {computed}, the evidence is for {action_hash_hex}")


def check_max_age(at: Any, max_age_seconds: float, now: Optional[float]) -> Check:
    at_ms = iso_ms(at) or 0
    age = ((time.time() if now is None else now) * 1000 - at_ms) / 1000
    detail = f"{int(age // 1)} s old, at most {max_age_seconds} s accepted"
    return Check(age <= max_age_seconds, detail)


NOT_I_JSON = "a string is not well-formed Unicode (a lone surrogate), so it has no RFC 8785 form"


def check_signed_document(
    kind: str, name: str, schema: Any, signed: dict, member: str, dated_by: str, keys: List[dict]
) -> Tuple[Optional[str], Dict[str, Check]]:
    """The checks a signed v1 document shares (a receipt, an approval set): ``signed[member]``
    against its schema ``name``, the SHA-256 of its canonical bytes against ``signed[member +
    "HashHex"]`` when given, and the service's Ed25519 signature, valid at its ``dated_by`` time.
    The hash is None when the schema fails (the checks then hold only that)."""
    document = signed.get(member)
    hash_member = f"{member}HashHex"
    problem = schema_problem(document, schema)
    if problem is not None:
        return None, {"schema": Check(False, f"not a valid {name} object: {problem}")}
    try:
        text = canonical_json(document).encode("utf-8")
    except ValueError:
        return None, {"schema": Check(False, f"not a valid {name} object: {NOT_I_JSON}")}
    checks: Dict[str, Check] = {"schema": Check(True, f"a {name} object: every field present, well-formed, nothing else")}
    hash_hex = hashlib.sha256(text).hexdigest()
    expected = signed.get(hash_member)
    if hash_member not in signed:
        checks["hash"] = Check(True, f"SHA-256 of the canonical {kind} is {hash_hex} (no expected hash given)")
    else:
        checks["hash"] = Check(expected == hash_hex, f"{hash_member} matches the canonical bytes" if expected == hash_hex else f"expected {expected}, computed {hash_hex}")
    checks.update(check_service_signature(text, document[dated_by], signed.get("signature"), keys))
    return hash_hex, checks


def verify_receipt(
    signed: Any,
    keys: Any,
    action: Any = None,
    max_age_seconds: Optional[float] = None,
    now: Optional[float] = None,
) -> Report:
    """Checks a signed receipt ``{receipt, receiptHashHex, signature}`` offline against the service
    keys (a keys.json document or its list). ``action``: the executor's own action; ``now``: Unix
    seconds for the max-age check. Never raises on bad evidence: every problem is a failed check."""
    key_list = keys_of(keys)
    signed = signed if isinstance(signed, dict) else {"receipt": signed}
    r = signed.get("receipt")
    hash_hex, checks = check_signed_document("receipt", "presence.receipt.v1", RECEIPT_V1, signed, "receipt", "issuedAt", key_list)
    if hash_hex is None:
        return Report.of("receipt", None, None, checks)
    checks.update(_assertion(r))
    if action is not None:
        checks["action"] = check_action(action, r["actionHashHex"])
    if max_age_seconds is not None:
        checks["maxAge"] = check_max_age(r["issuedAt"], max_age_seconds, now)
    return Report.of("receipt", r["receiptId"], hash_hex, checks)
