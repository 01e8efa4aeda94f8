"""The corpus documents that are in a seed format, and the INDEX verdicts.

From ``../shared/corpus``:

* ``sparktide-docs``: ``request.json`` (RemoteModelRequest), ``failure.json``
  (RemoteModelFailure), ``error-frame.json`` and every ``data:`` line of
  ``stream.sse`` (RemoteModelStreamFrame);
* ``sparktide-derived/requests/*.json`` (RemoteModelRequest), whose verdicts
  ``INDEX.json`` records (``schema_valid``, ``error_path``);

and the Lux schema's own ``examples`` (LucentRequest, and the schema root).
``lingua/snapshots`` holds vendor formats (Anthropic, Chat Completions,
Google, Responses), none of them a seed format, so they are counted as skipped.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from .paths import SCHEMAS_DIR, shared_dir

__all__ = ["Document", "documents", "skipped"]

SPARKTIDE = "sparktide-remote-1.0"
_DOCS = {
    "request.json": "RemoteModelRequest",
    "failure.json": "RemoteModelFailure",
    "error-frame.json": "RemoteModelStreamFrame",
}


@dataclass(frozen=True)
class Document:
    """One corpus document.

    Attributes
    ----------
    name : str
        Its path under the corpus (``#frame N`` for an SSE frame).
    schema, definition : str, str or None
        What it is decoded as.
    data : bytes
        Its JSON text.
    index_valid : bool or None
        ``schema_valid`` from INDEX.json, when the document is listed there.
    index_path : str or None
        ``error_path`` from INDEX.json.
    """

    name: str
    schema: str
    definition: str | None
    data: bytes
    index_valid: bool | None = None
    index_path: str | None = None


def documents(corpus: Path | None = None) -> list[Document]:
    """Every corpus document in a seed format (empty when the corpus is absent)."""
    corpus = corpus or shared_dir() / "corpus"
    out: list[Document] = []
    docs = corpus / "sparktide-docs"
    for file_name, definition in _DOCS.items():
        if (docs / file_name).exists():
            out.append(Document(f"sparktide-docs/{file_name}", SPARKTIDE, definition, (docs / file_name).read_bytes()))
    if (docs / "stream.sse").exists():
        lines = (docs / "stream.sse").read_bytes().splitlines()
        frames = [line[5:].strip() for line in lines if line.startswith(b"data:")]
        for i, frame in enumerate(frames):
            out.append(Document(f"sparktide-docs/stream.sse#frame {i}", SPARKTIDE, "RemoteModelStreamFrame", frame))
    requests = corpus / "sparktide-derived" / "requests"
    index = {}
    if (requests / "INDEX.json").exists():
        index = {e["file"]: e for e in json.loads((requests / "INDEX.json").read_text(encoding="utf-8"))}
    for path in sorted(requests.glob("*.json")) if requests.exists() else []:
        if path.name == "INDEX.json":
            continue
        entry = index.get(path.name, {})
        out.append(
            Document(
                f"sparktide-derived/requests/{path.name}",
                SPARKTIDE,
                "RemoteModelRequest",
                path.read_bytes(),
                entry.get("schema_valid"),
                entry.get("error_path"),
            )
        )
    lux = json.loads((SCHEMAS_DIR / "lux-ir-v1.json").read_text(encoding="utf-8"))
    for i, example in enumerate(lux.get("examples", ())):
        data = json.dumps(example, ensure_ascii=False).encode()
        out.append(Document(f"schemas/lux-ir-v1.json#examples/{i}", "lux-ir-v1", "LucentRequest", data))
        out.append(Document(f"schemas/lux-ir-v1.json#examples/{i} (root)", "lux-ir-v1", None, data))
    return out


def skipped(corpus: Path | None = None) -> int:
    """How many corpus files are in no seed format (the lingua vendor snapshots)."""
    corpus = corpus or shared_dir() / "corpus"
    lingua = corpus / "lingua" / "snapshots"
    return sum(1 for _ in lingua.rglob("*.json")) if lingua.exists() else 0
