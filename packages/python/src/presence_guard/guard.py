"""The executor's guard: before executing, check the evidence offline against the service keys,
against the executor's own action, an optional maximum age, and refuse evidence seen before."""
import threading
import time
from typing import Any, Dict, Optional, Protocol

from .approval_set import verify_approval_set
from .keys import KeySource
from .receipt import verify_receipt
from .report import Report

__all__ = ["ReceiptGuard", "EvidenceRefused", "SeenStore", "MemorySeenStore"]


class SeenStore(Protocol):
    def claim(self, key: str, ttl_seconds: float) -> bool:
        """True when ``key`` was not seen before (now remembered for ``ttl_seconds``); atomic."""


class MemorySeenStore:
    """In-process memory: right for one executor process; share a store between several."""

    def __init__(self) -> None:
        self._until: Dict[str, float] = {}
        self._lock = threading.Lock()

    def claim(self, key: str, ttl_seconds: float) -> bool:
        now = time.monotonic()
        with self._lock:
            if len(self._until) > 10_000:
                self._until = {k: t for k, t in self._until.items() if t > now}
            if self._until.get(key, 0) > now:
                return False
            self._until[key] = now + ttl_seconds
            return True


class EvidenceRefused(Exception):
    """``check`` names the first failed check (``evidence`` when there is none to read)."""

    def __init__(self, check: str, detail: str, report: Optional[Report] = None) -> None:
        super().__init__(f"{check}: {detail}")
        self.check, self.detail, self.report = check, detail, report

    def problem(self) -> Dict[str, Any]:
        """The 403 application/problem+json body."""
        body: Dict[str, Any] = {
            "type": "https://presence.dev/problems/evidence_refused",
            "title": "Evidence refused",
            "status": 403,
            "code": "evidence_refused",
            "check": self.check,
            "detail": self.detail,
        }
        if self.report is not None:
            body["checks"] = {n: {"ok": c.ok, "detail": c.detail} for n, c in self.report.checks.items()}
        return body


class ReceiptGuard:
    """``keys``: a keys.json document (pinned) or a KeySource; ``store``: a SeenStore."""

    def __init__(
        self,
        keys: Any,
        store: Optional[SeenStore] = None,
        max_age_seconds: Optional[float] = None,
        seen_ttl_seconds: Optional[float] = None,
    ) -> None:
        self._keys = keys if isinstance(keys, KeySource) else KeySource(pinned=keys)
        self._store = store if store is not None else MemorySeenStore()
        self._max_age = max_age_seconds
        default_ttl = 30 * 86400 if max_age_seconds is None else max_age_seconds + 60
        self._ttl = seen_ttl_seconds if seen_ttl_seconds is not None else default_ttl

    def check(self, evidence: Any, action: Any, now: Optional[float] = None) -> Report:
        """The report when every check passes and the evidence is new; raises EvidenceRefused."""
        if not isinstance(evidence, dict):
            raise EvidenceRefused("evidence", "the evidence is not a JSON object")
        is_set = "approvalSet" in evidence
        signed = evidence["approvalSet"] if is_set else evidence
        kid = signed.get("signature", {}).get("kid") if isinstance(signed, dict) and isinstance(signed.get("signature"), dict) else None
        try:
            keys = self._keys.keys(kid)
        except Exception as error:  # noqa: BLE001 - an unreachable key source refuses, never executes
            raise EvidenceRefused("serviceSignature", f"the service keys could not be read: {error}") from error
        verify = verify_approval_set if is_set else verify_receipt
        report = verify(evidence, keys, action, self._max_age, now)
        if not report.valid:
            name = report.failed[0]
            raise EvidenceRefused(name, report.checks[name].detail, report)
        if not self._store.claim(f"{report.kind}:{report.hash_hex}", self._ttl):
            raise EvidenceRefused("singleUse", f"this evidence ({report.id}) was presented before", report)
        return report
