"""The lingua corpus (real recorded traffic) against the vendor schemas.

Every file of ``tests/data/lingua/snapshots/<case>/<provider>/`` is decoded with
``lucent.decode`` against the definition its name says (a stream file event by
event), and judged by jsonschema (the oracle) too. The files that do not decode
are listed in ``tests/data/vendor_corpus_failures.toml`` with the error lucent
reports (code and path) and the reason; ``tests/test_vendor_corpus.py`` holds
the corpus to that list.

``python -m tests.vendor_corpus`` prints the failures as they are now, in the
list's format, keeping the reasons already written (new groups get ``why =
"TODO"``): a starting point when the schemas or the corpus change.
"""

from __future__ import annotations

import json
import sys
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import lucent
from lucent.errors import LucentError

__all__ = [
    "CORPUS",
    "FAILURES",
    "PROVIDERS",
    "Document",
    "Failure",
    "documents",
    "failures",
    "listed",
    "lucent_verdict",
    "oracle_accepts",
]

DATA = Path(__file__).resolve().parent / "data"
CORPUS = DATA / "lingua" / "snapshots"
FAILURES = DATA / "vendor_corpus_failures.toml"
SCHEMAS = Path(__file__).resolve().parent.parent / "schemas" / "vendor"

PROVIDERS: dict[str, tuple[str, str, str, str]] = {
    "chat-completions": ("openai-chat", "CreateChatCompletionRequest", "CreateChatCompletionResponse", "CreateChatCompletionStreamResponse"),
    "responses": ("openai-responses", "CreateResponse", "Response", "ResponseStreamEvent"),
    "anthropic": ("anthropic", "CreateMessageParams", "Message", "MessageStreamEvent"),
    "google": ("gemini", "GenerateContentRequest", "GenerateContentResponse", "GenerateContentResponse"),
}
"""Provider folder -> (format, request, response, stream event definition). A Gemini stream is a
sequence of GenerateContentResponse."""


@dataclass(frozen=True)
class Document:
    """One document of the corpus: a file, or one event of a stream file."""

    file: str  # relative to CORPUS: <case>/<provider>/<name>.json
    event: int | None  # the index in a response-streaming.json array
    schema: str
    definition: str | None  # None: the format's root (error.json)
    value: Any

    @property
    def label(self) -> str:
        return self.file if self.event is None else f"{self.file}[{self.event}]"


@dataclass(frozen=True)
class Failure:
    """What lucent reports for a document it refuses."""

    code: str
    path: str
    message: str


def definition_for(provider: str, name: str) -> str | None:
    """The definition a corpus file of ``provider`` is decoded against (None: the root)."""
    _, request, response, stream = PROVIDERS[provider]
    base = name.removesuffix(".json").removeprefix("followup-")
    return {"request": request, "response": response, "response-streaming": stream}.get(base)


def documents(corpus: Path = CORPUS) -> Iterator[Document]:
    """Every document of the corpus, in file order."""
    for path in sorted(corpus.glob("*/*/*.json")):
        provider = path.parent.name
        schema = PROVIDERS[provider][0]
        definition = definition_for(provider, path.name)
        file = path.relative_to(corpus).as_posix()
        value = json.loads(path.read_bytes())
        if path.name.endswith("response-streaming.json"):
            for index, event in enumerate(value):
                yield Document(file, index, schema, definition, event)
        else:
            yield Document(file, None, schema, definition, value)


def lucent_verdict(document: Document) -> Failure | None:
    """None when lucent.decode accepts the document, else its error."""
    try:
        lucent.decode(json.dumps(document.value), document.schema, document.definition)
    except LucentError as error:
        return Failure(error.code, error.path, error.message)
    return None


def failures(corpus: Path = CORPUS) -> dict[tuple[str, int | None], Failure]:
    """Every document lucent refuses, by (file, event)."""
    found = {}
    for document in documents(corpus):
        failure = lucent_verdict(document)
        if failure is not None:
            found[(document.file, document.event)] = failure
    return found


# ------------------------------------------------------------------ the oracle
@cache
def _schema(name: str) -> dict[str, Any]:
    schema: dict[str, Any] = json.loads((SCHEMAS / f"{name}.json").read_text(encoding="utf-8"))
    return schema


@cache
def _validator(schema: str, definition: str | None) -> Any:
    from jsonschema import Draft202012Validator  # type: ignore[import-untyped]

    document = _schema(schema)
    root = Draft202012Validator(document)
    return root if definition is None else root.evolve(schema=document["$defs"][definition])


