"""COSE_Key decoding and the WebAuthn signature check, for every algorithm policies may allow:
ES256/384/512, EdDSA (Ed25519), RS256/384/512, PS256/384/512."""
from typing import Any, Optional, Tuple

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa

from .cbor import decode_cbor

__all__ = ["verify_cose_signature"]

_EC = {-7: (1, ec.SECP256R1, hashes.SHA256, 32), -35: (2, ec.SECP384R1, hashes.SHA384, 48), -36: (3, ec.SECP521R1, hashes.SHA512, 66)}
_RSA = {-257: (hashes.SHA256, False), -258: (hashes.SHA384, False), -259: (hashes.SHA512, False),
        -37: (hashes.SHA256, True), -38: (hashes.SHA384, True), -39: (hashes.SHA512, True)}


def _bytes(key: dict, label: int, length: Optional[int] = None) -> bytes:
    value = key.get(label)
    if not isinstance(value, bytes) or not value or (length is not None and len(value) != length):
        raise ValueError(f"COSE key parameter {label} is missing or has the wrong length")
    return value


def _load(cose: bytes) -> Tuple[int, Any]:
    key = decode_cbor(cose)
    if not isinstance(key, dict):
        raise ValueError("public key is not a COSE_Key map")
    alg, kty, crv = key.get(3), key.get(1), key.get(-1)
    if isinstance(alg, bool) or not isinstance(alg, int):
        raise ValueError(f"COSE algorithm {alg} is not supported")
    if alg in _EC:
        want, curve, _, size = _EC[alg]
        if kty != 2 or crv != want:
            raise ValueError(f"EC2 curve {crv} does not fit COSE {alg}")
        x, y = _bytes(key, -2, size), _bytes(key, -3, size)
        numbers = ec.EllipticCurvePublicNumbers(int.from_bytes(x, "big"), int.from_bytes(y, "big"), curve())
        return alg, numbers.public_key()
    if alg == -8:
        if kty != 1 or crv != 6:
            raise ValueError(f"OKP curve {crv} does not fit EdDSA (only Ed25519 is supported)")
        return alg, ed25519.Ed25519PublicKey.from_public_bytes(_bytes(key, -2, 32))
    if alg in _RSA:
        if kty != 3:
            raise ValueError(f"key type {kty} does not fit COSE {alg}")
        n, e = _bytes(key, -1), _bytes(key, -2)
        return alg, rsa.RSAPublicNumbers(int.from_bytes(e, "big"), int.from_bytes(n, "big")).public_key()
    raise ValueError(f"COSE algorithm {alg} is not supported")


def verify_cose_signature(cose_key: bytes, data: bytes, signature: bytes) -> Tuple[bool, str]:
    """(True, algorithm) when ``signature`` over ``data`` verifies with the COSE key, else (False, why)."""
    try:
        alg, key = _load(cose_key)
    except Exception as error:  # noqa: BLE001 - every decoding problem is a failed check
        return False, f"the credential key cannot be used: {error}"
    try:
        if alg in _EC:
            key.verify(signature, data, ec.ECDSA(_EC[alg][2]()))
        elif alg == -8:
            key.verify(signature, data)
        else:
            digest, pss = _RSA[alg]
            pad = padding.PSS(padding.MGF1(digest()), digest().digest_size) if pss else padding.PKCS1v15()
            key.verify(signature, data, pad, digest())
    except (InvalidSignature, ValueError) as error:
        return False, f"the authenticator signature does not verify with the enrolled key (COSE alg {alg}) {error}".strip()
    return True, f"authenticator signature verifies with the enrolled key (COSE alg {alg})"
