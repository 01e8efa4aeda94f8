"""The planted-secret scan: no message lucent produces repeats a value of its input (SECURITY.md,
"What an error or a diagnostic may contain").

Every document of the seeds (``tests/data``, with ``shared=True`` also ``../shared/corpus`` and
``../shared/cases``; the documents the fuzz session draws from the strategies) and every event
of every seed stream is changed at one position at a time: a string position gets a planted
secret (:data:`SECRET`, also too long and with a leading tab, to break a ``maxLength`` or a
``pattern``), and every position gets the secret in each wrong JSON type (a string, an array,
an object) and a planted number (:data:`NUMBER`). Each position is tried once per shape (array
indexes and the Lux paths a side-car keys by are folded), with the first document that has it.

The changed input goes through every entry point that reads it: ``decode`` (its definition),
``convert`` to every target of its kind, ``streams.assemble`` and ``convert_stream`` to every
stream format; the side-car entries of every Lux document a conversion to Lux writes
(:mod:`tests.fuzz.sidecars`) get each wrong JSON type too, converted to every target. The scan
collects every text lucent hands back (an error's ``message``, ``path``, ``str`` and ``repr``,
every diagnostic's ``field`` and ``detail``, the ``StreamError`` of a stream and the
diagnostics of a stream conversion) and counts

* **echoes**: a text that holds the secret or the planted number;
* **controls**: a text that holds a character :func:`lucent._validation.printable`
  escapes (C0, DEL, C1, the line and paragraph separators, the bidirectional and other format
  controls, a lone surrogate);
* **crashes**: an exception that is not a :class:`lucent.errors.LucentError`.

``python -m tests.no_echo [--shared]`` prints the counts and the first finding of each kind.
"""

from __future__ import annotations

import copy
import json
import sys
import traceback
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import lucent
from lucent._context import read_by
from lucent import streams
from lucent.errors import ConversionError, LucentError, StreamError
from lucent._validation import CONTROL_CHARACTERS
from lucent.generated.convert_registry import CONVERTERS, DOCUMENTS

__all__ = ["SECRET", "NUMBER", "Scan", "scan"]

SECRET = "sk-live-PLANT3D-9f8e7d6c5b4a"
NUMBER = 918273645
HOSTILE_KEY = "k\u202e\u2028\x1b[31m\x85\u061c\u200f\x7f\U000e0041\n"
"""A property name with a character of each class that can move a terminal or forge a log line:
a name may be quoted (``Object contains unknown field``) and is in paths, always escaped."""
_SECRETS = (SECRET, str(NUMBER))
_STREAM_CONTEXT = {"id": "resp_scan", "model": "model-scan"}


def is_position(key: Any) -> bool:
    """The integer members by which a stream names its items, blocks, parts, choices, candidates,
    annotations, partial images and tool calls (``index`` and every ``*_index``), or orders its
    events (``sequence_number``): an error may name these positions (SECURITY.md), so the
    planted number goes into them only as a wrong type."""
    return isinstance(key, str) and (key in ("index", "sequence_number") or key.endswith("_index"))


def _mutations(value: Any, key: Any = None) -> Iterator[tuple[str, Any]]:
    """(name, replacement) for a position holding `value` (the member `key`): the secret in each
    JSON type that can carry it, and the planted number (not into a number that is a position)."""
    if isinstance(value, str):
        yield "string", SECRET
        yield "long", SECRET * 40
        yield "tab", "\t" + SECRET
        yield "json text", json.dumps([SECRET])  # tool arguments that are JSON, but not an object
    else:
        yield "string", SECRET
    yield "array", [SECRET]
    yield "object", {"api_key": SECRET}
    if not (is_position(key) and isinstance(value, (int, float)) and not isinstance(value, bool)):
        yield "number", NUMBER
    if isinstance(value, dict):
        yield "hostile key", {**value, HOSTILE_KEY: SECRET}


_SCHEMA_FAULTS = frozenset({"long", "tab"})
"""The mutations made to break a string's maxLength or pattern."""


def _fold(path: tuple[Any, ...]) -> str:
    """A position's shape: indexes folded to ``[]``, a Lux path used as a key to ``<lux>``."""
    out = []
    for key in path:
        if isinstance(key, int):
            out.append("[]")
        elif key.startswith("$"):
            out.append(".<lux>")
        else:
            out.append("." + key)
    return "".join(out)


