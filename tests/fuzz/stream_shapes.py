"""Stream-shaped fuzz inputs: seeds and mutations that keep a stream's events JSON and move its
indexes and event kinds (issue 14, class 3: Responses events naming an item or part that is not
open raised KeyError and IndexError).

* :func:`responses_seeds`: OpenAI Responses streams with every output item type and every event
  kind that names an index (tests/responses_streams.py), valid, and the shapes the issue names:
  items at arbitrary ``output_index``, parts at arbitrary ``content_index``/``summary_index``
  (gaps, repeats), deltas and parts naming an item of the wrong kind, interleaved items.
* :func:`mutate_events`: an event-level mutation of any SSE stream: one of its events gets another
  value for a member that names an index (``output_index``, ``content_index``,
  ``summary_index``, ``annotation_index``, ``partial_image_index``, ``index``) or an item
  (``item_id``), another event's ``type`` (its members kept), or is repeated or moved; a
  ``sequence_number`` is then renumbered, so that the mutation reaches the rules past it.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

from tests import responses_streams as rs

INDEX_MEMBERS = ("output_index", "content_index", "summary_index", "annotation_index", "partial_image_index", "index")
"""Members that name a position: an item, a part, an annotation, a partial image, a block."""


def sse(events: list[Any]) -> bytes:
    return b"".join(b"data: " + json.dumps(e, ensure_ascii=False).encode("utf-8", "surrogatepass") + b"\n\n" for e in events)


def events_of(data: bytes) -> list[Any] | None:
    """The JSON events of an SSE stream of one ``data:`` line per event, or None."""
    found = []
    for block in data.split(b"\n\n"):
        if not block.strip():
            continue
        if not block.startswith(b"data: ") or b"\n" in block:
            return None
        try:
            found.append(json.loads(block[6:]))
        except ValueError:
            return None
    return found or None


def renumbered(events: list[Any]) -> list[Any]:
    """``sequence_number`` 0, 1, 2, ... on the events that have one (Responses)."""
    n = 0
    for event in events:
        if isinstance(event, dict) and "sequence_number" in event:
            event["sequence_number"] = n
            n += 1
    return events


def mutate_events(events: list[Any], pick: Callable[[int], int]) -> list[Any]:
    """One event-level edit of ``events`` (a copy); ``pick(n)`` chooses in ``range(n)``."""
    events = copy.deepcopy(events)
    named = [(i, m) for i, e in enumerate(events) if isinstance(e, dict) for m in (*INDEX_MEMBERS, "item_id") if m in e]
    typed = [i for i, e in enumerate(events) if isinstance(e, dict) and isinstance(e.get("type"), str)]
    action = pick(4)
    if action == 0 and named:
        i, member = named[pick(len(named))]
        if member == "item_id":
            others = [e["item_id"] for e in events if isinstance(e, dict) and "item_id" in e] + ["other"]
            events[i][member] = others[pick(len(others))]
        else:
            events[i][member] = (-1, 0, 1, 2, 3, 5, 7, 2**31)[pick(8)]
    elif action == 1 and len(typed) > 1:
        i, j = typed[pick(len(typed))], typed[pick(len(typed))]
        events[i]["type"] = events[j]["type"]  # another kind, the members of this one
        for member in ("content_index", "summary_index"):  # the other kind's part index
            if member in events[j] and member not in events[i]:
                events[i][member] = events[j][member]
    elif action == 2 and events:
        i = pick(len(events))
        events.insert(pick(len(events) + 1), copy.deepcopy(events[i]))
    elif events:
        event = events.pop(pick(len(events)))
        events.insert(pick(len(events) + 1), event)
    return renumbered(events)


def _with(events: list[dict[str, Any]], change: Callable[[list[dict[str, Any]]], None]) -> list[dict[str, Any]]:
    out = copy.deepcopy(events)
    change(out)
    return rs.numbered([{k: v for k, v in e.items() if k != "sequence_number"} for e in out])


def _first(events: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    return next(e for e in events if e["type"] == kind)


def responses_seeds() -> list[bytes]:
    """Responses streams as SSE: valid ones, and the shapes issue 14 names (see the module)."""
    full, failed = rs.stream(), rs.stream(failed=True)
    shapes = [full, failed, rs.stream(("message",)), rs.stream(("reasoning", "function_call"))]
    first, second = rs.item_events("message", 0), rs.item_events("function_call", 1)
    interleaved = rs.opening() + first[:3] + second[:2] + first[3:] + second[2:] + [rs.completed([first[-1]["item"], second[-1]["item"]])]
    shapes.append(rs.numbered(interleaved))

    def gap(events: list[dict[str, Any]]) -> None:  # items at output_index 0 and 5
        for e in events:
            if e.get("output_index") == 1:
                e["output_index"] = 5

    shapes.append(_with(rs.stream(("message", "function_call")), gap))

    def part_gap(member: str, kind: str) -> Callable[[list[dict[str, Any]]], None]:
        def change(events: list[dict[str, Any]]) -> None:
            _first(events, kind)[member] = 3
        return change

    shapes.append(_with(full, part_gap("content_index", "response.content_part.added")))
    shapes.append(_with(full, part_gap("summary_index", "response.reasoning_summary_part.added")))
    shapes.append(_with(full, part_gap("content_index", "response.output_text.delta")))
    shapes.append(_with(full, part_gap("summary_index", "response.reasoning_summary_text.delta")))
    shapes.append(_with(full, part_gap("annotation_index", "response.output_text.annotation.added")))
    message = rs.item_events("message", 0)
    for kind, member in (("response.reasoning_summary_text.delta", "summary_index"), ("response.function_call_arguments.delta", None), ("response.reasoning_summary_part.added", "summary_index")):
        event = {k: v for k, v in _first(full, kind).items() if k != "sequence_number"}
        event.update(output_index=0, item_id=message[0]["item"]["id"])
        if member is not None:
            event[member] = 1
        shapes.append(rs.numbered(rs.opening() + message[:2] + [event] + message[2:] + [rs.completed([message[-1]["item"]])]))
    return [sse(s) for s in shapes]
