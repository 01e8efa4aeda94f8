"""Where the schemas and the shared corpus live."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["REPO", "SCHEMAS_DIR", "shared_dir"]

REPO = Path(__file__).resolve().parents[2]
SCHEMAS_DIR = REPO / "schemas"


def shared_dir() -> Path:
    """The shared folder beside the repository (``$LUCENT_SHARED`` overrides it)."""
    return Path(os.environ.get("LUCENT_SHARED", REPO.parent / "shared"))
