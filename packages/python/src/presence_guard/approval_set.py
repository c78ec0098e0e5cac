"""Offline check of a `presence.approval-set.v1` approval set with the receipts it lists (contract
§13): schema, hash, serviceSignature, serviceKeyValid, actionHash, receipts, requiredApprovals,
distinctSubjects, listedApprovers, initiatorExcluded; plus ``action`` and ``maxAge`` when asked."""
from typing import Any, Dict, List, Optional

from .canonical import action_hash
from .receipt import check_action, check_max_age, check_signed_document, verify_receipt
from .report import Check, Report, keys_of
from .schema import APPROVAL_SET_V1

__all__ = ["verify_approval_set"]


def _receipts(s: dict, receipts: Any, keys: List[dict]) -> Check:
    listed = receipts if isinstance(receipts, list) else []
    for entry in s["approvals"]:
        rid = entry["receiptId"]
        signed = next((x for x in listed if isinstance(x, dict) and isinstance(x.get("receipt"), dict) and x["receipt"].get("receiptId") == rid), None)
        if signed is None:
            return Check(False, f"the receipt {rid} is not in the evidence")
        report = verify_receipt(signed, keys)
        if not report.valid:
            return Check(False, f"the receipt {rid} is not valid ({', '.join(report.failed)})")
        receipt = signed["receipt"]
        if report.hash_hex != entry["receiptHashHex"]:
            return Check(False, f"the receipt {rid} does not hash to the listed receiptHashHex")
        if receipt["subject"] != entry["subject"]:
            return Check(False, f"the receipt {rid} is for {receipt['subject']}, listed for {entry['subject']}")
        if receipt["actionHashHex"] != s["actionHashHex"]:
            return Check(False, f"the receipt {rid} is for another action")
    return Check(True, f"every listed receipt is valid, for this action and its listed subject ({len(s['approvals'])})")


def _approvers(s: dict) -> Dict[str, Check]:
    subjects = [a["subject"] for a in s["approvals"]]
    duplicate = next((x for i, x in enumerate(subjects) if x in subjects[:i]), None)
    unlisted = next((x for x in subjects if x not in s["approvers"]), None)
    initiator = s.get("initiator")
    counted = f"{len(subjects)} approvals, {s['required']} required"
    excluded = initiator is None or (initiator not in subjects and initiator not in s["approvers"])
    return {
        "requiredApprovals": Check(len(subjects) >= s["required"], counted),
        "distinctSubjects": Check(True, "each approval is from another subject") if duplicate is None else Check(False, f"{duplicate} approved more than once"),
        "listedApprovers": Check(True, "every approval is from a listed approver") if unlisted is None else Check(False, f"{unlisted} is not among the approvers"),
        "initiatorExcluded": Check(True, "the initiator neither approves nor is counted") if excluded else Check(False, f"the initiator {initiator} is listed or counted as an approver"),
    }


def verify_approval_set(signed: Any, keys: Any, action: Any = None, max_age_seconds: Optional[float] = None, now: Optional[float] = None) -> Report:
    """Checks an approval set offline. ``signed`` is one line of an export pack's approvals.ndjson:
    ``{"approvalSet": {approvalSet, approvalSetHashHex, signature}, "receipts": [signed receipts]}``."""
    key_list = keys_of(keys)
    outer = signed.get("approvalSet") if isinstance(signed, dict) else None
    outer = outer if isinstance(outer, dict) else {}
    hash_hex, checks = check_signed_document("approval set", "presence.approval-set.v1", APPROVAL_SET_V1, outer, "approvalSet", "decidedAt", key_list)
    if hash_hex is None:
        return Report.of("approvalSet", None, None, checks)
    s = outer["approvalSet"]
    computed = action_hash(s["action"])
    checks["actionHash"] = Check(computed == s["actionHashHex"], "actionHashHex is the SHA-256 of the canonical action" if computed == s["actionHashHex"] else f"the action hashes to {computed}, not to actionHashHex {s['actionHashHex']}")
    if action is not None:
        checks["action"] = check_action(action, s["actionHashHex"])
    checks["receipts"] = _receipts(s, signed.get("receipts"), key_list)
    checks.update(_approvers(s))
    if max_age_seconds is not None:
        checks["maxAge"] = check_max_age(s["decidedAt"], max_age_seconds, now)
    return Report.of("approvalSet", s["approvalId"], hash_hex, checks)
