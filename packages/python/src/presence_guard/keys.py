"""The service keys a guard trusts: pinned (a saved keys.json, for air-gapped executors) or
fetched from ``<service>/.well-known/presence/keys.json`` and cached; an unknown key id triggers
one re-fetch at most every ``refetch_seconds``, so a key rotation needs no restart."""
import json
import threading
import time
import urllib.request
from typing import Any, List, Optional

from .report import keys_of

__all__ = ["KeySource"]


class KeySource:
    def __init__(
        self,
        pinned: Any = None,
        url: Optional[str] = None,
        cache_seconds: float = 3600,
        refetch_seconds: float = 30,
        timeout_seconds: float = 10,
    ) -> None:
        if (pinned is None) == (url is None):
            raise ValueError("pass either pinned keys or the keys.json url")
        self._pinned = None if pinned is None else keys_of(pinned)
        self._url = url
        self._cache_seconds, self._refetch_seconds, self._timeout = cache_seconds, refetch_seconds, timeout_seconds
        self._cached: Optional[List[dict]] = None
        self._at = 0.0
        self._lock = threading.Lock()

    def _fetch(self) -> List[dict]:
        request = urllib.request.Request(str(self._url), headers={"accept": "application/json"})
        with urllib.request.urlopen(request, timeout=self._timeout) as response:  # noqa: S310 - an https URL the operator configures
            keys = keys_of(json.loads(response.read().decode("utf-8")))
        self._cached, self._at = keys, time.monotonic()
        return keys

    def keys(self, kid: Optional[str] = None) -> List[dict]:
        if self._pinned is not None:
            return self._pinned
        with self._lock:
            age = time.monotonic() - self._at
            if self._cached is None or age >= self._cache_seconds:
                return self._fetch()
            known = kid is None or any(k.get("kid") == kid for k in self._cached)
            if not known and age >= self._refetch_seconds:
                return self._fetch()
            return self._cached
