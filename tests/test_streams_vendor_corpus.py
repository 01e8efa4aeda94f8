"""The vendor streams of the lingua corpus (tests/vendor_streams.py): assembled, converted to Lux
and back, held to the written lists of failures and expected differences."""

from __future__ import annotations

import json
import tomllib
from functools import cache
from pathlib import Path
from typing import Any

import msgspec
import pytest

import lucent
from lucent import streams
from lucent.errors import StreamError, UsageError
from tests.vendor_corpus import PROVIDERS
from tests.vendor_streams import (
    EXPECTED,
    Stream,
    corpus_streams,
    expected,
    refused_events,
    round_trip,
    stream_failures,
    unexpected,
)

STREAMS = list(corpus_streams())
RESPONSE = {fmt: response for fmt, _, response, _ in PROVIDERS.values()}
LINGUA = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus" / "lingua" / "streaming_expected_differences.json"
"""lingua's own list (../shared from the worktree)."""


def _ids(stream: Stream) -> str:
    return stream.file.removesuffix(".json")


def _refused(stream: Stream) -> int | None:
    return refused_events().get(stream.file)


@cache
def _assembled(file: str) -> Any:
    stream = next(s for s in STREAMS if s.file == file)
    return streams.assemble(stream.events, stream.format)


@cache
def _round_trip(file: str) -> tuple[list[Any], list[Any]]:
    stream = next(s for s in STREAMS if s.file == file)
    return round_trip(stream)


def _good(stream: Stream) -> bool:
    return _refused(stream) is None and stream.file not in stream_failures()


def test_the_corpus_has_streams_of_every_vendor_format() -> None:
    counts = {fmt: sum(s.format == fmt for s in STREAMS) for fmt in RESPONSE}
    assert counts == {"openai-chat": 45, "openai-responses": 68, "anthropic": 75, "gemini": 68}


@pytest.mark.parametrize("stream", STREAMS, ids=_ids)
def test_every_stream_assembles_or_fails_for_a_written_reason(stream: Stream) -> None:
    first = _refused(stream)
    listed = stream_failures().get(stream.file)
    if first is not None:
        # An event the published schema refuses (vendor_corpus_failures.toml): the stream stops there.
        with pytest.raises(StreamError) as caught:
            streams.assemble(stream.events, stream.format)
        assert caught.value.code in ("invalid_frame", "unknown_frame")
        assert caught.value.path.startswith(f"$[{first}]")
    elif listed is not None:
        with pytest.raises(StreamError) as caught:
            streams.assemble(stream.events, stream.format)
        assert (caught.value.code, caught.value.path) == (listed["code"], listed["path"])
    else:
        response = _assembled(stream.file)
        # The assembled response is a document of the format: it decodes as its response definition,
        # and holds what the API sent, the members the schema does not define too (a Responses
        # terminal event's, lucent._unknown), which a same-format conversion gives back.
        lucent.decode(lucent.encode(response), stream.format, RESPONSE[stream.format])
        same = lucent.convert(lucent.encode(response), stream.format, stream.format, kind="response")
        assert lucent.encode(same.value) == lucent.encode(response)


@pytest.mark.parametrize("stream", [s for s in STREAMS if _good(s)], ids=_ids)
def test_every_stream_round_trips_through_lux_but_for_the_listed_differences(stream: Stream) -> None:
    lux, back = _round_trip(stream.file)
    # The Lux events are a valid Lux stream: they assemble into a LucentResponse.
    assert streams.assemble(lux, "lux").id
    left, _ = unexpected(stream, back)
    assert left == []


def test_every_expected_difference_is_still_needed_and_the_list_is_shorter_than_lingua() -> None:
    used: set[int] = set()
    for stream in STREAMS:
        if _good(stream):
            _, back = _round_trip(stream.file)
            used |= unexpected(stream, back)[1]
    table = expected()
    stale = [(d.format, d.patterns) for i, d in enumerate(table) if i not in used]
    assert stale == []
    if LINGUA.exists():
        lingua = json.loads(LINGUA.read_bytes())
        # Every field pattern of theirs counts, and so does every whole-case skip.
        theirs = sum(len(g["fields"]) for g in lingua["global"]) + sum(len(g.get("fields", [])) or 1 for g in lingua["perTestCase"])
        assert len(table) < theirs
    assert all(d.reason.strip() for d in table)


