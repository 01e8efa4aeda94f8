"""OpenAI Responses streams built event by event: one output item of each type that has events of
its own, each with every event kind it can receive, as the recorded streams order them.

:func:`item_events` gives the events of one item (without ``sequence_number``), :func:`stream`
a whole stream of such items (``response.created`` ... ``response.completed``, numbered), and
:func:`numbered` renumbers a list of events after a mutation. The envelope is the recorded one of
``tests/data/lingua/snapshots/toolCallRequest/responses`` (its ``response.created``). Used by
tests/formats/openai_responses/test_stream_items.py and as fuzz seeds (tests/fuzz/seeds.py).
"""

from __future__ import annotations

import copy
import json
import typing
from functools import cache
from pathlib import Path
from typing import Any

import msgspec

CORPUS = Path(__file__).resolve().parent / "data" / "lingua" / "snapshots"

ITEM_TYPES = (
    "message",
    "reasoning",
    "function_call",
    "custom_tool_call",
    "code_interpreter_call",
    "mcp_call",
    "mcp_list_tools",
    "web_search_call",
    "file_search_call",
    "image_generation_call",
)
"""The output item types that have stream events of their own (besides output_item.*)."""


@cache
def _created() -> dict[str, Any]:
    events = json.loads((CORPUS / "toolCallRequest" / "responses" / "response-streaming.json").read_bytes())
    created: dict[str, Any] = events[0]
    return created


def _added(kind: str, n: int) -> dict[str, Any]:
    """The item as output_item.added holds it."""
    item_id = f"{kind[:3]}_{n}"
    return {
        "message": {"id": item_id, "type": "message", "status": "in_progress", "content": [], "role": "assistant"},
        "reasoning": {"id": item_id, "type": "reasoning", "summary": []},
        "function_call": {"id": item_id, "type": "function_call", "status": "in_progress", "arguments": "", "call_id": f"call_{n}", "name": "get_weather"},
        "custom_tool_call": {"id": item_id, "type": "custom_tool_call", "call_id": f"call_{n}", "name": "grammar", "input": ""},
        "code_interpreter_call": {"id": item_id, "type": "code_interpreter_call", "status": "in_progress", "container_id": "cntr_1", "code": "", "outputs": None},
        "mcp_call": {"id": item_id, "type": "mcp_call", "server_label": "srv", "name": "lookup", "arguments": ""},
        "mcp_list_tools": {"id": item_id, "type": "mcp_list_tools", "server_label": "srv", "tools": []},
        "web_search_call": {"id": item_id, "type": "web_search_call", "status": "in_progress"},
        "file_search_call": {"id": item_id, "type": "file_search_call", "status": "in_progress", "queries": []},
        "image_generation_call": {"id": item_id, "type": "image_generation_call", "status": "in_progress", "result": None},
    }[kind]


