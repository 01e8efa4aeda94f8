"""The vendor streams of the lingua corpus: assembled, and round-tripped through Lux events.

Every ``response-streaming.json`` and ``followup-response-streaming.json`` of
``tests/data/lingua/snapshots/<case>/<provider>/`` (a JSON array of the SSE events' JSON) is

* assembled with ``lucent.streams.assemble``: it must give the format's response, unless one of
  its events is refused by the published schema (listed, with the reason, in
  ``tests/data/vendor_corpus_failures.toml``: the stream then fails at that event with
  ``invalid_frame`` or ``unknown_frame``) or the stream itself is listed in
  ``tests/data/vendor_stream_failures.toml`` (code, path and why);
* converted event by event to Lux and back (``convert_stream(s, X, "lux")`` then
  ``convert_stream(lux, "lux", X, context=...)``, the context giving back the envelope values a
  Lux stream does not carry, taken from the source's own first event): the events that come
  back must be equal to the recorded ones (as JSON values) except at the paths that
  ``tests/data/vendor_expected_differences/streams.toml`` lists (pattern + reason, per format).

``python -m tests.vendor_streams`` prints, per format, the streams that assemble, those that
round-trip exactly, with listed differences, listed as a whole, or with differences no entry
covers.
"""

from __future__ import annotations

import json
import re
import sys
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import msgspec

from lucent import streams
from tests.vendor_corpus import CORPUS, DATA, PROVIDERS, listed

EXPECTED = DATA / "vendor_expected_differences" / "streams.toml"
STREAM_FAILURES = DATA / "vendor_stream_failures.toml"
NAMES = ("response-streaming.json", "followup-response-streaming.json")


@dataclass(frozen=True)
class Stream:
    """One recorded stream."""

    file: str  # relative to CORPUS
    format: str
    events: list[Any]


def corpus_streams() -> Iterator[Stream]:
    for path in sorted(CORPUS.glob("*/*/*.json")):
        if path.name in NAMES:
            yield Stream(path.relative_to(CORPUS).as_posix(), PROVIDERS[path.parent.name][0], json.loads(path.read_bytes()))


@cache
def refused_events() -> dict[str, int]:
    """File -> the first event that vendor_corpus_failures.toml lists as refused by the schema."""
    found: dict[str, int] = {}
    for file, event in listed():
        if event is not None:
            found[file] = min(event, found.get(file, event))
    return found


@cache
def stream_failures() -> dict[str, dict[str, Any]]:
    """File -> its entry in vendor_stream_failures.toml (code, path, why)."""
    if not STREAM_FAILURES.exists():
        return {}
    entries = tomllib.loads(STREAM_FAILURES.read_text(encoding="utf-8")).get("failure", [])
    return {file: entry for entry in entries for file in entry["files"]}


@dataclass(frozen=True)
class Difference:
    """A class of expected round-trip differences: paths matching any pattern, in a format."""

    format: str
    patterns: tuple[str, ...]
    reason: str
    files: tuple[str, ...] | None  # None: every stream of the format

    def covers(self, file: str, path: str) -> bool:
        if self.files is not None and file not in self.files:
            return False
        return any(pattern_regex(p).match(path) for p in self.patterns)


@cache
def pattern_regex(pattern: str) -> re.Pattern[str]:
    """``$[*].choices[*].logprobs``: ``[*]`` any index, ``*`` in a name any characters; a pattern
    also covers every path below the one it names."""
    out = re.escape(pattern).replace(r"\[\*\]", r"\[\d+\]").replace(r"\*", r"[^.\[]*")
    return re.compile(out + r"(?=$|[.\[])")


@cache
def expected() -> tuple[Difference, ...]:
    entries = tomllib.loads(EXPECTED.read_text(encoding="utf-8")).get("difference", [])
    return tuple(
        Difference(e["format"], tuple(e["patterns"]), e["reason"], tuple(e["files"]) if "files" in e else None) for e in entries
    )


