"""The wheel holds every package of the source tree.

pyproject.toml lists its packages by name (``lucent.generated`` is the folder ``generated/``);
a package folder missing from that list is absent from an installed, non-editable lucent, and
every import of it fails there while the editable checkout works.
"""

from __future__ import annotations

import tomllib

from tests.paths import REPO


def _listed() -> dict[str, object]:
    setuptools = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    return {"packages": setuptools["packages"], "package-dir": setuptools["package-dir"]}


def _package_folders() -> set[str]:
    """Every folder with an ``__init__.py`` under lucent/ and codegen/, as a dotted name, and
    generated/ as ``lucent.generated``."""
    found = {"lucent.generated"} if (REPO / "generated" / "__init__.py").is_file() else set()
    for top in ("lucent", "codegen"):
        for init in (REPO / top).rglob("__init__.py"):
            if "__pycache__" not in init.parts:
                found.add(".".join(init.parent.relative_to(REPO).parts))
    return found


def test_every_package_folder_is_listed_in_pyproject() -> None:
    listed = _listed()
    assert set(listed["packages"]) == _package_folders()  # type: ignore[arg-type]
    assert listed["package-dir"] == {"lucent": "lucent", "lucent.generated": "generated"}