def test_the_expected_difference_file_has_only_known_keys() -> None:
    entries = tomllib.loads(EXPECTED.read_text(encoding="utf-8"))["difference"]
    assert all(set(e) <= {"format", "patterns", "reason", "files"} for e in entries)
    files = {s.file for s in STREAMS}
    assert all(f in files for e in entries for f in e.get("files", []))


def stream_view(fmt: str, choices: Any) -> Any:
    """The choices as JSON, as much as a stream and a document can both say (the differences are
    reported by the stream converter):

    * each tool call's arguments parsed: a stream carries the model's argument text as it came
      (Anthropic's ``input_json_delta`` pieces keep their spacing), a document holds the parsed
      ``input``, which the document converter writes as compact JSON;
    * openai-responses: a reasoning summary streams as thinking text (a Lux block delta cannot
      say "summary"), its parts joined by a blank line, and the API encrypts the reasoning anew
      in the final response (the document's signature), while the stream's signature is
      output_item.done's; url_citation annotations do not stream (Unsupported);
    * media content (image, audio, video) does not stream: no Lux block delta carries media
      (Unsupported at its part);
    * gemini: a ``thoughtSignature`` on a part that is not a thought streams as a thinking block
      that holds only the signature (a stream has no side-car; a document keeps it in
      ``provider_payload``): such blocks are left out.
    """
    tree = msgspec.to_builtins(choices)
    for choice in tree:
        choice["message"]["content"] = [c for c in choice["message"]["content"] if c.get("type") not in ("image", "audio", "video")]
        if fmt == "gemini":
            choice["message"]["content"] = [
                c for c in choice["message"]["content"]
                if not (c.get("type") == "thinking" and not c["thinking"].get("text") and "signature" in c["thinking"])
            ]
        for content in choice["message"]["content"]:
            if content.get("type") == "tool_use":
                try:
                    content["tool_use"]["arguments"] = json.loads(content["tool_use"]["arguments"] or "{}")
                except ValueError:
                    pass
            if fmt == "openai-responses" and content.get("type") == "thinking":
                thinking = content["thinking"]
                summary = thinking.pop("summary", None)
                if summary and not thinking.get("text"):
                    thinking["text"] = "\n\n".join(part.get("text", "") for part in summary)
                thinking.pop("signature", None)
            if fmt == "openai-responses":
                content.pop("annotations", None)
    return tree


@pytest.mark.parametrize("fmt", sorted(RESPONSE))
def test_assembling_the_lux_stream_equals_converting_the_assembled_response(fmt: str) -> None:
    """``assemble(convert_stream(s, X, "lux"), "lux") == convert(assemble(s, X), X, "lux", kind="response")``
    for every good stream, once the response converter of X exists (other branches write them)."""
    mine = [s for s in STREAMS if s.format == fmt and _good(s)]
    assert mine
    try:
        lucent.convert(lucent.encode(_assembled(mine[0].file)), source=fmt, target="lux", kind="response")
    except UsageError as exc:
        if exc.code == "unsupported_conversion":
            pytest.skip(f"no {fmt} -> lux response converter on this branch ({exc.message}); the lead enables this check on merge")
        raise
    for stream in mine:
        document = lucent.convert(lucent.encode(_assembled(stream.file)), source=fmt, target="lux", kind="response").value
        lux, _ = _round_trip(stream.file)
        assembled = streams.assemble(lux, "lux")
        assert stream_view(fmt, assembled.choices) == stream_view(fmt, document.choices), stream.file
        assert assembled.usage == document.usage, stream.file


def test_round_trip_differences_are_reported_as_diagnostics() -> None:
    """A difference in the round trip is never silent: the first hop reports the member it drops."""
    stream = next(s for s in STREAMS if s.file == "toolCallRequest/google/response-streaming.json")
    conversion = streams.convert_stream(stream.events, "gemini", "lux")
    list(conversion)
    fields = {(d.field, d.status) for d in conversion.diagnostics}
    assert ("$[1].usageMetadata.promptTokensDetails", "Unsupported") in fields
    assert ("$[1].usageMetadata.serviceTier", "Unsupported") in fields
