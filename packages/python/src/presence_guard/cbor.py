"""The CBOR subset WebAuthn needs (RFC 8949): COSE keys and authenticator extension maps."""
import struct
from typing import Any, Tuple

__all__ = ["decode_cbor", "CBORError"]


class CBORError(ValueError):
    pass


def _argument(data: bytes, pos: int, info: int) -> Tuple[int, int]:
    if info < 24:
        return info, pos
    sizes = {24: 1, 25: 2, 26: 4, 27: 8}
    if info not in sizes:
        raise CBORError("indefinite lengths and reserved values are not supported")
    size = sizes[info]
    if pos + size > len(data):
        raise CBORError("truncated CBOR")
    return int.from_bytes(data[pos : pos + size], "big"), pos + size


def _item(data: bytes, pos: int, depth: int) -> Tuple[Any, int]:
    if depth > 16:
        raise CBORError("CBOR nested too deeply")
    if pos >= len(data):
        raise CBORError("truncated CBOR")
    major, info = data[pos] >> 5, data[pos] & 0x1F
    pos += 1
    if major == 7:
        simple = {20: False, 21: True, 22: None}
        if info in simple:
            return simple[info], pos
        if info in (25, 26, 27):
            size = {25: 2, 26: 4, 27: 8}[info]
            fmt = {2: ">e", 4: ">f", 8: ">d"}[size]
            if pos + size > len(data):
                raise CBORError("truncated CBOR")
            return struct.unpack(fmt, data[pos : pos + size])[0], pos + size
        raise CBORError(f"unsupported CBOR simple value {info}")
    value, pos = _argument(data, pos, info)
    if major == 0:
        return value, pos
    if major == 1:
        return -1 - value, pos
    if major in (2, 3):
        if pos + value > len(data):
            raise CBORError("truncated CBOR")
        chunk = bytes(data[pos : pos + value])
        return (chunk if major == 2 else chunk.decode("utf-8")), pos + value
    if major == 4:
        items = []
        for _ in range(value):
            item, pos = _item(data, pos, depth + 1)
            items.append(item)
        return items, pos
    if major == 5:
        out = {}
        for _ in range(value):
            key, pos = _item(data, pos, depth + 1)
            if isinstance(key, (list, dict)):
                raise CBORError("CBOR map keys must be scalars")
            if key in out:
                raise CBORError("a CBOR map has a key twice")
            out[key], pos = _item(data, pos, depth + 1)
        return out, pos
    if major == 6:
        return _item(data, pos, depth + 1)
    raise CBORError(f"unsupported CBOR major type {major}")


def decode_cbor(data: bytes) -> Any:
    """Decodes exactly one CBOR item that spans all of ``data``."""
    value, end = _item(bytes(data), 0, 0)
    if end != len(data):
        raise CBORError(f"{len(data) - end} bytes follow the CBOR item")
    return value