@cache
def _by_tag(schema: str, definition: str) -> dict[str, str] | None:
    """For a union of definitions that each require a distinct ``type`` tag: tag -> definition.

    A value whose ``type`` is one of these tags can only meet the branch with that tag, so the
    oracle judges it by that branch alone (the same verdict, without trying 60 branches)."""
    defs = _schema(schema)["$defs"]
    node = defs[definition]
    branches = node.get("anyOf") or node.get("oneOf")
    if not branches or set(node) - {"anyOf", "oneOf", "description", "title", "$comment"}:
        return None
    table: dict[str, str] = {}
    for branch in branches:
        if set(branch) - {"$ref", "description", "title"} or "$ref" not in branch:
            return None
        name = branch["$ref"].rsplit("/", 1)[-1]
        target = defs[name]
        tag = target.get("properties", {}).get("type", {})
        values = [tag["const"]] if "const" in tag else tag.get("enum", [])
        if "type" not in target.get("required", []) or len(values) != 1 or values[0] in table:
            return None
        table[values[0]] = name
    return table


def oracle_accepts(document: Document) -> bool:
    """jsonschema's verdict (draft 2020-12, formats as annotations)."""
    definition = document.definition
    if definition is not None and isinstance(document.value, dict):
        table = _by_tag(document.schema, definition)
        tag = document.value.get("type")
        if table is not None and isinstance(tag, str) and tag in table:
            definition = table[tag]
    return bool(_validator(document.schema, definition).is_valid(document.value))


# ------------------------------------------------------------------ the list
def _events(spec: str) -> tuple[str, list[int] | None]:
    """``file[0-3,7]`` -> (file, [0, 1, 2, 3, 7]); ``file[*]`` -> (file, None meaning all)."""
    if not spec.endswith("]"):
        return spec, []
    file, _, ranges = spec[:-1].partition("[")
    if ranges == "*":
        return file, None
    events: list[int] = []
    for part in ranges.split(","):
        low, _, high = part.partition("-")
        events += range(int(low), int(high or low) + 1)
    return file, events


def listed(path: Path = FAILURES, corpus: Path = CORPUS) -> dict[tuple[str, int | None], dict[str, Any]]:
    """Every listed failure, by (file, event), with its entry (code, path, why, ...)."""
    entries = tomllib.loads(path.read_text(encoding="utf-8")).get("failure", [])
    found: dict[tuple[str, int | None], dict[str, Any]] = {}
    for entry in entries:
        for spec in entry["files"]:
            file, events = _events(spec)
            if events is None:
                events = list(range(len(json.loads((corpus / file).read_bytes()))))
            for key in [(file, None)] if events == [] else [(file, e) for e in events]:
                if key in found:
                    raise ValueError(f"{spec} is listed twice")
                found[key] = entry
    return found


def _ranges(events: list[int]) -> str:
    """[0, 1, 2, 5] -> ``0-2,5``."""
    parts: list[str] = []
    start = previous = events[0]
    for event in events[1:] + [-1]:
        if event == previous + 1:
            previous = event
            continue
        parts.append(str(start) if start == previous else f"{start}-{previous}")
        start = previous = event
    return ",".join(parts)


def render(found: dict[tuple[str, int | None], Failure], reasons: dict[tuple[str, str, str, str], dict[str, Any]]) -> str:
    """The failures in the list's format; ``reasons`` by (format, definition, code, path) keeps
    what is written."""
    groups: dict[tuple[str, str, str, str | None], dict[str, list[int | None]]] = {}
    for (file, event), failure in sorted(found.items(), key=lambda item: (item[0][0], item[0][1] or 0)):
        provider = file.split("/")[1]
        definition = definition_for(provider, file.rsplit("/", 1)[1])
        key = (PROVIDERS[provider][0], failure.code, failure.path, definition)
        groups.setdefault(key, {}).setdefault(file, []).append(event)
    out = []
    for (schema, code, path, definition), files in sorted(groups.items(), key=lambda g: (g[0][0], str(g[0][3]), g[0][1], g[0][2])):
        old = reasons.get((schema, definition or "(root)", code, path), {})
        specs = []
        for file, events in files.items():
            if events == [None]:
                specs.append(file)
                continue
            total = len(json.loads((CORPUS / file).read_bytes()))
            ints = sorted(e for e in events if e is not None)
            specs.append(f"{file}[*]" if len(ints) == total else f"{file}[{_ranges(ints)}]")
        out.append("[[failure]]")
        out.append(f"format = {json.dumps(schema)}")
        out.append(f"definition = {json.dumps(definition or '(root)')}")
        out.append(f"code = {json.dumps(code)}")
        out.append(f"path = {json.dumps(path)}")
        out.append(f'why = """{old.get("why", "TODO")}"""')
        out.append("files = [")
        out += [f"    {json.dumps(s)}," for s in specs]
        out.append("]")
        out.append("")
    return "\n".join(out)


def main() -> int:
    reasons = {}
    if FAILURES.is_file():
        for entry in tomllib.loads(FAILURES.read_text(encoding="utf-8")).get("failure", []):
            reasons[(entry["format"], entry["definition"], entry["code"], entry["path"])] = entry
    sys.stdout.write(render(failures(), reasons))
    return 0


if __name__ == "__main__":
    sys.exit(main())
