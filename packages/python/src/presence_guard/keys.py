"""The service keys a guard trusts: pinned (a saved keys.json, for air-gapped executors) or
fetched from ``<service>/.well-known/presence/keys.json`` and cached; an unknown key id triggers
one re-fetch at most every ``refetch_seconds``, so a key rotation needs no restart. After a failed
fetch no new one is tried for ``retry_seconds``: meanwhile the cached document serves while within
``cache_seconds``, and without one ``keys`` raises (the guard refuses, check ``serviceSignature``)."""
import json
import threading
import time
import urllib.request
from typing import Any, Callable, List, Optional, Tuple

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
        retry_seconds: float = 5,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if (pinned is None) == (url is None):
            raise ValueError("pass either pinned keys or the keys.json url")
        self._pinned = None if pinned is None else keys_of(pinned)
        self._url = url
        self._cache_seconds, self._refetch_seconds, self._timeout = cache_seconds, refetch_seconds, timeout_seconds
        self._retry_seconds, self._clock = retry_seconds, clock
        self._cached: Optional[List[dict]] = None
        self._at = 0.0
        self._failed: Optional[Tuple[float, Exception]] = None
        self._lock = threading.Lock()

    def _fetch(self) -> List[dict]:
        request = urllib.request.Request(str(self._url), headers={"accept": "application/json"})
        with urllib.request.urlopen(request, timeout=self._timeout) as response:  # noqa: S310 - an https URL the operator configures
            keys = keys_of(json.loads(response.read().decode("utf-8")))
        self._cached, self._at, self._failed = keys, self._clock(), None
        return keys

    def keys(self, kid: Optional[str] = None) -> List[dict]:
        if self._pinned is not None:
            return self._pinned
        with self._lock:
            now = self._clock()
            age = now - self._at if self._cached is not None else float("inf")
            fresh = age < self._cache_seconds
            known = kid is None or any(k.get("kid") == kid for k in self._cached or [])
            if fresh and (known or age < self._refetch_seconds):
                return self._cached  # type: ignore[return-value]
            # A fetch is due; after a failed one, wait retry_seconds (no request per call while the service is down).
            if self._failed is not None and now - self._failed[0] < self._retry_seconds:
                if fresh:
                    return self._cached  # type: ignore[return-value]
                raise OSError(f"{self._failed[1]} (no new fetch until {self._retry_seconds:g} s after that failure)")
            try:
                return self._fetch()
            except (OSError, ValueError) as error:
                self._failed = (now, error)
                if fresh:
                    return self._cached  # type: ignore[return-value]
                raise
