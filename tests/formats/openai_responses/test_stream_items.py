"""OpenAI Responses streams: every event that names an output item or a part of one is checked
against what is open, alike in ``assemble`` and in ``convert_stream`` to every target (issue 14,
class 3: KeyError and IndexError escaped before).

The streams are built by tests/responses_streams.py (one item of each type, every event kind it
receives); each test mutates one event and expects the same StreamError code and path from the
assembler and from the converter, whatever the target.
"""

from __future__ import annotations

import copy
from typing import Any

import msgspec
import pytest

from lucent import streams
from lucent.formats.openai_responses.stream_items import ITEM_TYPES as FAMILY_ITEM_TYPES
from lucent.errors import StreamError
from tests.responses_streams import ITEM_TYPES, completed, event_kinds_with_output_index, item_events, numbered, opening, stream

TARGETS = streams.FORMATS
FULL = stream()
FAILED = stream(failed=True)


def refusal(events: list[dict[str, Any]]) -> tuple[str, str]:
    """(code, path) of the StreamError that assemble raises; convert_stream to every target
    raises the same one, and nothing else escapes."""
    with pytest.raises(StreamError) as caught:
        streams.assemble(events, "openai-responses")
    expected = (caught.value.code, caught.value.path)
    for target in TARGETS:
        with pytest.raises(StreamError) as converted:
            list(streams.convert_stream(events, "openai-responses", target))
        assert (converted.value.code, converted.value.path) == expected, target
    return expected


def accepted(events: list[dict[str, Any]]) -> Any:
    for target in TARGETS:
        list(streams.convert_stream(events, "openai-responses", target))
    return streams.assemble(events, "openai-responses")


def where(events: list[dict[str, Any]], kind: str) -> int:
    return next(i for i, e in enumerate(events) if e["type"] == kind)


def source_of(kind: str) -> list[dict[str, Any]]:
    return FAILED if kind.endswith(".failed") else FULL


NAMING = sorted(event_kinds_with_output_index() - {"response.output_item.added"})
WITH_ITEM_ID = [k for k in NAMING if "item_id" in source_of(k)[where(source_of(k), k)]]
RESTRICTED = [k for k in NAMING if k.split(".")[1] in FAMILY_ITEM_TYPES]
PART_KINDS = [k for k in NAMING if any(m in source_of(k)[where(source_of(k), k)] for m in ("content_index", "summary_index"))]


def test_the_built_streams_hold_every_event_kind_that_names_an_item_and_are_accepted() -> None:
    kinds = {e["type"] for e in FULL} | {e["type"] for e in FAILED}
    assert event_kinds_with_output_index() <= kinds
    for events in (FULL, FAILED):
        response = accepted(events)
        assert [o["type"] for o in msgspec.to_builtins(response.output)] == list(ITEM_TYPES)
    lux = msgspec.to_builtins(streams.assemble(streams.convert_stream(FULL, "openai-responses", "lux"), "lux"))
    content = lux["choices"][0]["message"]["content"]
    assert [c["type"] for c in content] == ["text", "refusal", "thinking", "tool_use"]
    assert content[2]["thinking"]["text"] == "Think\n\nMorestep"
    assert (content[0]["text"], content[1]["refusal"], content[3]["tool_use"]["arguments"]) == ("Hello", "No.", '{"location":"Paris"}')


@pytest.mark.parametrize("kind", NAMING)
def test_an_event_naming_an_item_never_added_is_item_not_open(kind: str) -> None:
    events = copy.deepcopy(source_of(kind))
    i = where(events, kind)
    events[i]["output_index"] = 42
    assert refusal(events) == ("item_not_open", f"$[{i}].output_index")


@pytest.mark.parametrize("kind", NAMING)
def test_an_event_naming_an_item_that_is_done_is_item_not_open(kind: str) -> None:
    events = copy.deepcopy(source_of(kind))
    i = where(events, kind)
    n = events[i]["output_index"]
    done = next(j for j, e in enumerate(events) if e["type"] == "response.output_item.done" and e["output_index"] == n)
    events.insert(done + 1, copy.deepcopy(events[i]))  # a copy of the event, after the item's done
    assert refusal(numbered(events)) == ("item_not_open", f"$[{done + 1}].output_index")


@pytest.mark.parametrize("kind", RESTRICTED)
def test_an_event_naming_an_open_item_of_another_type_is_item_type_mismatch(kind: str) -> None:
    """An item of another type is open (added first, at index 0); the event names it."""
    family = kind.split(".")[1]
    other = next(t for t in ITEM_TYPES if t not in FAMILY_ITEM_TYPES[family])
    mine = next(t for t in ITEM_TYPES if t in FAMILY_ITEM_TYPES[family])
    first = item_events(other, 0)
    second = item_events(mine, 1, failed=kind.endswith(".failed"))
    j = where(second, kind)
    second[j].update(output_index=0, item_id=first[0]["item"]["id"])
    events = opening() + first[:1] + second
    assert refusal(numbered(events)) == ("item_type_mismatch", f"$[{3 + j}].output_index")


