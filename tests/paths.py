"""The places tests read from, whatever folder a test file sits in (tests/ or tests/formats/<fmt>/).

``REPO`` is the checkout (pyproject.toml, schemas/, generated/, lucent/); ``DATA`` is tests/data
(cases, lingua's recordings, the vendor corpus' expected differences, sparktide-docs).
"""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data"