def item_events(kind: str, n: int, *, failed: bool = False) -> list[dict[str, Any]]:
    """The events of output item ``n`` of type ``kind``, from output_item.added to .done
    (``failed``: an MCP call or tool listing ends with its ``.failed`` event)."""
    item = _added(kind, n)
    done = copy.deepcopy(item)
    on = {"item_id": item["id"], "output_index": n}
    events: list[dict[str, Any]] = [{"type": "response.output_item.added", "output_index": n, "item": item}]

    def add(kind: str, **members: Any) -> None:
        events.append({"type": f"response.{kind}", **on, **members})

    if kind == "message":
        text = {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}
        add("content_part.added", content_index=0, part=text)
        add("output_text.delta", content_index=0, delta="Hel", logprobs=[])
        add("output_text.delta", content_index=0, delta="lo", logprobs=[])
        annotation = {"type": "url_citation", "start_index": 0, "end_index": 5, "url": "https://example.com/", "title": "Example"}
        add("output_text.annotation.added", content_index=0, annotation_index=0, annotation=annotation)
        add("output_text.done", content_index=0, text="Hello", logprobs=[])
        whole = dict(text, text="Hello", annotations=[annotation])
        add("content_part.done", content_index=0, part=whole)
        refusal = {"type": "refusal", "refusal": ""}
        add("content_part.added", content_index=1, part=refusal)
        add("refusal.delta", content_index=1, delta="No.")
        add("refusal.done", content_index=1, refusal="No.")
        add("content_part.done", content_index=1, part={"type": "refusal", "refusal": "No."})
        done.update(status="completed", content=[whole, {"type": "refusal", "refusal": "No."}])
    elif kind == "reasoning":
        for k, text in enumerate(("Think", "More")):
            add("reasoning_summary_part.added", summary_index=k, part={"type": "summary_text", "text": ""})
            add("reasoning_summary_text.delta", summary_index=k, delta=text[:2])
            add("reasoning_summary_text.delta", summary_index=k, delta=text[2:])
            add("reasoning_summary_text.done", summary_index=k, text=text)
            add("reasoning_summary_part.done", summary_index=k, part={"type": "summary_text", "text": text})
        add("content_part.added", content_index=0, part={"type": "reasoning_text", "text": ""})
        add("reasoning_text.delta", content_index=0, delta="step")
        add("reasoning_text.done", content_index=0, text="step")
        add("content_part.done", content_index=0, part={"type": "reasoning_text", "text": "step"})
        done.update(summary=[{"type": "summary_text", "text": "Think"}, {"type": "summary_text", "text": "More"}], content=[{"type": "reasoning_text", "text": "step"}])
    elif kind == "function_call":
        add("function_call_arguments.delta", delta='{"location":')
        add("function_call_arguments.delta", delta='"Paris"}')
        add("function_call_arguments.done", arguments='{"location":"Paris"}', name="get_weather")
        done.update(status="completed", arguments='{"location":"Paris"}')
    elif kind == "custom_tool_call":
        add("custom_tool_call_input.delta", delta="start ")
        add("custom_tool_call_input.delta", delta="end")
        add("custom_tool_call_input.done", input="start end")
        done.update(input="start end")
    elif kind == "code_interpreter_call":
        add("code_interpreter_call.in_progress")
        add("code_interpreter_call_code.delta", delta="print(")
        add("code_interpreter_call_code.delta", delta="1)")
        add("code_interpreter_call_code.done", code="print(1)")
        add("code_interpreter_call.interpreting")
        add("code_interpreter_call.completed")
        done.update(status="completed", code="print(1)")
    elif kind == "mcp_call":
        add("mcp_call.in_progress")
        add("mcp_call_arguments.delta", delta='{"q":')
        add("mcp_call_arguments.delta", delta='"x"}')
        add("mcp_call_arguments.done", arguments='{"q":"x"}')
        add("mcp_call.failed" if failed else "mcp_call.completed")
        done.update(arguments='{"q":"x"}')
    elif kind == "mcp_list_tools":
        add("mcp_list_tools.in_progress")
        add("mcp_list_tools.failed" if failed else "mcp_list_tools.completed")
    elif kind in ("web_search_call", "file_search_call"):
        add(f"{kind}.in_progress")
        add(f"{kind}.searching")
        add(f"{kind}.completed")
        done.update(status="completed")
    elif kind == "image_generation_call":
        add("image_generation_call.in_progress")
        add("image_generation_call.generating")
        add("image_generation_call.partial_image", partial_image_index=0, partial_image_b64="AAAA")
        add("image_generation_call.partial_image", partial_image_index=1, partial_image_b64="AAAA")
        add("image_generation_call.completed")
        done.update(status="completed", result="AAAA")
    events.append({"type": "response.output_item.done", "output_index": n, "item": done})
    return events


def numbered(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events with ``sequence_number`` 0, 1, 2, ... (copies)."""
    return [dict(e, sequence_number=i) for i, e in enumerate(events)]


def opening() -> list[dict[str, Any]]:
    """``response.created`` and ``response.in_progress`` (unnumbered)."""
    created = copy.deepcopy(_created())
    created.pop("sequence_number", None)
    return [created, {"type": "response.in_progress", "response": copy.deepcopy(created["response"])}]


def completed(items: list[dict[str, Any]]) -> dict[str, Any]:
    """``response.completed`` holding these output items (unnumbered)."""
    response = copy.deepcopy(_created()["response"])
    response.update(status="completed", output=items, usage={"input_tokens": 5, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 7, "output_tokens_details": {"reasoning_tokens": 2}, "total_tokens": 12})
    return {"type": "response.completed", "response": response}


def stream(kinds: typing.Sequence[str] = ITEM_TYPES, *, failed: bool = False) -> list[dict[str, Any]]:
    """A whole valid stream: one item of each of ``kinds``, in order, then response.completed."""
    events = opening()
    done = []
    for n, kind in enumerate(kinds):
        mine = item_events(kind, n, failed=failed)
        events += mine
        done.append(copy.deepcopy(mine[-1]["item"]))
    events.append(completed(done))
    return numbered(events)


def event_kinds_with_output_index() -> set[str]:
    """Every event type of the published ResponseStreamEvent union that has an output_index."""
    from lucent.generated.openai_responses import DECODE_TYPES

    found = set()
    for variant in typing.get_args(DECODE_TYPES["ResponseStreamEvent"]):
        info = msgspec.inspect.type_info(variant)
        assert isinstance(info, msgspec.inspect.StructType)
        if any(f.name == "output_index" for f in info.fields):
            found.add(variant.__struct_config__.tag)
    return found