def json_diff(a: Any, b: Any, path: str = "$") -> Iterator[str]:
    """The paths at which two JSON values differ (a member or item on one side only included)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in list(a) + [k for k in b if k not in a]:
            if key not in a or key not in b:
                yield f"{path}.{key}"
            else:
                yield from json_diff(a[key], b[key], f"{path}.{key}")
    elif isinstance(a, list) and isinstance(b, list):
        for i in range(max(len(a), len(b))):
            if i >= len(a) or i >= len(b):
                yield f"{path}[{i}]"
            else:
                yield from json_diff(a[i], b[i], f"{path}[{i}]")
    elif _number(a) and _number(b):
        if a != b:  # 1 and 1.0 are one JSON number
            yield path
    elif a != b or type(a) is not type(b):
        yield path


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def round_trip_context(stream: Stream) -> dict[str, Any]:
    """What the writer takes back from the caller: the envelope a Lux stream does not carry,
    read from the recorded stream's first event (as a caller would know it from its request)."""
    first = stream.events[0] if stream.events else {}
    if stream.format == "openai-chat":
        return {k: first[k] for k in ("created", "system_fingerprint", "service_tier") if k in first}
    if stream.format == "openai-responses" and isinstance(first.get("response"), dict):
        return {"response": first["response"]}
    return {}


def round_trip(stream: Stream) -> tuple[list[Any], list[Any]]:
    """(Lux events, the events back in the stream's format), as JSON values."""
    lux = list(streams.convert_stream(stream.events, stream.format, "lux"))
    back = list(streams.convert_stream(lux, "lux", stream.format, context=round_trip_context(stream)))
    return msgspec.to_builtins(lux), msgspec.to_builtins(back)


def unexpected(stream: Stream, back: list[Any]) -> tuple[list[str], set[int]]:
    """(The differing paths no entry covers, the indexes of the entries that covered some)."""
    used: set[int] = set()
    left: list[str] = []
    table = expected()
    for path in json_diff(stream.events, back):
        hits = [i for i, d in enumerate(table) if d.format == stream.format and d.covers(stream.file, path)]
        if hits:
            used.update(hits)
        else:
            left.append(path)
    return left, used


def main() -> int:
    from lucent.errors import StreamError

    rows: dict[str, list[int]] = {}
    for stream in corpus_streams():
        row = rows.setdefault(stream.format, [0, 0, 0, 0, 0, 0, 0])
        row[0] += 1
        try:
            streams.assemble(stream.events, stream.format)
        except StreamError as exc:
            print(f"{stream.file}: does not assemble: {exc.code} {exc.path} {exc.message[:100]}")
            continue
        row[1] += 1
        try:
            _, back = round_trip(stream)
        except StreamError as exc:
            print(f"{stream.file}: round trip failed: {exc.code} {exc.path} {exc.message[:100]}")
            row[5] += 1
            continue
        diffs = list(json_diff(stream.events, back))
        left, _ = unexpected(stream, back)
        whole = any(d.format == stream.format and d.files and stream.file in d.files and "$" in d.patterns for d in expected())
        if not diffs:
            row[2] += 1
        elif whole and not left:
            row[6] += 1
        elif not left:
            row[3] += 1
        else:
            row[4] += 1
            shown = sorted({re.sub(r"\[\d+\]", "[*]", p) for p in left})
            print(f"{stream.file}: {len(left)} unlisted differences: {shown[:6]}")
    print(f"{'format':<18}{'streams':>8}{'assemble':>9}{'exact':>7}{'listed':>8}{'unlisted':>9}{'error':>7}{'whole':>7}")
    for fmt, row in rows.items():
        print(f"{fmt:<18}" + "".join(f"{v:>{w}}" for v, w in zip(row, (8, 9, 7, 8, 9, 7, 7))))
    print("exact: equal events; listed: differences that entries of streams.toml cover; whole: a stream that an entry lists as a whole (`$`, with its reason)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
