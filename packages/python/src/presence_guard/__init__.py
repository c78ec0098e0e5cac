"""presence_guard: the executor's offline check of Presence evidence (receipts, approval sets,
webhooks), byte for byte the rules of the TypeScript SDK. Carry amounts and ids as strings."""
from .adapters import asgi_guard, wsgi_guard
from .approval_set import verify_approval_set
from .canonical import action_hash, canonical_json
from .guard import EvidenceRefused, MemorySeenStore, ReceiptGuard, SeenStore
from .keys import KeySource
from .receipt import verify_receipt
from .report import Check, Report
from .webhook import WebhookVerificationError, verify_webhook

__all__ = [
    "action_hash",
    "canonical_json",
    "verify_receipt",
    "verify_approval_set",
    "verify_webhook",
    "WebhookVerificationError",
    "ReceiptGuard",
    "EvidenceRefused",
    "SeenStore",
    "MemorySeenStore",
    "KeySource",
    "Check",
    "Report",
    "wsgi_guard",
    "asgi_guard",
]
__version__ = "0.1.0"
