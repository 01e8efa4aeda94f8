"""The output items of an OpenAI Responses stream, and every rule on the events that name them.

Shared by the assembler (:mod:`lucent.formats.openai_responses.assembler`) and the stream converter's
reader (:mod:`lucent.formats.openai_responses.stream`), so that ``assemble`` and
``convert_stream`` accept and refuse the same streams, with the same code at the same path.

Source: schemas/vendor/openai-responses.json ``#/$defs/ResponseStreamEvent`` (each event's
``output_index`` is "the index of the output item" in the response's ``output``; ``item_id`` is
its ``id``; ``content_index`` / ``summary_index`` "the index of the content part" / "summary
part"; ``annotation_index`` "the index of the annotation within the content part") and
``#/$defs/OutputItem``. The rules, as every recorded stream of the corpus keeps them:

* ``response.output_item.added`` adds output item ``output_index``, which is the next one:
  0, 1, 2, ... (``duplicate_item_index`` for one added before, ``index_out_of_order`` for a
  gap). Every other event with an ``output_index`` names an item that was added and is not done
  (``item_not_open``), of the type its event belongs to (``item_type_mismatch``: a
  ``reasoning_summary_text.delta`` names a ``reasoning`` item, a
  ``function_call_arguments.delta`` a ``function_call``, ``web_search_call.searching`` a
  ``web_search_call``: :data:`ITEM_TYPES`), and its ``item_id``, when the item has an ``id``,
  is that id (``item_id_mismatch``). ``output_item.done`` closes the item; its ``item`` has the
  type and id it was added with.
* ``content_part.added`` / ``reasoning_summary_part.added`` add the item's next content /
  summary part (``duplicate_part_index``, ``index_out_of_order``), of a type the item holds
  (``part_type_mismatch``: a message holds ``output_text`` and ``refusal`` parts, a reasoning
  item ``reasoning_text`` content and ``summary_text`` summary parts). The text events of a
  part (``output_text.*``, ``refusal.*``, ``reasoning_text.*``, ``reasoning_summary_text.*``,
  ``output_text.annotation.added``) name a part that was added and is not done
  (``part_not_open``), of their type (``part_type_mismatch``); ``*.done`` of the text ends its
  deltas, ``*_part.done`` the part (with the type it was added with). A
  ``reasoning_text.delta`` at the next content index adds its ``reasoning_text`` part itself:
  the reference shows no ``content_part.added`` for reasoning text. ``annotation_index`` and
  ``partial_image_index`` count 0, 1, 2, ... (``index_out_of_order``).
* Texts (``delta_mismatch``): a part's text starts as its ``*_part.added`` part holds it and
  grows by its deltas; each ``*.done`` event, ``*_part.done`` part and ``output_item.done`` item
  holds the text so built, and the ``output_item.done`` item holds every part that was added. An
  item's ``arguments``, ``input`` or ``code`` starts as ``output_item.added`` holds it and grows
  by its deltas; when none came, its ``*.done`` event or ``output_item.done`` item may hold a
  longer text that starts with it (a ``program`` item's ``code`` comes whole in its
  ``output_item.done``). The terminal response's ``output`` has one entry per item, each
  holding its ``output_item.done`` texts (text, refusal, summary, arguments, input, code).

Only the texts of open items are kept, in pieces (joined once, at their ``.done``); a done item
keeps a digest per text.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from lucent.errors import StreamError

Fail = Callable[[str, str, str], StreamError]
"""``fail(code, message, path)``: the StreamError to raise (the caller adds its usage)."""

ITEM_TYPES: dict[str, tuple[str, ...]] = {
    "output_text": ("message",),
    "refusal": ("message",),
    "content_part": ("message", "reasoning"),
    "reasoning_text": ("reasoning",),
    "reasoning_summary_part": ("reasoning",),
    "reasoning_summary_text": ("reasoning",),
    "function_call_arguments": ("function_call",),
    "custom_tool_call_input": ("custom_tool_call",),
    "code_interpreter_call_code": ("code_interpreter_call",),
    "code_interpreter_call": ("code_interpreter_call",),
    "mcp_call_arguments": ("mcp_call",),
    "mcp_call": ("mcp_call",),
    "mcp_list_tools": ("mcp_list_tools",),
    "web_search_call": ("web_search_call",),
    "file_search_call": ("file_search_call",),
    "image_generation_call": ("image_generation_call",),
}
"""The family of an event (its type's second dot-separated word: ``response.<family>.<what>``)
-> the output item types it may name. An event of a family not listed names any open item."""

PART_TYPES: dict[tuple[str, str], tuple[str, ...]] = {
    ("message", "content"): ("output_text", "refusal"),
    ("reasoning", "content"): ("reasoning_text",),
    ("reasoning", "summary"): ("summary_text",),
}
"""(item type, part list) -> the part types it holds (OutputMessage.content, ReasoningItem)."""

PART_EVENTS: dict[str, tuple[str, tuple[str, ...] | None]] = {
    "content_part": ("content", None),
    "output_text": ("content", ("output_text",)),
    "refusal": ("content", ("refusal",)),
    "reasoning_text": ("content", ("reasoning_text",)),
    "reasoning_summary_part": ("summary", None),
    "reasoning_summary_text": ("summary", ("summary_text",)),
}
"""Family -> (the part list its index counts in, the part types its events apply to; None: any
the item holds)."""

TEXT_DELTAS: dict[str, str | None] = {
    "response.output_text.delta": None,
    "response.refusal.delta": None,
    "response.reasoning_text.delta": None,
    "response.reasoning_summary_text.delta": None,
    "response.function_call_arguments.delta": "arguments",
    "response.custom_tool_call_input.delta": "input",
    "response.code_interpreter_call_code.delta": "code",
    "response.mcp_call_arguments.delta": "arguments",
}
"""Delta events (the text is the event's ``delta``) -> the item member they build, or None for
the text of the part they name."""

TEXT_DONES: dict[str, tuple[str, str | None]] = {
    "response.output_text.done": ("text", None),
    "response.refusal.done": ("refusal", None),
    "response.reasoning_text.done": ("text", None),
    "response.reasoning_summary_text.done": ("text", None),
    "response.function_call_arguments.done": ("arguments", "arguments"),
    "response.custom_tool_call_input.done": ("input", "input"),
    "response.code_interpreter_call_code.done": ("code", "code"),
    "response.mcp_call_arguments.done": ("arguments", "arguments"),
}
"""``*.done`` events -> (the member holding the whole text, the item member it is; None: the
text of the part it names)."""

PART_ADDED = ("response.content_part.added", "response.reasoning_summary_part.added")
PART_DONE = ("response.content_part.done", "response.reasoning_summary_part.done")
_INDEXES = {"content": "content_index", "summary": "summary_index"}


def item_texts(item: dict[str, Any]) -> Iterator[tuple[tuple[str, int], str, str]]:
    """The texts of an output item that deltas build: ((what, index), relative path, text)."""
    for what in ("content", "summary"):
        parts = item.get(what)
        for i, part in enumerate(parts if isinstance(parts, list) else ()):
            if isinstance(part, dict):
                for name in ("text", "refusal"):
                    if isinstance(part.get(name), str):
                        yield (what, i), f".{what}[{i}].{name}", part[name]
                        break
    for name in ("arguments", "input", "code"):
        if isinstance(item.get(name), str):
            yield (name, 0), f".{name}", item[name]


def part_text(part: Any) -> str | None:
    """The text member of a content or summary part (``text``, or ``refusal``), if any."""
    if isinstance(part, dict):
        for name in ("text", "refusal"):
            if isinstance(part.get(name), str):
                return str(part[name])
    return None


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


@dataclass
class Part:
    """A content or summary part: its type, its text in pieces, and how far it got."""

    type: str
    pieces: list[str]
    state: str = "open"  # "open", "text_done" (its *.done came), "done" (its *_part.done came)
    annotations: int = 0


@dataclass
class OutputItem:
    """An output item of the stream, as far as its events went."""

    type: str
    id: str | None
    first: int  # the event that added it
    parts: dict[str, list[Part]] = field(default_factory=lambda: {"content": [], "summary": []})
    members: dict[str, list[str]] = field(default_factory=dict)  # arguments / input / code, in pieces
    built: set[str] = field(default_factory=set)  # the members that deltas or a *.done event built
    partial_images: int = 0
    done: dict[tuple[str, int], bytes] | None = None  # after output_item.done: each text's digest
    done_at: int = -1
    sealed: str | None = None  # a reasoning item's encrypted_content in its output_item.done


@dataclass
class Named:
    """What one event names: its item, and its part (None for an item-level event)."""

    item: OutputItem
    part: Part | None


class OutputItems:
    """The output items of one stream, checked event by event (see the module docstring)."""

    def __init__(self, fail: Fail) -> None:
        self._fail = fail
        self.items: dict[int, OutputItem] = {}

    def add(self, tree: dict[str, Any], index: int) -> OutputItem:
        """``response.output_item.added`` (``tree``: the event as JSON values)."""
        at = f"$[{index}]"
        n = tree["output_index"]
        if n in self.items:
            raise self._fail("duplicate_item_index", f"event {index} adds output item {n} a second time", f"{at}.output_index")
        if n != len(self.items):
            raise self._fail("index_out_of_order", f"event {index} adds output item {n}; {len(self.items)} comes next", f"{at}.output_index")
        value = tree["item"]
        item_id = value.get("id")
        item = self.items[n] = OutputItem(type=str(value.get("type")), id=item_id if isinstance(item_id, str) else None, first=index)
        for name in ("arguments", "input", "code"):
            if isinstance(value.get(name), str):
                item.members[name] = [value[name]]
        for what in ("content", "summary"):
            parts = value.get(what)
            for i, part in enumerate(parts if isinstance(parts, list) else ()):
                self._add_part(item, n, what, i, part, f"{at}.item.{what}[{i}]")
        return item

    def name(self, kind: str, tree: dict[str, Any], index: int) -> Named | None:
        """Check an event other than ``output_item.added`` against what is open and apply it;
        None for an event that names no output item."""
        n = tree.get("output_index")
        if n is None:
            return None
        at = f"$[{index}]"
        item = self.items.get(n)
        if item is None or item.done is not None:
            raise self._fail("item_not_open", f"event {index} names output item {n}, which is not open", f"{at}.output_index")
        family = kind.split(".")[1] if kind.count(".") >= 2 else ""
        allowed = ITEM_TYPES.get(family)
        if allowed is not None and item.type not in allowed:
            raise self._fail("item_type_mismatch", f"event {index} ({kind}) names output item {n}, a {item.type} item", f"{at}.output_index")
        if "item_id" in tree and item.id is not None and tree["item_id"] != item.id:
            raise self._fail("item_id_mismatch", f"event {index} names output item {n} with another item_id than the item's id", f"{at}.item_id")
        if kind == "response.output_item.done":
            self._done(tree["item"], item, n, index)
            return Named(item, None)
        if family in PART_EVENTS:
            return Named(item, self._part_event(kind, family, tree, item, n, index))
        member = TEXT_DELTAS.get(kind)
        if member is not None:
            item.members.setdefault(member, []).append(tree["delta"])
            item.built.add(member)
        elif kind in TEXT_DONES:
            text_at, member = TEXT_DONES[kind]
            assert member is not None
            if not self._member_holds(item, member, tree[text_at]):
                raise self._fail("delta_mismatch", f"{kind} holds a text that its deltas do not build", f"{at}.{text_at}")
            item.members[member] = [tree[text_at]]
            item.built.add(member)
        elif kind == "response.image_generation_call.partial_image":
            k = tree["partial_image_index"]
            if k != item.partial_images:
                raise self._fail("index_out_of_order", f"event {index} sends partial image {k} of output item {n}; {item.partial_images} comes next", f"{at}.partial_image_index")
            item.partial_images += 1
        return Named(item, None)

    @staticmethod
    def _member_holds(item: OutputItem, member: str, text: str) -> bool:
        """Whether ``text`` is the item's member as its events built it: the text deltas built,
        or (no delta came) a text that starts as output_item.added held it."""
        built = "".join(item.members.get(member, ()))
        return text == built if member in item.built else text.startswith(built)

    def _add_part(self, item: OutputItem, n: int, what: str, k: Any, part: Any, where: str) -> Part:
        parts = item.parts[what]
        if isinstance(k, int) and 0 <= k < len(parts):
            raise self._fail("duplicate_part_index", f"output item {n} gets {what} part {k} a second time", where)
        if k != len(parts):
            raise self._fail("index_out_of_order", f"output item {n} gets {what} part {k}; {len(parts)} comes next", where)
        kind = str(part.get("type")) if isinstance(part, dict) else ""
        if kind not in PART_TYPES.get((item.type, what), ()):
            raise self._fail("part_type_mismatch", f"a {item.type} item holds no {what} part of type {kind}", where)
        text = part_text(part)
        added = Part(type=kind, pieces=[] if text is None else [text])
        parts.append(added)
        return added

    def _part_event(self, kind: str, family: str, tree: dict[str, Any], item: OutputItem, n: int, index: int) -> Part:
        at = f"$[{index}]"
        what, types = PART_EVENTS[family]
        member = _INDEXES[what]
        k = tree[member]
        parts = item.parts[what]
        if kind in PART_ADDED:
            return self._add_part(item, n, what, k, tree["part"], f"{at}.{member}" if k != len(parts) else f"{at}.part.type")
        if kind == "response.reasoning_text.delta" and k == len(parts):
            parts.append(Part(type="reasoning_text", pieces=[]))  # reasoning text may come without content_part.added
        part: Part | None = parts[k] if isinstance(k, int) and 0 <= k < len(parts) else None
        if part is None or part.state == "done" or (part.state == "text_done" and kind in TEXT_DELTAS):
            state = "done" if part is not None else "not added"
            raise self._fail("part_not_open", f"event {index} names {what} part {k} of output item {n}, which is {state}", f"{at}.{member}")
        if types is not None and part.type not in types:
            raise self._fail("part_type_mismatch", f"event {index} ({kind}) names {what} part {k} of output item {n}, an {part.type} part", f"{at}.{member}")
        if kind in TEXT_DELTAS:
            part.pieces.append(tree["delta"])
        elif kind in TEXT_DONES:
            if part.state == "text_done":
                raise self._fail("part_not_open", f"event {index} ends the text of {what} part {k} of output item {n} a second time", f"{at}.{member}")
            text_at = TEXT_DONES[kind][0]
            if "".join(part.pieces) != tree[text_at]:
                raise self._fail("delta_mismatch", f"{kind} holds a text that its deltas do not build", f"{at}.{text_at}")
            part.pieces = [tree[text_at]]
            part.state = "text_done"
        elif kind in PART_DONE:
            done = tree["part"]
            if done.get("type") != part.type:
                raise self._fail("part_type_mismatch", f"event {index} ends {what} part {k} of output item {n} as another type than it was added with", f"{at}.part.type")
            text = part_text(done)
            if text is not None and "".join(part.pieces) != text:
                raise self._fail("delta_mismatch", f"{kind} holds a part whose text its deltas do not build", f"{at}.part.{'refusal' if part.type == 'refusal' else 'text'}")
            part.state = "done"
        elif kind == "response.output_text.annotation.added":
            a = tree["annotation_index"]
            if a != part.annotations:
                raise self._fail("index_out_of_order", f"event {index} adds annotation {a} to content part {k} of output item {n}; {part.annotations} comes next", f"{at}.annotation_index")
            part.annotations += 1
        return part

    def _done(self, value: dict[str, Any], item: OutputItem, n: int, index: int) -> None:
        at = f"$[{index}]"
        if value.get("type") != item.type:
            raise self._fail("item_type_mismatch", f"event {index} ends output item {n} as another type than it was added with", f"{at}.item.type")
        if item.id is not None and value.get("id") != item.id:
            raise self._fail("item_id_mismatch", f"event {index} ends output item {n} with another id than it was added with", f"{at}.item.id")
        texts = {key: (where, text) for key, where, text in item_texts(value)}
        for name in item.members:
            if (name, 0) not in texts and name in item.built:
                raise self._fail("delta_mismatch", f"output item {n} lacks the {name} that its events built", f"{at}.item.{name}")
            if (name, 0) in texts and not self._member_holds(item, name, texts[(name, 0)][1]):
                raise self._fail("delta_mismatch", f"output item {n} holds a text that its deltas do not build", f"{at}.item{texts[(name, 0)][0]}")
        built: dict[tuple[str, int], str] = {}
        for what in ("content", "summary"):
            for k, part in enumerate(item.parts[what]):
                built[(what, k)] = "".join(part.pieces)
        for key, text in built.items():
            what, k = key
            if key not in texts:
                raise self._fail("delta_mismatch", f"output item {n} lacks the {what} part {k} that its events added", f"{at}.item.{what}")
            if texts[key][1] != text:
                raise self._fail("delta_mismatch", f"output item {n} holds a text that its deltas do not build", f"{at}.item{texts[key][0]}")
        for key, (where, _) in texts.items():
            if key[0] in ("content", "summary") and key not in built:
                raise self._fail("delta_mismatch", f"output item {n} holds a {key[0]} part that its events did not add", f"{at}.item{where}")
        item.done = {key: _digest(text) for key, (_, text) in texts.items()}
        item.done_at = index
        sealed = value.get("encrypted_content")
        item.sealed = sealed if isinstance(sealed, str) else None
        item.parts = {"content": [], "summary": []}
        item.members = {}
        item.built = set()

    def final(self, output: list[Any], index: int) -> None:
        """Check the terminal event's ``response.output`` (JSON values) against the items."""
        at = f"$[{index}]"
        still = [n for n, item in self.items.items() if item.done is None]
        if still:
            raise self._fail("item_not_closed", f"the response ends while output item {min(still)} is open (no output_item.done)", at)
        if len(output) != len(self.items):
            raise self._fail("delta_mismatch", f"the final response has {len(output)} output items; the stream built {len(self.items)}", f"{at}.response.output")
        for n, item in sorted(self.items.items()):
            assert item.done is not None
            value = output[n] if isinstance(output[n], dict) else {}
            final = {key: (where, _digest(text)) for key, where, text in item_texts(value)}
            for key in sorted(item.done.keys() | final.keys()):
                if item.done.get(key) != final.get(key, ("", None))[1]:
                    where = final[key][0] if key in final else f".{key[0]}"
                    raise self._fail("delta_mismatch", f"output item {n} of the final response holds a text that differs from its output_item.done (event {item.done_at})", f"{at}.response.output[{n}]{where}")
