"""The main job on real traffic: every SparkTide request of the shared corpus converts
SparkTide -> Lux -> SparkTide.

../shared/corpus/sparktide-derived/requests holds 89 requests and INDEX.json. The 40 the schema
accepts come back as an equal document (parsed JSON compared); the 49 others fail in
lucent.decode with a ValidationError whose .path is the JSON path jsonschema names (INDEX.json:
error_path), so lucent.convert raises that same error.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

import lucent
from lucent.errors import ValidationError


def _shared() -> Path | None:
    beside = Path(__file__).resolve().parents[2] / "shared"
    if beside.is_dir():
        return beside
    env = os.environ.get("LUCENT_SHARED")
    return Path(env) if env and Path(env).is_dir() else None


SHARED = _shared()
REQUESTS = SHARED / "corpus" / "sparktide-derived" / "requests" if SHARED else None

if REQUESTS is None or not (REQUESTS / "INDEX.json").is_file():
    pytest.skip(
        "the shared corpus is absent: expected ../shared/corpus/sparktide-derived/requests beside the "
        "repository (or $LUCENT_SHARED pointing at shared/)",
        allow_module_level=True,
    )

INDEX: list[dict[str, Any]] = json.loads((REQUESTS / "INDEX.json").read_text(encoding="utf-8"))
ACCEPTED = [entry for entry in INDEX if entry["schema_valid"]]
REJECTED = [entry for entry in INDEX if not entry["schema_valid"]]


def test_the_corpus_is_the_one_the_job_describes() -> None:
    assert (len(INDEX), len(ACCEPTED), len(REJECTED)) == (89, 40, 49)
    assert len(list(REQUESTS.glob("*.json"))) == 90  # the 89 requests and INDEX.json


@pytest.mark.parametrize("entry", ACCEPTED, ids=[e["file"] for e in ACCEPTED])
def test_accepted_request_round_trips_through_lux_to_an_equal_document(entry: dict[str, Any]) -> None:
    raw = (REQUESTS / entry["file"]).read_bytes()
    there = lucent.convert(raw, "sparktide", "lux")
    back = lucent.convert(lucent.encode(there.value), "lux", "sparktide")
    assert json.loads(lucent.encode(back.value)) == json.loads(raw)
    assert there.diagnostics == [] and back.diagnostics == []


@pytest.mark.parametrize("entry", REJECTED, ids=[e["file"] for e in REJECTED])
def test_rejected_request_fails_at_the_path_jsonschema_names(entry: dict[str, Any]) -> None:
    raw = (REQUESTS / entry["file"]).read_bytes()
    with pytest.raises(ValidationError) as decoded:
        lucent.decode(raw, "sparktide-remote-1.0", "RemoteModelRequest")
    assert decoded.value.path == entry["error_path"]
    with pytest.raises(ValidationError) as converted:
        lucent.convert(raw, "sparktide", "lux")
    assert converted.value.path == entry["error_path"]