def positions(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """(path, value) of `value` (path ``()``) and every member and item under it, outermost
    first."""
    if not path:
        yield (), value
    if isinstance(value, dict):
        for key, item in value.items():
            yield (*path, key), item
            yield from positions(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield (*path, index), item
            yield from positions(item, (*path, index))


def replaced(doc: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    copied = copy.deepcopy(doc)
    node = copied
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return copied


def error_texts(error: LucentError) -> list[str]:
    texts = [error.message, error.path, str(error), repr(error)]
    for diagnostic in getattr(error, "diagnostics", None) or []:
        texts += [diagnostic.field, diagnostic.detail]
    return texts


def diagnostic_texts(diagnostics: Any) -> list[str]:
    return [text for d in diagnostics for text in (d.field, d.detail)]


@dataclass
class Scan:
    """What a scan ran and found: per kind, the count and the first few findings."""

    runs: int = 0
    texts: int = 0
    echoes: list[str] = field(default_factory=list)
    controls: list[str] = field(default_factory=list)
    crashes: Counter[str] = field(default_factory=Counter)
    by_entry: Counter[str] = field(default_factory=Counter)
    first_crash: dict[str, str] = field(default_factory=dict)

    def check(self, where: str, texts: list[str]) -> None:
        self.texts += len(texts)
        for text in texts:
            if any(secret in text for secret in _SECRETS):
                self.echoes.append(f"{where}: {text[:300]!r}")
            elif CONTROL_CHARACTERS.search(text):
                self.controls.append(f"{where}: {text[:300]!r}")

    def run(self, entry: str, where: str, call: Callable[[], list[str]]) -> None:
        """Run one call; `call` returns the texts of a success, an error's are taken here."""
        self.runs += 1
        self.by_entry[entry] += 1
        try:
            texts = call()
        except LucentError as error:
            texts = error_texts(error)
        except Exception as exc:  # noqa: BLE001 - any other exception is a finding
            frame = traceback.extract_tb(exc.__traceback__)[-1]
            signature = f"{entry}: {type(exc).__name__} at {frame.filename.rsplit('/', 1)[-1]}:{frame.lineno}"
            self.crashes[signature] += 1
            self.first_crash.setdefault(signature, f"{where}: {exc!s:.200}")
            return
        self.check(where, texts)

    def summary(self) -> dict[str, Any]:
        return {
            "runs": self.runs,
            "texts": self.texts,
            "by_entry": dict(self.by_entry),
            "echoes": len(self.echoes),
            "controls": len(self.controls),
            "crashes": sum(self.crashes.values()),
            "first": {"echoes": self.echoes[:10], "controls": self.controls[:10], "crashes": [f"{k} ({n}): {self.first_crash[k]}" for k, n in self.crashes.items()]},
        }


# ------------------------------------------------------------------ documents


def _convert_targets(schema: str, definition: str | None) -> list[tuple[str, str, list[str]]]:
    """(source, kind, targets) for a document of `schema`/`definition`."""
    from lucent._convert import FORMATS

    found = []
    for (source, kind), (doc_schema, doc_definition) in DOCUMENTS.items():
        if doc_schema != schema or (definition is not None and definition != doc_definition):
            continue
        targets = [
            target
            for target in FORMATS
            if (target, kind) in DOCUMENTS
            and target != source
            and ((source, target, kind) in CONVERTERS or ((source, "lux", kind) in CONVERTERS and ("lux", target, kind) in CONVERTERS))
        ]
        found.append((source, kind, targets))
    return found


def _context() -> dict[str, Any]:
    from tests.fuzz.targets import CONTEXT

    return CONTEXT


def _convert_call(body: bytes, source: str, target: str, kind: str) -> Callable[[], list[str]]:
    def call() -> list[str]:
        try:
            result = lucent.convert(body, source, target, kind, context=read_by(_context(), source, target, kind), strict=True)
        except ConversionError as error:
            return error_texts(error)
        return diagnostic_texts(result.diagnostics)

    return call


def _decode_call(body: bytes, schema: str, definition: str | None) -> Callable[[], list[str]]:
    def call() -> list[str]:
        lucent.decode(body, schema, definition)
        return []

    return call


def scan_documents(result: Scan, docs: Iterator[tuple[str, str | None, bytes]]) -> None:
    """Every position of every document, once per shape and entry point."""
    seen: set[tuple[str, str | None, str, str]] = set()
    for schema, definition, data in docs:
        try:
            doc = json.loads(data)
        except ValueError:
            continue
        targets = _convert_targets(schema, definition)
        for path, value in positions(doc):
            shape = _fold(path)
            for name, planted in _mutations(value, path[-1] if path else None):
                key = (schema, definition, shape, name)
                if key in seen:
                    continue
                seen.add(key)
                body = json.dumps(replaced(doc, path, planted)).encode()
                where = f"{schema}:{definition} {shape}={name}"
                result.run("decode", where, _decode_call(body, schema, definition))
                for source, kind, outs in targets:
                    # a too long or tab-led string breaks a maxLength or pattern: the decode's
                    # fault, which every conversion of the source reports alike (the first is enough)
                    for target in outs[:1] if name in _SCHEMA_FAULTS else outs:
                        result.run(f"convert {source}->{target}", where, _convert_call(body, source, target, kind))


# ------------------------------------------------------------------ side-cars


def scan_sidecars(result: Scan, docs: Iterator[tuple[str, str | None, bytes]]) -> None:
    """Every side-car entry of the Lux documents the conversions to Lux write, and every entry a
    Lux -> X converter reads, in each wrong JSON type (the secret in it), to every target."""
    from tests.fuzz.sidecars import lux_documents, sidecar_mutations, with_entry

    seen: set[tuple[str, str, str]] = set()
    for kind, doc in lux_documents(docs):
        targets = next(outs for source, k, outs in _convert_targets("lux-ir-v1", DOCUMENTS[("lux", kind)][1]) if k == kind)
        for path, name, planted in sidecar_mutations(doc, kind, secret=SECRET):
            key = (kind, _fold(path), name)
            if key in seen:
                continue
            seen.add(key)
            body = json.dumps(with_entry(doc, path, planted)).encode()
            where = f"lux {kind} {_fold(path)}={name}"
            for target in targets:
                result.run(f"convert lux->{target} (side-car)", where, _convert_call(body, "lux", target, kind))


# ------------------------------------------------------------------ streams


def _stream_events(data: bytes) -> list[Any] | None:
    """The JSON of each ``data:`` line of an SSE stream (None when one is not JSON)."""
    events = []
    for line in data.split(b"\n"):
        if line.startswith(b"data:"):
            text = line[5:].strip()
            if text == b"[DONE]":
                events.append("[DONE]")
                continue
            try:
                events.append(json.loads(text))
            except ValueError:
                return None
    return events


def _sse(events: list[Any]) -> bytes:
    return b"".join(b"data: " + (event.encode() if isinstance(event, str) else json.dumps(event).encode()) + b"\n\n" for event in events)


def _assemble_call(body: bytes, fmt: str) -> Callable[[], list[str]]:
    def call() -> list[str]:
        streams.assemble(body, fmt)
        return []

    return call


def _convert_stream_call(body: bytes, source: str, target: str) -> Callable[[], list[str]]:
    def call() -> list[str]:
        conversion = streams.convert_stream(body, source, target, context=read_by(_STREAM_CONTEXT, source, target, "stream"))
        try:
            for _ in conversion:
                pass
        except StreamError as error:
            return error_texts(error) + diagnostic_texts(conversion.diagnostics)
        return diagnostic_texts(conversion.diagnostics)

    return call


def scan_streams(result: Scan, seeds: dict[str, list[bytes]]) -> None:
    """Every position of every event of every seed stream, once per (format, event type,
    shape), through ``assemble`` and ``convert_stream`` to every stream format."""
    seen: set[tuple[str, str, str, str]] = set()
    for fmt, items in seeds.items():
        for data in sorted(items, key=len):  # a shape is tried in the shortest stream that has it
            events = _stream_events(data)
            if not events:
                continue
            for n, event in enumerate(events):
                if not isinstance(event, dict):
                    continue
                tag = str(event.get("type", event.get("event", event.get("object", ""))))
                for path, value in positions(event):
                    shape = _fold(path)
                    for name, planted in _mutations(value, path[-1] if path else None):
                        key = (fmt, tag, shape, name)
                        if key in seen:
                            continue
                        seen.add(key)
                        changed = list(events)
                        changed[n] = replaced(event, path, planted)
                        body = _sse(changed)
                        where = f"{fmt} stream event {n} ({tag}) {shape}={name}"
                        result.run(f"assemble {fmt}", where, _assemble_call(body, fmt))
                        outs = [target for target in streams.FORMATS if target != fmt]
                        for target in outs[:1] if name in _SCHEMA_FAULTS else outs:  # the frame's schema fault, alike in every target
                            result.run(f"convert_stream {fmt}->{target}", where, _convert_stream_call(body, fmt, target))


# ------------------------------------------------------------------ the whole scan


def stream_seeds(shared: bool) -> dict[str, list[bytes]]:
    """The fuzz session's stream seeds and the corpus's recorded vendor streams."""
    from tests.fuzz.seeds import stream_seeds as fuzz_stream_seeds
    from tests.vendor_streams import corpus_streams

    found = {fmt: list(items) for fmt, items in fuzz_stream_seeds(shared).items()}
    for stream in corpus_streams():
        found.setdefault(stream.format, []).append(_sse(stream.events))
    return found


def documents(shared: bool, per_definition: int) -> list[tuple[str, str | None, bytes]]:
    """The recorded documents, then ``per_definition`` drawn ones of each convert source."""
    from tests.fuzz.seeds import _drawn
    from tests.fuzz.seeds import documents as recorded

    found = list(recorded(shared))
    if per_definition:
        for schema, definition in sorted(set(DOCUMENTS.values())):
            found.extend((schema, definition, data) for data in _drawn(schema, definition, per_definition))
    return found


def scan(shared: bool = False, per_definition: int = 1) -> Scan:
    """The whole scan (see the module docstring)."""
    result = Scan()
    docs = documents(shared, per_definition)
    scan_documents(result, iter(docs))
    scan_sidecars(result, iter(docs))
    scan_streams(result, stream_seeds(shared))
    return result


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m tests.no_echo", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shared", action="store_true", help="seed from ../shared/corpus and ../shared/cases too")
    parser.add_argument("--per-definition", type=int, default=1, help="documents drawn from each convert source's strategy")
    args = parser.parse_args(argv)
    found = scan(args.shared, args.per_definition)
    print(json.dumps(found.summary(), indent=2, ensure_ascii=True))
    return 1 if found.echoes or found.controls or found.crashes else 0


if __name__ == "__main__":
    sys.exit(main())
