"""Responses streams and documents agree (issue 15, commutation): converting a recorded stream
event by event and assembling the result gives the value that converting the assembled
document gives. The streams are cut from the recordings of tests/data/lingua."""

from __future__ import annotations

import copy
import json
from typing import Any

import msgspec

import lucent
from lucent import streams
from tests.stream_conformance import both_paths
from tests.vendor_corpus import CORPUS

FOLLOWUP = "anthropicOpus5AdaptiveThinkingMaxEffortParam/responses/followup-response-streaming.json"
"""A reasoning item whose ``encrypted_content`` differs in output_item.added, output_item.done
and response.completed (the API encrypts it anew each time), then a message item."""


def cut(file: str, items: set[int]) -> list[dict[str, Any]]:
    """The recorded stream ``file`` with only the output items ``items`` (their events, and
    their entries of the terminal response), numbered again from 0."""
    events = json.loads((CORPUS / file).read_bytes())
    kept: list[dict[str, Any]] = []
    for event in events:
        if "output_index" in event and event["output_index"] not in items:
            continue
        event = copy.deepcopy(event)
        if "output_index" in event:
            event["output_index"] = sorted(items).index(event["output_index"])
        if event["type"] in ("response.completed", "response.incomplete"):
            output = event["response"]["output"]
            event["response"]["output"] = [output[n] for n in sorted(items)]
        event["sequence_number"] = len(kept)
        kept.append(event)
    return kept


def both(events: list[dict[str, Any]], target: str) -> tuple[Any, Any]:
    """(assemble(convert_stream(s)), convert(assemble(s))) as JSON values without nulls."""
    return both_paths(events, "openai-responses", target)


def test_the_reasoning_signature_is_the_output_item_done_one_on_both_paths() -> None:
    """The assembled response holds each reasoning item's ``encrypted_content`` as its
    output_item.done held it (the one a stream converter can sign its thinking block with as the
    block ends), not the terminal response's re-encryption: both paths give the same Lux
    signature and the same Anthropic signature."""
    events = cut(FOLLOWUP, {0})
    done = events[3]["item"]["encrypted_content"]
    assert events[3]["type"] == "response.output_item.done"
    assert events[-1]["response"]["output"][0]["encrypted_content"] != done  # the API's re-encryption
    assembled = msgspec.to_builtins(streams.assemble(events, "openai-responses"))
    assert assembled["output"][0]["encrypted_content"] == done
    assert assembled["id"] == events[-1]["response"]["id"]
    assert events[-1]["response"]["output"][0]["encrypted_content"] != done  # the event is left as it came
    streamed, converted = both(events, "lux")
    assert streamed["choices"][0]["message"]["content"][0]["thinking"]["signature"] == done
    assert converted["choices"][0]["message"]["content"][0]["thinking"]["signature"] == done
    streamed, converted = both(events, "anthropic")
    assert streamed["content"][0]["signature"] == converted["content"][0]["signature"] == done


def test_an_empty_reasoning_summary_is_no_lux_summary_on_both_paths() -> None:
    """A reasoning item with ``summary: []`` (the API sends it when no summary was asked for):
    the Lux thinking block has no summary on either path (a Lux stream has no summary delta),
    and the way back to Responses writes ``summary: []`` again."""
    events = cut(FOLLOWUP, {0})
    assert events[-1]["response"]["output"][0]["summary"] == []
    streamed, converted = both(events, "lux")
    thinking = {"text": "", "signature": events[3]["item"]["encrypted_content"], "redacted": False}
    assert streamed["choices"][0]["message"]["content"] == [{"type": "thinking", "thinking": thinking}]
    assert converted["choices"][0]["message"]["content"] == [{"type": "thinking", "thinking": thinking}]
    document = lucent.convert(streams.assemble(events, "openai-responses"), "openai-responses", "lux", kind="response").value
    back = msgspec.to_builtins(lucent.convert(document, "lux", "openai-responses", kind="response").value)
    assert back["output"][0]["summary"] == []


WEB_SEARCH = "webSearchToolParam/responses/response-streaming.json"
"""A message item (output 25) whose text cites eight pages (url_citation annotations)."""


def test_url_citations_are_lux_url_annotations_on_both_paths() -> None:
    """The annotations of an output_text part reach Lux as url annotations of its text block on
    both paths (the stream sends them with output_item.done, where the cited text is whole)."""
    events = cut(WEB_SEARCH, {25})
    part = events[-1]["response"]["output"][0]["content"][0]
    first = part["annotations"][0]
    streamed, converted = both(events, "lux")
    for value in (streamed, converted):
        block = value["choices"][0]["message"]["content"][0]
        assert block["text"] == part["text"]
        assert len(block["annotations"]) == 8
        assert block["annotations"][0] == {
            "kind": "url", "ref": first["url"], "start": 522, "end": 679, "text": part["text"][522:679],
        }
    assert streamed == converted


def test_a_lux_response_assembled_from_a_responses_stream_keeps_its_encrypted_content() -> None:
    """Responses stream -> Lux stream -> assembled Lux response -> Responses document: the Lux
    response has no side-car record (a Lux stream has none), and the reasoning's
    encrypted_content still comes back (Degraded), as the stream writer keeps it."""
    events = cut(FOLLOWUP, {0})
    lux = streams.assemble(list(streams.convert_stream(events, "openai-responses", "lux")), "lux")
    result = lucent.convert(lux, "lux", "openai-responses", kind="response", context={"created_at": 1})
    output = msgspec.to_builtins(result.value)["output"]
    assert output[0]["encrypted_content"] == events[3]["item"]["encrypted_content"]
    assert ("$.choices[0].message.content[0].thinking.signature", "Degraded") in {(d.field, d.status) for d in result.diagnostics}
