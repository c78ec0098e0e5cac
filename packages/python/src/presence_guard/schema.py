"""The frozen v1 schemas (receipt v1, approval set v1) as plain checks: every member present and
well-formed, nothing else; the same rules as the TypeBox schemas of the TypeScript contract."""
import re
from typing import Any, Callable, Dict, Optional

from .report import is_b64url, iso_ms

Rule = Callable[[Any], bool]

_HASH = re.compile(r"^[0-9a-f]{64}$")


def _id(prefix: str) -> Rule:
    pattern = re.compile(r"^%s_[0-9A-HJKMNP-TV-Z]{26}$" % prefix)
    return lambda v: isinstance(v, str) and pattern.match(v) is not None


def _string(v: Any) -> bool:
    return isinstance(v, str)


def _integer(minimum: Optional[int] = None, maximum: Optional[int] = None) -> Rule:
    def rule(v: Any) -> bool:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or (isinstance(v, float) and not v.is_integer()):
            return False
        return (minimum is None or v >= minimum) and (maximum is None or v <= maximum)

    return rule


def _nullable(rule: Rule) -> Rule:
    return lambda v: v is None or rule(v)


def _hash(v: Any) -> bool:
    return isinstance(v, str) and _HASH.match(v) is not None


def _time(v: Any) -> bool:
    return iso_ms(v) is not None


def _flags(v: Any) -> bool:
    return isinstance(v, dict) and all(isinstance(v.get(k), bool) for k in ("UP", "UV", "BE", "BS"))


RECEIPT_V1: Dict[str, Rule] = {
    "version": lambda v: v == "presence.receipt.v1",
    "receiptId": _id("rct"),
    "tenantId": _id("ten"),
    "challengeId": _id("chl"),
    "decision": lambda v: v == "PRESENCE_VERIFIED",
    "actionHashHex": _hash,
    "purpose": _nullable(_string),
    "challengeNonceB64Url": is_b64url,
    "challengeB64Url": is_b64url,
    "challengeCreatedAt": _time,
    "challengeExpiresAt": _time,
    "verifiedAt": _time,
    "issuedAt": _time,
    "rpId": _string,
    "origin": _string,
    "topOrigin": _nullable(_string),
    "crossOrigin": lambda v: isinstance(v, bool),
    "flags": _flags,
    "signCount": _integer(0),
    "credentialId": is_b64url,
    "credentialRef": _id("cred"),
    "credentialPublicKeyB64Url": is_b64url,
    "credentialAlg": _integer(),
    "subject": _string,
    "authenticatorDataB64Url": is_b64url,
    "clientDataJSONB64Url": is_b64url,
    "signatureB64Url": is_b64url,
    "userHandleB64Url": _nullable(is_b64url),
    "policyId": _id("pol"),
    "policyVersion": _integer(1),
    "policyHashHex": _hash,
}


def _subject(v: Any) -> bool:
    return isinstance(v, str) and 1 <= len(v.encode("utf-16-le", "surrogatepass")) // 2 <= 256


def _entries(v: Any) -> bool:
    entry = {"subject": _subject, "receiptId": _id("rct"), "receiptHashHex": _hash}
    return isinstance(v, list) and 1 <= len(v) <= 20 and all(schema_problem(e, entry) is None for e in v)


APPROVAL_SET_V1: Dict[str, Rule] = {
    "version": lambda v: v == "presence.approval-set.v1",
    "approvalId": _id("apr"),
    "tenantId": _id("ten"),
    "actionHashHex": _hash,
    "action": lambda v: isinstance(v, dict),
    "title": lambda v: v is None or (isinstance(v, str) and len(v.encode("utf-16-le", "surrogatepass")) // 2 <= 120),
    "required": _integer(1, 20),
    "approvers": lambda v: isinstance(v, list) and 1 <= len(v) <= 20 and all(_subject(s) for s in v),
    "initiator": _subject,
    "approvals": _entries,
    "createdAt": _time,
    "decidedAt": _time,
}
OPTIONAL = {"initiator"}


def schema_problem(value: Any, rules: Dict[str, Rule]) -> Optional[str]:
    """None when ``value`` fits ``rules`` exactly, else the first problem."""
    if not isinstance(value, dict):
        return "not a JSON object"
    for name, rule in rules.items():
        if name not in value:
            if name in OPTIONAL:
                continue
            return f"/{name} is missing"
        if not rule(value[name]):
            return f"/{name} is not well-formed"
    extra = [k for k in value if k not in rules]
    return f"/{extra[0]} is not a member of this version" if extra else None
