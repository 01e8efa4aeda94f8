"""Where the schemas and the shared corpus live."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["REPO", "SCHEMAS_DIR", "schema_path", "shared_dir"]

REPO = Path(__file__).resolve().parents[2]
SCHEMAS_DIR = REPO / "schemas"


def schema_path(stem: str) -> Path:
    """``schemas/<stem>.json``, or ``schemas/vendor/<stem>.json`` for a vendor format."""
    path = SCHEMAS_DIR / f"{stem}.json"
    return path if path.is_file() else SCHEMAS_DIR / "vendor" / f"{stem}.json"


def shared_dir() -> Path:
    """The shared folder beside the repository (``$LUCENT_SHARED`` overrides it)."""
    return Path(os.environ.get("LUCENT_SHARED", REPO.parent / "shared"))
