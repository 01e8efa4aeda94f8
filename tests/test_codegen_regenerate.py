"""The regeneration workflow (issue 17.5): a schema change that needs mapping rules stops
``python -m codegen`` with one message listing every missing rule of every spec, no traceback."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from codegen.__main__ import ROOT


def _repo_copy(tmp_path: Path) -> Path:
    """What codegen reads (codegen/, schemas/, mappings/, the transforms under lucent/) and
    writes (generated/, docs/), copied."""
    repo = tmp_path / "repo"
    ignore = shutil.ignore_patterns("__pycache__", "*.so")
    for name in ("codegen", "schemas", "mappings", "lucent", "generated", "docs"):
        shutil.copytree(ROOT / name, repo / name, ignore=ignore)
    return repo


def test_an_added_property_lists_every_missing_rule_of_every_spec_at_once(tmp_path: Path) -> None:
    repo = _repo_copy(tmp_path)
    schema = repo / "schemas" / "lux-ir-v1.json"
    raw = json.loads(schema.read_text(encoding="utf-8"))
    raw.get("$defs", raw.get("definitions"))["LucentRequest"]["properties"]["priority"] = {"type": "integer", "minimum": 0}
    schema.write_text(json.dumps(raw, indent=2), encoding="utf-8")
    before = {p: p.read_bytes() for p in (repo / "generated").iterdir()}

    run = subprocess.run([sys.executable, "-m", "codegen"], cwd=repo, capture_output=True, text=True, timeout=300)

    assert run.returncode == 1
    assert "Traceback" not in run.stderr
    specs = sorted(p.name for p in (repo / "mappings").glob("*.toml") if "_request" in p.name and ("lux_" in p.name))
    named = [line for line in run.stderr.splitlines() if "LucentRequest.priority" in line]
    assert len(named) == len(specs) == 14, run.stderr
    for spec in specs:
        assert any(line.strip().startswith(f"mappings/{spec}:") for line in named), spec
    assert run.stderr.startswith("codegen: 14 problems in 14 mapping specs:")
    assert {p: p.read_bytes() for p in (repo / "generated").iterdir()} == before  # nothing written