@pytest.mark.parametrize("kind", WITH_ITEM_ID)
def test_an_event_with_another_item_id_is_item_id_mismatch(kind: str) -> None:
    events = copy.deepcopy(source_of(kind))
    i = where(events, kind)
    events[i]["item_id"] = "msg_other"
    assert refusal(events) == ("item_id_mismatch", f"$[{i}].item_id")


@pytest.mark.parametrize("kind", PART_KINDS)
def test_an_event_naming_a_part_never_added_is_refused(kind: str) -> None:
    events = copy.deepcopy(source_of(kind))
    i = where(events, kind)
    member = "content_index" if "content_index" in events[i] else "summary_index"
    events[i][member] = 7
    code = "index_out_of_order" if kind.endswith("_part.added") else "part_not_open"
    assert refusal(events) == (code, f"$[{i}].{member}")


@pytest.mark.parametrize("kind", [k for k in PART_KINDS if not k.endswith(".added")])
def test_an_event_naming_a_part_that_is_done_is_part_not_open(kind: str) -> None:
    events = copy.deepcopy(source_of(kind))
    i = where(events, kind)
    member = "content_index" if "content_index" in events[i] else "summary_index"
    k = events[i][member]
    done = next(j for j, e in enumerate(events) if e["type"].endswith("_part.done") and e.get(member) == k and e["output_index"] == events[i]["output_index"])
    events.insert(done + 1, copy.deepcopy(events[i]))  # a copy of the event, after the part's done
    assert refusal(numbered(events)) == ("part_not_open", f"$[{done + 1}].{member}")


@pytest.mark.parametrize("kind", ["response.content_part.added", "response.reasoning_summary_part.added"])
def test_a_part_added_twice_is_duplicate_part_index(kind: str) -> None:
    events = copy.deepcopy(FULL)
    i = where(events, kind)
    member = "content_index" if "content_index" in events[i] else "summary_index"
    events.insert(i + 1, copy.deepcopy(events[i]))
    assert refusal(numbered(events)) == ("duplicate_part_index", f"$[{i + 1}].{member}")


@pytest.mark.parametrize(("kind", "member"), [("response.output_text.annotation.added", "annotation_index"), ("response.image_generation_call.partial_image", "partial_image_index")])
def test_an_annotation_or_partial_image_index_gap_is_index_out_of_order(kind: str, member: str) -> None:
    events = copy.deepcopy(FULL)
    i = where(events, kind)
    events[i][member] = 3
    assert refusal(events) == ("index_out_of_order", f"$[{i}].{member}")


@pytest.mark.parametrize(
    ("kind", "member"),
    [
        ("response.reasoning_summary_text.delta", "summary_index"),
        ("response.function_call_arguments.delta", None),
        ("response.reasoning_summary_part.added", "summary_index"),
        ("response.reasoning_summary_text.done", "summary_index"),
        ("response.function_call_arguments.done", None),
        ("response.custom_tool_call_input.delta", None),
    ],
)
def test_an_event_of_another_item_kind_naming_an_open_message_is_refused_alike(kind: str, member: str | None) -> None:
    """The issue's KeyError: (0, 0): convert_stream raised it; assemble accepted the stream."""
    message = item_events("message", 0)
    source = next(e for e in stream() if e["type"] == kind)
    event = dict(source, output_index=0, item_id=message[0]["item"]["id"])
    if member is not None:
        event[member] = 1 if kind.endswith("part.added") else 0
    events = opening() + message[:2] + [event] + message[2:]
    assert refusal(numbered(events)) == ("item_type_mismatch", "$[4].output_index")


def test_items_at_output_index_0_and_5_are_index_out_of_order_at_the_second() -> None:
    """The issue's IndexError: items at output_index 0 and 5, the terminal response holding two."""
    first, second = item_events("message", 0), item_events("function_call", 5)
    events = opening() + first + second + [completed([first[-1]["item"], second[-1]["item"]])]
    assert refusal(numbered(events)) == ("index_out_of_order", f"$[{2 + len(first)}].output_index")
    again = opening() + first + item_events("function_call", 0)
    assert refusal(numbered(again)) == ("duplicate_item_index", f"$[{2 + len(first)}].output_index")


