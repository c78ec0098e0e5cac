"""RFC 8785 (JCS) canonical JSON, byte for byte what the TypeScript SDK and the service produce.

Numbers are IEEE 754 doubles printed as ECMAScript's Number::toString prints them (shortest
round-trip digits from ``repr``, exponent rules of ECMA-262 7.1.12.1); integers from the JSON
reader are converted to doubles first, so 9007199254740993 becomes 9007199254740992 as it does in
JavaScript. Carry amounts and identifiers as strings. Members are sorted by UTF-16 code units.
Strings must be well-formed Unicode: RFC 8785 takes I-JSON (RFC 7493), so a lone surrogate such as
``"\ud800"`` is refused with ValueError, as the TypeScript SDK and the Go module refuse it.
"""
import hashlib
import json
import math
from typing import Any

__all__ = ["canonical_json", "action_hash", "parse_json"]

_ESCAPES = {0x08: "\\b", 0x09: "\\t", 0x0A: "\\n", 0x0C: "\\f", 0x0D: "\\r", 0x22: '\\"', 0x5C: "\\\\"}


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse_json(text: "str | bytes") -> Any:
    """json.loads that refuses NaN and Infinity literals (they have no canonical form)."""
    return json.loads(text, parse_constant=_reject_constant)


def _number(value: float) -> str:
    if math.isnan(value) or math.isinf(value):
        raise ValueError("NaN and Infinity have no canonical JSON form")
    if value == 0:
        return "0"
    text = repr(value)
    sign = ""
    if text[0] == "-":
        sign, text = "-", text[1:]
    mantissa, _, exponent = text.partition("e")
    whole, _, fraction = mantissa.partition(".")
    full = whole + fraction
    point = len(whole) + (int(exponent) if exponent else 0)
    stripped = full.lstrip("0")
    point -= len(full) - len(stripped)
    digits = stripped.rstrip("0")
    k, n = len(digits), point
    if k <= n <= 21:
        out = digits + "0" * (n - k)
    elif 0 < n <= 21:
        out = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        out = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        mark = ("+" if e >= 0 else "-") + str(abs(e))
        out = digits + "e" + mark if k == 1 else digits[0] + "." + digits[1:] + "e" + mark
    return sign + out


def _string(value: str) -> str:
    out = ['"']
    for ch in value:
        code = ord(ch)
        if code in _ESCAPES:
            out.append(_ESCAPES[code])
        elif 0xD800 <= code <= 0xDFFF:
            raise ValueError("a string holds the lone surrogate \\u%04x: I-JSON (RFC 7493) strings are well-formed Unicode" % code)
        elif code < 0x20:
            out.append("\\u%04x" % code)
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _utf16_key(key: str) -> bytes:
    return key.encode("utf-16-be", "surrogatepass")  # a lone surrogate is refused when the key is written


def _write(value: Any, out: list) -> None:
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int):
        out.append(_number(float(value)))
    elif isinstance(value, float):
        out.append(_number(value))
    elif isinstance(value, str):
        out.append(_string(value))
    elif isinstance(value, (list, tuple)):
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(",")
            _write(item, out)
        out.append("]")
    elif isinstance(value, dict):
        out.append("{")
        for i, key in enumerate(sorted(value, key=_utf16_key)):
            if not isinstance(key, str):
                raise TypeError("object keys must be strings")
            if i:
                out.append(",")
            out.append(_string(key))
            out.append(":")
            _write(value[key], out)
        out.append("}")
    else:
        raise TypeError(f"{type(value).__name__} has no canonical JSON form")


def canonical_json(value: Any) -> str:
    """The RFC 8785 canonical text of a JSON value (dict, list, str, int, float, bool, None)."""
    out: list = []
    try:
        _write(value, out)
    except OverflowError as error:
        raise ValueError("a number beyond the largest double has no canonical JSON form") from error
    return "".join(out)


def action_hash(obj: Any) -> str:
    """``actionHashHex``: lowercase hex SHA-256 of the canonical UTF-8 bytes of the action."""
    return hashlib.sha256(canonical_json(obj).encode("utf-8")).hexdigest()
