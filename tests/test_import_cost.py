"""`import lucent` loads no generated binding or converter: each loads on first use (issue 6).

The import time itself is measured by `nox -s bench` (bench/import_time.py), never here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

_ROOT = Path(__file__).resolve().parents[1]

_LOADED = "import json, sys; {setup}; print(json.dumps(sorted(m for m in sys.modules if m.startswith('lucent'))))"


def _modules_after(setup: str) -> list[str]:
    """The lucent modules in sys.modules after running ``setup`` in a fresh interpreter."""
    out = subprocess.run([sys.executable, "-c", _LOADED.format(setup=setup)], capture_output=True, text=True, check=True, cwd=_ROOT)
    loaded: list[str] = json.loads(out.stdout)
    return loaded


def _generated(modules: list[str]) -> list[str]:
    """The generated modules among ``modules`` (the package itself left out)."""
    return [m for m in modules if m.startswith("lucent.generated.")]


def test_import_lucent_loads_no_binding_or_converter() -> None:
    loaded = _modules_after("import lucent")
    assert loaded == ["lucent", "lucent._first_use", "lucent.errors"]  # the rest, msgspec too, on first use


def test_first_use_of_each_public_name_imports_it() -> None:
    loaded = _modules_after("import lucent; lucent.decode, lucent.encode, lucent.SCHEMAS")
    assert "lucent._decode" in loaded and _generated(loaded) == []
    loaded = _modules_after("import lucent; lucent.convert, lucent.streams, lucent.sse")
    assert {"lucent._convert", "lucent.streams", "lucent.sse"} <= set(loaded)
    assert [m for m in _generated(loaded) if m != "lucent.generated.convert_registry" and "convert_" in m] == []


def test_registry_lists_converters_without_importing_them() -> None:
    loaded = _modules_after(
        "from lucent.generated.convert_registry import CONVERTERS; assert ('sparktide', 'lux', 'request') in CONVERTERS; list(CONVERTERS)"
    )
    assert _generated(loaded) == ["lucent.generated.convert_registry"]


def test_first_conversion_loads_only_its_own_converter() -> None:
    loaded = _modules_after(
        "import lucent; lucent.convert(open('examples/sparktide-request.json', 'rb').read(), source='sparktide', target='lux')"
    )
    converters = [m for m in _generated(loaded) if m.startswith("lucent.generated.convert_") and m not in (
        "lucent.generated.convert_registry",)]
    assert converters == ["lucent.generated.convert_sparktide_lux"]
    assert "lucent.generated.openai_chat" not in loaded


@pytest.mark.parametrize(
    ("fmt", "module"),
    [("lux", "lucent.generated.lux_ir_v1"), ("llm-sdk", "lucent.generated.llm_sdk")],
)
def test_first_stream_loads_only_its_format(fmt: str, module: str) -> None:
    loaded = _modules_after(f"from lucent import streams; streams.assembler({fmt!r})")
    assert _generated(loaded) == [module]


def test_first_decode_loads_only_its_schema() -> None:
    loaded = _modules_after("import lucent; lucent.decode(b'{\"type\": \"text\", \"text\": \"hi\"}', 'llm-sdk', 'TextPart')")
    assert _generated(loaded) == ["lucent.generated.llm_sdk"]


_STORE_AND_CAPABILITY_MODULES = {"lucent.records", "lucent._records_sqlite", "lucent._records_redis", "lucent.snapshots",
                                 "lucent._continuation", "lucent.capabilities", "lucent._preflight", "lucent._cli_preflight"}


def test_no_store_or_capability_module_loads_until_used() -> None:
    loaded = _modules_after(
        "import lucent; lucent.convert(open('examples/sparktide-request.json', 'rb').read(), source='sparktide', target='lux'); "
        "from lucent import streams; streams.assembler('lux')"
    )
    assert _STORE_AND_CAPABILITY_MODULES.isdisjoint(loaded)


def test_each_store_and_capability_module_loads_on_first_use_only() -> None:
    snapshots = _modules_after("import lucent; lucent.snapshots.SnapshotStore()")
    assert {"lucent.snapshots", "lucent.records", "lucent._records_sqlite"} <= set(snapshots)
    assert {"lucent._records_redis", "lucent.capabilities", "lucent._preflight"}.isdisjoint(snapshots)
    lookup = _modules_after("import lucent; lucent.capabilities.lookup('gpt-4o')")
    assert "lucent.capabilities" in lookup and {"lucent.records", "lucent.snapshots", "lucent._preflight"}.isdisjoint(lookup)


def test_importing_lucent_imports_neither_sqlite3_nor_redis() -> None:
    out = subprocess.run([sys.executable, "-c", "import sys, lucent; print(sorted(m for m in ('sqlite3', 'redis', 'hashlib') if m in sys.modules))"],
                         capture_output=True, text=True, check=True, cwd=_ROOT)
    assert out.stdout.strip() == "[]"