def test_items_may_be_open_together_and_interleave() -> None:
    """Two items open at once, their events interleaved: each names its own (accepted)."""
    first, second = item_events("message", 0), item_events("function_call", 1)
    events = opening() + first[:3] + second[:2] + first[3:] + second[2:] + [completed([first[-1]["item"], second[-1]["item"]])]
    response = accepted(numbered(events))
    assert [o["type"] for o in msgspec.to_builtins(response.output)] == ["message", "function_call"]


def test_output_item_done_keeps_the_type_and_id_it_was_added_with() -> None:
    events = copy.deepcopy(FULL)
    i = where(events, "response.output_item.done")
    events[i]["item"] = dict(item_events("function_call", 0)[-1]["item"], id=events[i]["item"]["id"])
    assert refusal(events) == ("item_type_mismatch", f"$[{i}].item.type")
    events = copy.deepcopy(FULL)
    events[i]["item"]["id"] = "msg_other"
    assert refusal(events) == ("item_id_mismatch", f"$[{i}].item.id")


def test_part_types_are_those_the_item_holds_and_keep() -> None:
    events = copy.deepcopy(FULL)
    i = where(events, "response.content_part.added")
    events[i]["part"] = {"type": "reasoning_text", "text": ""}  # a message holds no reasoning text
    assert refusal(events) == ("part_type_mismatch", f"$[{i}].part.type")
    events = copy.deepcopy(FULL)
    i = where(events, "response.refusal.delta")
    events[i]["content_index"] = 0  # part 0 is output_text, and it is done
    assert refusal(events)[0] == "part_not_open"
    events = copy.deepcopy(FULL)
    i = where(events, "response.output_text.delta")
    events[i]["type"] = "response.refusal.delta"
    del events[i]["logprobs"]
    assert refusal(events) == ("part_type_mismatch", f"$[{i}].content_index")
    events = copy.deepcopy(FULL)
    i = where(events, "response.content_part.done")
    events[i]["part"] = {"type": "refusal", "refusal": "Hello"}
    assert refusal(events) == ("part_type_mismatch", f"$[{i}].part.type")


def test_texts_are_what_the_events_built() -> None:
    events = copy.deepcopy(FULL)
    i = where(events, "response.content_part.done")
    events[i]["part"]["text"] = "Hello!"
    assert refusal(events) == ("delta_mismatch", f"$[{i}].part.text")
    events = copy.deepcopy(FULL)
    i = where(events, "response.output_item.done")  # the message: drop its refusal part
    events[i]["item"]["content"].pop()
    assert refusal(events) == ("delta_mismatch", f"$[{i}].item.content")
    events = copy.deepcopy(FULL)
    events[i]["item"]["content"].append({"type": "output_text", "annotations": [], "logprobs": [], "text": "more"})
    assert refusal(events) == ("delta_mismatch", f"$[{i}].item.content[2].text")
    events = copy.deepcopy(FULL)
    j = where(events, "response.output_text.done")
    events.insert(j + 1, dict(events[j - 2], delta="!"))  # a delta after the text's done
    assert refusal(numbered(events)) == ("part_not_open", f"$[{j + 1}].content_index")
    events = copy.deepcopy(FULL)
    events[-1]["response"]["output"][1]["summary"][1]["text"] = "Less"
    assert refusal(events) == ("delta_mismatch", f"$[{len(events) - 1}].response.output[1].summary[1].text")


def test_a_function_call_whose_arguments_come_whole_in_its_done_events_converts_them() -> None:
    """No arguments delta: the .done event holds them (as a program item's code comes only in
    its output_item.done); the Lux tool call gets them, once."""
    call = [e for e in item_events("function_call", 0) if e["type"] != "response.function_call_arguments.delta"]
    events = numbered(opening() + call + [completed([call[-1]["item"]])])
    assert streams.assemble(events, "openai-responses").output[0].arguments == '{"location":"Paris"}'
    lux = msgspec.to_builtins(streams.assemble(streams.convert_stream(events, "openai-responses", "lux"), "lux"))
    assert lux["choices"][0]["message"]["content"][0]["tool_use"]["arguments"] == '{"location":"Paris"}'
    wrong = copy.deepcopy(events)
    wrong[2]["item"]["arguments"] = "["  # the added item's arguments are not the start of the done's
    assert refusal(wrong) == ("delta_mismatch", "$[3].arguments")


def test_reasoning_text_may_come_without_its_content_part_added() -> None:
    reasoning = [e for e in item_events("reasoning", 0) if not (e["type"].startswith("response.content_part.") )]
    events = numbered(opening() + reasoning + [completed([reasoning[-1]["item"]])])
    assert streams.assemble(events, "openai-responses").output[0].content[0].text == "step"
    gap = copy.deepcopy(events)
    i = where(gap, "response.reasoning_text.delta")
    gap[i]["content_index"] = 1
    assert refusal(gap) == ("part_not_open", f"$[{i}].content_index")
