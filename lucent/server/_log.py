"""One structured log line per request, on the ``lucent.server`` logger (INFO), as JSON:

``{"front", "upstream", "model", "stream", "status", "duration_ms", "diagnostics": {status:
count}, "error": code}`` (``upstream``, ``model`` and ``error`` null when unknown or none). It
never holds message content, a key or an upstream URL.
"""

from __future__ import annotations

import json
import logging
import time
from collections import Counter
from typing import Any

__all__ = ["RequestLog"]

LOGGER = logging.getLogger("lucent.server")


class RequestLog:
    """What one request did, written once by :meth:`done`."""

    def __init__(self, front: str) -> None:
        self.front = front
        self.started = time.perf_counter()
        self.upstream: str | None = None
        self.model: str | None = None
        self.stream = False
        self.status = 0
        self.error: str | None = None
        self.diagnostics: Counter[str] = Counter()
        self._written = False

    def count(self, diagnostics: Any) -> None:
        """Add the statuses of a list of ``ConversionDiagnostic``."""
        for diagnostic in diagnostics or ():
            self.diagnostics[diagnostic.status] += 1

    def done(self, status: int | None = None, error: str | None = None) -> None:
        if self._written:
            return
        self._written = True
        if status is not None:
            self.status = status
        if error is not None:
            self.error = error
        line = {
            "front": self.front, "upstream": self.upstream, "model": self.model, "stream": self.stream,
            "status": self.status, "duration_ms": round((time.perf_counter() - self.started) * 1000, 1),
            "diagnostics": dict(self.diagnostics), "error": self.error,
        }
        LOGGER.info(json.dumps(line, ensure_ascii=True))
