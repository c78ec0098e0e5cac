"""The shared vectors (conformance/cross-language/ at the repository root, or $PRESENCE_VECTORS)."""
import json
import os
from pathlib import Path
from typing import Any

DIR = Path(os.environ.get("PRESENCE_VECTORS") or Path(__file__).resolve().parents[3] / "conformance" / "cross-language")


def load(name: str) -> Any:
    with open(DIR / name, "rb") as handle:
        return json.loads(handle.read())
