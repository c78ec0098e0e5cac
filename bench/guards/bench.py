"""Python half of bench/guards/run.mjs: prints one JSON line of verifications per second.

Usage: PYTHONPATH=packages/python/src python3 bench/guards/bench.py VECTORS_DIR SECONDS"""
import hashlib
import json
import sys
import time
from pathlib import Path

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, ed25519

from presence_guard import verify_receipt
from presence_guard.canonical import canonical_json
from presence_guard.cose import _load
from presence_guard.report import b64url_decode


def rate(fn, seconds: float) -> float:
    """Calls per CPU-second of this process (wall time says little on a shared machine)."""
    fn()
    count, start = 0, time.process_time()
    while True:
        for _ in range(20):
            fn()
        count += 20
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return count / elapsed


def main() -> None:
    vectors, seconds = Path(sys.argv[1]), float(sys.argv[2])
    signed = json.loads((vectors / "receipt.json").read_text())
    keys = json.loads((vectors / "keys.json").read_text())
    action = json.loads((vectors / "action.json").read_text())
    r = signed["receipt"]
    message = canonical_json(r).encode()
    service_key = next(k for k in keys["keys"] if k["kid"] == signed["signature"]["kid"])
    ed_key = ed25519.Ed25519PublicKey.from_public_bytes(b64url_decode(service_key["publicKeyB64Url"]))
    ed_sig = b64url_decode(signed["signature"]["signatureB64Url"])
    _, ec_key = _load(b64url_decode(r["credentialPublicKeyB64Url"]))
    auth = b64url_decode(r["authenticatorDataB64Url"])
    data = auth + hashlib.sha256(b64url_decode(r["clientDataJSONB64Url"])).digest()
    ec_sig = b64url_decode(r["signatureB64Url"])

    def raw() -> None:
        ed_key.verify(ed_sig, message)
        ec_key.verify(ec_sig, data, ec.ECDSA(hashes.SHA256()))

    guard = rate(lambda: verify_receipt(signed, keys, action), seconds)
    ceiling = rate(raw, seconds)
    print(json.dumps({"language": "python", "guard": guard, "ceiling": ceiling}))


if __name__ == "__main__":
    main()
