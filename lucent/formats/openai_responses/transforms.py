"""Transforms of the OpenAI Responses specs (the vocabulary in codegen/vocabulary/openai_responses.toml).

Each public function is one transform a spec may name; the decisions they carry out are written at the top of the specs
(mappings/*openai_responses*.toml). Source values of the Responses bindings are read as plain
JSON (``msgspec.to_builtins``), and Responses values are written as plain JSON objects: a
Responses item is an open union that Lux readers see through the Lux blocks and items, and its
members that Lux has no field for travel in ``extra.openai_responses.members`` (keyed by the Lux
path of the object they belong to) so Responses -> Lux -> Responses is equal.
"""

from __future__ import annotations

import re
from typing import Any, cast

import msgspec
from msgspec import UNSET, UnsetType

from lucent._conversion import COMPOSED_FROM, Cx, reports, Status
from lucent._transforms import own_or_sibling, plain_members, shown, text_only, url_image_media_type
from lucent._forms import restructured
from lucent._validation import RuleViolation, convert_as, member
from lucent.formats import FORMATS
from lucent.formats.openai_responses.tables import (
    ANNOTATION_LOST,
    SIGNATURE_WRITTEN,
    FAILURE_ERROR,
    IMPLIED_STATUS,
    INCOMPLETE_REASON_TO_LUX,
    ITEM_CARRIED,
    LOGPROBS_INCLUDE,
    MADE_ID_PREFIX,
    OUTPUT_TEXT_DEFAULTS,
    REQUEST_DEFAULTS,
    RESTATED_DEFAULTS,
    STATUS_FROM_LUX,
    annotation_lost,
    item_members_lost,
    item_status,
    lux_annotation,
)
from lucent.generated.lux_ir_v1 import (
    LucentAgentAction,
    LucentAnnotation,
    LucentChoice,
    LucentContent,
    LucentContentImage,
    LucentContentRefusal,
    LucentContentText,
    LucentContentThinking,
    LucentContentToolResult,
    LucentContentToolUse,
    LucentConversationItem,
    LucentConversationItemAgentAction,
    LucentConversationItemMessage,
    LucentConversationItemReasoning,
    LucentConversationItemToolCall,
    LucentConversationItemToolResult,
    LucentFinishReason,
    LucentMessage,
    LucentMultimedia,
    LucentReasoningConfig,
    LucentStructuredOutput,
    LucentStructuredOutputJsonSchema,
    LucentThinking,
    LucentTool,
    LucentToolChoice,
    LucentToolChoiceSpecificTool,
    LucentToolResult,
    LucentToolUse,
    LucentUsage,
)
from lucent.generated.openai_responses import OutputItem, dispatch_InputItem

MEMBERS = "openai_responses.members"
"""The side-car space (under the Lux ``extra`` / ``provider_payload``) of kept item members."""

_DATA_URL = re.compile(r"^data:([A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+);base64,([A-Za-z0-9+/]*={0,2})$")
_EFFORTS = ("low", "medium", "high")
# Responses reasoning efforts Lux has no value for -> the Lux effort written (the value is kept)
_NEAREST_EFFORT = {"minimal": "low", "xhigh": "high", "max": "high"}
_MESSAGE_ROLES = ("user", "assistant", "system", "developer")


def _tag(block: msgspec.Struct) -> str:
    """The type tag of a Lux union variant (text, image, ...)."""
    return str(block.__struct_config__.tag)


def _plain(value: Any) -> Any:
    """A binding value as plain JSON (Structs to objects, unset members left out)."""
    return msgspec.to_builtins(value)


def _keep(cx: Cx, lux_path: str, members: dict[str, Any], source: str | None = None) -> None:
    """Kept members of the Responses object written at `lux_path` (read back by the reverse);
    `source`, the JSON path of the Responses object they are members of (each is recorded at
    ``source.<name>``, so that a diagnostic about it names it there)."""
    if members:
        cx.memo.setdefault("members", {}).setdefault(lux_path, {}).update(members)
        if source is not None:
            sources = cx.memo.setdefault("member_sources", {}).setdefault(lux_path, {})
            sources.update({name: member(source, name) for name in members})


def _media(cx: Cx, lux_path: str, entry: dict[str, Any]) -> None:
    cx.memo.setdefault("media", {})[lux_path] = entry


# ------------------------------------------------------------------------ Responses -> Lux: input


def input_string_flag(value: Any, path: str, cx: Cx) -> bool | UnsetType:
    """True when `input` is a string (written back as a string, not as a message item)."""
    return True if isinstance(value, str) else UNSET


def responses_instructions(value: Any, path: str, cx: Cx) -> list[LucentContent] | UnsetType:
    """`instructions` text as one Lux text block (null or absent: none)."""
    if isinstance(value, str):
        return [cx.built(path, LucentContentText(text=value), {"text": ""})]
    return UNSET


@reports("Degraded")
def responses_input(value: Any, path: str, cx: Cx) -> list[LucentConversationItem]:
    """`input` as the Lux conversation: a string is one user message; each item one Lux item."""
    if value is UNSET or value is None:
        return []
    if isinstance(value, str):
        block = cx.built(path, LucentContentText(text=value), {"text": ""})
        return [LucentConversationItemMessage(message=LucentMessage(role="user", content=[block]))]
    items: list[LucentConversationItem] = []
    for index, item in enumerate(value):
        items.append(_input_item(_plain(item), f"{path}[{index}]", f"$.conversation[{index}]", cx))
    return items


def _input_item(item: dict[str, Any], path: str, lux: str, cx: Cx) -> LucentConversationItem:
    kind = item.get("type", "message")
    if kind == "message" and item.get("role") in _MESSAGE_ROLES:
        return LucentConversationItemMessage(message=_message(item, path, f"{lux}.message", cx))
    if kind == "function_call":
        call = LucentToolUse(id=item["call_id"], name=item["name"], arguments=item["arguments"])
        _keep(cx, f"{lux}.tool_call", _rest(item, ("type", "call_id", "name", "arguments"), path, cx, ("caller", "namespace")), path)
        return LucentConversationItemToolCall(tool_call=cx.built(path, call, {"id": "call_id", "name": "name", "arguments": "arguments"}))
    if kind == "function_call_output":
        output = item["output"]
        if isinstance(output, str):
            content: list[LucentContent] = [cx.built(f"{path}.output", LucentContentText(text=output), {"text": ""})]
        else:
            content = _parts(output, f"{path}.output", f"{lux}.tool_result", "content", "user", cx)
            _keep(cx, f"{lux}.tool_result", {"output_list": True})
        result = LucentToolResult(tool_use_id=item["call_id"], content=content, is_error=False)
        _keep(cx, f"{lux}.tool_result", _rest(item, ("type", "call_id", "output"), path, cx, ("caller",)), path)
        return LucentConversationItemToolResult(tool_result=cx.built(path, result, {"tool_use_id": "call_id"}))
    if kind == "reasoning":
        return LucentConversationItemReasoning(reasoning=_reasoning_item(item, path, f"{lux}.reasoning", cx))
    # a built-in tool call, its output, an item reference, ...: carried verbatim
    cx.report(path, "Degraded", f"Lux has no {kind} item; carried verbatim as an agent_action (provider_payload)")
    ident = item.get("id") if isinstance(item.get("id"), str) else item.get("call_id")
    action = LucentAgentAction(
        kind=str(kind),
        id=ident if isinstance(ident, str) else "",
        call_id=item["call_id"] if isinstance(item.get("call_id"), str) else UNSET,
        name=item["name"] if isinstance(item.get("name"), str) else UNSET,
        provider_payload=item,
    )
    return LucentConversationItemAgentAction(agent_action=cx.built(path, action, {"provider_payload": ""}))


def _rest(item: dict[str, Any], read: tuple[str, ...], path: str, cx: Cx, lossy: tuple[str, ...] = ()) -> dict[str, Any]:
    """The members of `item` no Lux field holds (kept); those in `lossy` change what the item
    means to the provider and are reported Degraded."""
    rest = {k: v for k, v in item.items() if k not in read}
    for key in lossy:
        if key in rest and rest[key] is not None:
            cx.report(member(path, key), "Degraded", f"Lux has no {key} for this item; kept in extra.openai_responses.members")
    return rest


def _message(item: dict[str, Any], path: str, lux: str, cx: Cx) -> LucentMessage:
    content = item["content"]
    kept: dict[str, Any] = {k: v for k, v in item.items() if k not in ("role", "content")}
    if isinstance(content, str):
        blocks: list[LucentContent] = [cx.built(f"{path}.content", LucentContentText(text=content), {"text": ""})]
        kept["content_string"] = True
    else:
        blocks = _parts(content, f"{path}.content", lux, "content", item["role"], cx)
    _keep(cx, lux, kept, path)
    return cx.built(path, LucentMessage(role=item["role"], content=blocks), {"role": "role"})


def _parts(parts: list[Any], path: str, lux: str, field: str, role: str, cx: Cx, start: int = 0) -> list[LucentContent]:
    """Responses content parts as Lux blocks (the first at index `start` of the Lux list); a part
    Lux has no block for is kept verbatim at its index (in members `<field>_parts` of `lux`)."""
    blocks: list[LucentContent] = []
    verbatim: list[dict[str, Any]] = []
    for index, raw in enumerate(parts):
        part = _plain(raw)
        where = f"{path}[{index}]"
        at = f"{lux}.{field}[{start + len(blocks)}]"
        kind = part.get("type")
        if kind in ("input_text", "output_text"):
            text = LucentContentText(text=part["text"])
            text.annotations = _lux_annotations(part.get("annotations"), part["text"], f"{where}.annotations", cx)
            blocks.append(cx.built(where, text, {"text": "text", "annotations": "annotations"}))
            rest = {k: v for k, v in part.items() if k != "text"}
            if kind == ("output_text" if role != "assistant" else "input_text"):
                rest["type"] = kind
            else:
                rest.pop("type")
            if kind == "output_text":  # [] is what the way back writes for either: nothing to keep
                for default in OUTPUT_TEXT_DEFAULTS:
                    if rest.get(default) == []:
                        del rest[default]
            if rest.get("logprobs"):
                cx.report(member(where, "logprobs"), "Degraded", "Lux text has no log probabilities; kept in the openai_responses side-car members")
            if "prompt_cache_breakpoint" in rest:
                cx.report(member(where, "prompt_cache_breakpoint"), "Degraded", "Lux has no cache breakpoints; kept in the openai_responses side-car members")
            _keep(cx, at, rest, where)
        elif kind == "refusal":
            blocks.append(cx.built(where, LucentContentRefusal(refusal=part["refusal"]), {"refusal": "refusal"}))
        elif kind == "input_image" and (isinstance(part.get("image_url"), str) or isinstance(part.get("file_id"), str)):
            blocks.append(cx.built(where, LucentContentImage(image=_image(part, where, at, cx))))
        else:
            cx.report(where, "Degraded", f"Lux has no block for a {kind} part; kept verbatim in extra.openai_responses.members")
            verbatim.append(cx.built(where, {"index": index, "value": part}, {"value": ""}))
    if verbatim:
        _keep(cx, lux, {f"{field}_parts": verbatim})
    return blocks


def _lux_annotations(annotations: Any, text: str, path: str, cx: Cx) -> list[LucentAnnotation] | UnsetType:
    """url_citation as Lux url annotations (ref: url, start / end, text: the cited span) and
    file_citation as file_citation (ref: file_id); the Responses annotations themselves are kept
    verbatim in the side-car members (title, filename), and those Lux has no kind for
    (container_file_citation, file_path) are reported Degraded."""
    if not isinstance(annotations, list) or not annotations:
        return UNSET
    found: list[LucentAnnotation] = []
    for index, raw in enumerate(annotations):
        note = _plain(raw)
        members = lux_annotation(note, text)
        if members is not None:
            found.append(LucentAnnotation(**members))
            lost = annotation_lost(note)
            if lost is not None:  # as the stream reader says it
                cx.report(f"{path}[{index}].{lost}", "Degraded", f"{ANNOTATION_LOST}; kept in the openai_responses side-car members")
        else:
            cx.report(f"{path}[{index}]", "Degraded", f"Lux has no {note.get('type')} annotation; kept in the openai_responses side-car members")
    return found or UNSET


def _responses_annotations(annotations: list[LucentAnnotation], path: str, cx: Cx) -> list[dict[str, Any]]:
    """Lux url / web_search_citation annotations with ref, start and end as url_citation (title
    "", Degraded); others are Unsupported."""
    written = []
    for index, note in enumerate(annotations):
        where = f"{path}[{index}]"
        if note.kind in ("url", "web_search_citation") and note.ref is not UNSET and note.start is not UNSET and note.end is not UNSET:
            cx.report(where, "Degraded", "a Responses url_citation has a title; Lux has none, written as \"\"")
            written.append({"type": "url_citation", "url": note.ref, "start_index": note.start, "end_index": note.end, "title": ""})
        else:
            cx.report(where, "Unsupported", "Responses citations are url_citation {url, start_index, end_index} or name a file the Lux annotation does not give; dropped")
    return written


def _image(part: dict[str, Any], path: str, at: str, cx: Cx) -> LucentMultimedia:
    url = part.get("image_url")
    rest = {k: v for k, v in part.items() if k not in ("type", "image_url", "file_id")}
    if rest.get("detail") == "auto":  # what the way back writes (lux_parts): nothing to keep
        del rest["detail"]
    if isinstance(url, str):
        found = _DATA_URL.match(url)
        if found:
            media = LucentMultimedia(media_type=found.group(1), source="inline")
            _media(cx, f"{at}.image", {"data": found.group(2)})
        else:
            media = LucentMultimedia(media_type=_url_media_type(url), source="url")
            _media(cx, f"{at}.image", {"url": url})
        if "file_id" in part:
            rest["file_id"] = part["file_id"]
    else:
        media = LucentMultimedia(media_type="application/octet-stream", source="file_uri")
        _media(cx, f"{at}.image", {"file_uri": part["file_id"]})
        if "image_url" in part:
            rest["image_url"] = part["image_url"]
    _keep(cx, at, rest, path)
    return media


def _url_media_type(url: str) -> str:
    """The image media type a URL's file name names, else application/octet-stream."""
    return url_image_media_type(url) or "application/octet-stream"


def _reasoning_item(item: dict[str, Any], path: str, lux: str, cx: Cx) -> LucentThinking:
    content = item.get("content")
    texts = [p.get("text", "") for p in content if isinstance(p, dict)] if isinstance(content, list) else []
    summary: list[LucentContent] = [
        cx.built(f"{path}.summary[{n}]", LucentContentText(text=s["text"]), {"text": "text"}) for n, s in enumerate(item.get("summary", []))
    ]
    signature = item.get("encrypted_content")
    thinking = LucentThinking(
        text="".join(texts),
        signature=signature if isinstance(signature, str) else UNSET,
        redacted=False,
        # an empty summary (Responses requires the member) is no summary: left out, as a Lux
        # stream leaves it out (it has no summary delta); the way back writes summary: [] again
        summary=summary if summary else UNSET,
    )
    # the type marks a reasoning item that came from Responses (its id is optional)
    kept = {k: v for k, v in item.items() if k not in ("summary", "encrypted_content", "content")}
    if signature is None and "encrypted_content" in item:
        kept["encrypted_content"] = None
    if "content" in item and (not isinstance(content, list) or len(content) != 1 or _plain(content[0]) != {"type": "reasoning_text", "text": texts[0]}):
        kept["content"] = content
    _keep(cx, lux, kept, path)
    return cx.built(path, thinking, {"signature": "encrypted_content"})


def responses_members(conversation: Any, path: str, cx: Cx) -> dict[str, Any] | UnsetType:
    """The item members kept while the conversation (or the output) was built, by Lux path; the
    source path of each is recorded (provenance)."""
    members = cast("dict[str, Any] | UnsetType", cx.memo.pop("members", UNSET))
    sources: dict[str, dict[str, str]] = cx.memo.pop("member_sources", {})
    if isinstance(members, dict):
        for lux_path, kept in members.items():
            named = {name: source for name, source in sources.get(lux_path, {}).items() if name in kept}
            if named:
                cx.sourced(kept, named)
    return members


def responses_media(conversation: Any, path: str, cx: Cx) -> dict[str, Any] | UnsetType:
    """extra.media: the image data / url / file id of each Lux image, by Lux path."""
    return cast("dict[str, Any]", cx.memo.pop("media", UNSET))


# -------------------------------------------------------------- Responses -> Lux: request options


def _function_tool(tool: dict[str, Any]) -> LucentTool | None:
    """A function tool Lux holds exactly: {type, name, description?, parameters, strict: bool}."""
    if tool.get("type") != "function" or not set(tool) <= {"type", "name", "description", "parameters", "strict"}:
        return None
    if not isinstance(tool.get("strict"), bool) or "parameters" not in tool:
        return None
    if "description" in tool and not isinstance(tool["description"], str):
        return None
    return LucentTool(name=tool["name"], description=tool.get("description", UNSET), parameters=tool["parameters"], strict=tool["strict"])


def responses_function_tools(tools: list[Any] | UnsetType, path: str, cx: Cx) -> list[LucentTool] | UnsetType:
    """The function tools as LucentTool (others: responses_verbatim_tools)."""
    if tools is UNSET:
        return UNSET
    found = []
    for index, tool in enumerate(tools):
        lux = _function_tool(plain_members(tool))  # its parameters shared, not copied
        if lux is not None:
            found.append(cx.built(f"{path}[{index}]", lux, {"name": "name", "description": "description", "parameters": "parameters", "strict": "strict"}))
    return found


def responses_verbatim_tools(tools: list[Any] | UnsetType, path: str, cx: Cx, status: Status, reason: str) -> list[dict[str, Any]] | UnsetType:
    """The tools that are not a plain function tool, as [{index, value}], each reported."""
    if tools is UNSET:
        return UNSET
    kept = []
    for index, tool in enumerate(tools):
        plain = plain_members(tool)
        if _function_tool(plain) is None:
            cx.report(f"{path}[{index}]", status, reason)
            kept.append(cx.built(f"{path}[{index}]", {"index": index, "value": plain}, {"value": ""}))
    return kept or UNSET


def responses_tool_choice(choice: Any, path: str, cx: Cx) -> LucentToolChoice | UnsetType:
    """auto / none / required, and {type: function, name} as specific_tool."""
    plain = _plain(choice) if choice is not UNSET else UNSET
    if plain in ("auto", "none", "required"):
        return cast(LucentToolChoice, plain)
    if isinstance(plain, dict) and set(plain) == {"type", "name"} and plain["type"] == "function":
        return cx.built(path, LucentToolChoiceSpecificTool(name=plain["name"]), {"name": "name"})
    return UNSET


def responses_verbatim_tool_choice(choice: Any, path: str, cx: Cx, status: Status, reason: str) -> Any:
    """A tool_choice Lux cannot state (allowed_tools, a built-in or custom tool), reported."""
    if choice is UNSET or responses_tool_choice(choice, path, cx) is not UNSET:
        return UNSET
    cx.report(path, status, reason)
    return _plain(choice)


def responses_structured_output(text: Any, path: str, cx: Cx) -> LucentStructuredOutput | UnsetType:
    """text.format: text / json_object / json_schema {schema} (name, strict, description kept)."""
    fmt = _plain(text).get("format") if text is not UNSET else None
    if not isinstance(fmt, dict):
        return UNSET
    if fmt == {"type": "text"}:
        return "text"
    if fmt == {"type": "json_object"}:
        return "json_object"
    if fmt.get("type") == "json_schema":
        return cx.built(f"{path}.format", LucentStructuredOutputJsonSchema(schema=fmt["schema"]), {"schema": "schema"})
    return UNSET


@reports("Degraded")
def responses_text_rest(text: msgspec.Struct | UnsetType, path: str, cx: Cx) -> dict[str, Any] | UnsetType:
    """What text holds beside the Lux structured output: verbosity (reported), the json_schema
    name / description / strict (Lux keeps only the schema)."""
    if text is UNSET:
        return UNSET
    plain = _plain(text)
    rest = {k: v for k, v in plain.items() if k != "format"}
    if "verbosity" in rest:
        cx.report(f"{path}.verbosity", "Degraded", "Lux has no verbosity; kept in extra.openai_responses.text")
    fmt = plain.get("format")
    if isinstance(fmt, dict) and fmt.get("type") == "json_schema":
        rest["format"] = {k: v for k, v in fmt.items() if k not in ("type", "schema")}
    elif "format" in plain and fmt not in ({"type": "text"}, {"type": "json_object"}):
        rest["format"] = fmt
    elif "format" not in plain:
        rest["no_format"] = True
    return rest or UNSET


@reports("Degraded")
def responses_reasoning(reasoning: Any, path: str, cx: Cx) -> LucentReasoningConfig | UnsetType:
    """reasoning: effort none -> {enabled: false}; low / medium / high as they are; minimal ->
    low, xhigh / max -> high (reported; the effort is kept); summary as it is."""
    if reasoning is UNSET or reasoning is None:
        return UNSET
    plain = _plain(reasoning)
    effort = plain.get("effort")
    summary = plain.get("summary")
    config = LucentReasoningConfig(enabled=effort != "none")
    if effort in _EFFORTS:
        config.effort = effort
    elif effort in _NEAREST_EFFORT:
        config.effort = cast(Any, _NEAREST_EFFORT[effort])
        cx.report(f"{path}.effort", "Degraded", f"Lux has no effort {effort}; written as {_NEAREST_EFFORT[effort]} (kept in extra.openai_responses.reasoning)")
    if summary in ("auto", "concise", "detailed"):
        config.summary = summary
    for key in ("mode", "context", "generate_summary"):
        if plain.get(key) is not None:
            cx.report(f"{path}.{key}", "Degraded", f"Lux has no reasoning {key}; kept in extra.openai_responses.reasoning")
    return cx.built(path, config)


def responses_reasoning_rest(reasoning: msgspec.Struct | None | UnsetType, path: str, cx: Cx) -> dict[str, Any] | UnsetType:
    """The reasoning members the Lux configuration does not give back (null included)."""
    if reasoning is UNSET:
        return UNSET
    plain = _plain(reasoning)
    if plain is None:
        return {"null": True}
    rest = {k: v for k, v in plain.items() if k not in ("effort", "summary")}
    if "effort" in plain and plain["effort"] not in (*_EFFORTS, "none"):
        rest["effort"] = plain["effort"]
    if "summary" in plain and plain["summary"] not in ("auto", "concise", "detailed"):
        rest["summary"] = plain["summary"]
    return rest or UNSET


def stream_or_false(stream: Any, path: str, cx: Cx) -> bool:
    """stream (absent or null is false, the Responses default)."""
    return stream is True


# ------------------------------------------------------------------------ Lux -> Responses: input


class _Members:
    """The kept members of a Lux source (extra.openai_responses.members), read once each."""

    def __init__(self, cx: Cx) -> None:
        self.cx = cx

    def get(self, path: str) -> dict[str, Any]:
        entry = self.cx._space(MEMBERS).get(path)
        if not isinstance(entry, dict):
            return {}
        return {key: self.cx.kept(MEMBERS, path, key, "any") for key in entry}


def _put_back(items: list[Any], verbatim: Any, where: str, cx: Cx) -> list[Any]:
    """`items` with the kept [{index, value}] entries of `verbatim` (at JSON path `where`) put
    back at their index; an entry of another shape is reported Invalid and left out."""
    if verbatim is None or verbatim is UNSET:
        return items
    if not isinstance(verbatim, list):
        cx.report(where, "Invalid", f"{shown(verbatim)}, not a list of {{index, value}} entries; ignored")
        return items
    valid = []
    for n, entry in enumerate(verbatim):
        if not isinstance(entry, dict) or set(entry) != {"index", "value"} or not isinstance(entry["index"], int) or isinstance(entry["index"], bool):
            cx.report(f"{where}[{n}]", "Invalid", "not an {index, value} entry; ignored")
            continue
        valid.append(entry)
    for entry in sorted(valid, key=lambda e: cast(int, e["index"])):
        items.insert(min(max(entry["index"], 0), len(items)), entry["value"])
    return items


def _flag(kept: dict[str, Any], key: str, owner: str, cx: Cx) -> bool:
    """Pop the kept marker `key` (true, or absent) of the Lux object at `owner`; a kept value
    that is not a boolean is reported Invalid."""
    value = kept.pop(key, False)
    if not isinstance(value, bool):
        cx.report(member(_members_path(owner, cx), key), "Invalid", f"{shown(value)}, not a boolean; ignored")
        return False
    return value


def _members_path(owner: str, cx: Cx) -> str:
    """The JSON path of the members the side-car keeps for the Lux object at `owner`."""
    return member(member(cx.sidecar_path, "openai_responses") + ".members", owner)


def _media_of(cx: Cx, path: str) -> dict[str, Any]:
    entry = cx._space("media").get(path)
    if not isinstance(entry, dict):
        return {}
    return {key: cx.kept("media", path, key, "string") for key in entry if key in ("data", "url", "file_uri")}


@reports("Degraded", "Unsupported")
def lux_instructions(instructions: list[LucentContent] | UnsetType, path: str, cx: Cx) -> str | UnsetType:
    """The text blocks of `instructions` joined with a newline (Degraded when more than one);
    other blocks are reported Unsupported."""
    if instructions is UNSET:
        return UNSET
    texts = text_only(instructions, path, cx, "Responses instructions are plain text", "Responses instructions are text only; dropped")
    if len(texts) > 1:
        cx.report(path, "Degraded", "Responses instructions are one text; the blocks are joined with a newline")
    return "\n".join(texts) if texts else UNSET


@reports("Degraded", "Unsupported", "Invalid")
def lux_input(conversation: list[LucentConversationItem], string: Any, absent: Any, path: str, cx: Cx) -> Any:
    """The Lux conversation as Responses input items (plain JSON); a single user text message is
    the input string when extra.openai_responses.input_string says so, and an empty one no input
    when extra.openai_responses.input_absent does. Then every extra.openai_responses.members
    entry no item read is reported (the only reader of that side-car)."""
    found = _lux_input(conversation, string, absent, path, cx)
    cx.report_unread_entries(MEMBERS, member(cx.sidecar_path, "openai_responses") + ".members")
    return found


def _lux_input(conversation: list[LucentConversationItem], string: Any, absent: Any, path: str, cx: Cx) -> Any:
    members = _Members(cx)
    if absent is True and not conversation:
        return UNSET
    if string is True and len(conversation) == 1:
        item = conversation[0]
        if isinstance(item, LucentConversationItemMessage) and item.message.role == "user" and len(item.message.content) == 1:
            block = item.message.content[0]
            if isinstance(block, LucentContentText) and block.annotations is UNSET:
                return block.text
    items: list[Any] = []
    for index, item in enumerate(conversation):
        where = f"{path}[{index}]"
        if isinstance(item, LucentConversationItemMessage):
            _lux_message(item.message, f"{where}.message", items, members, cx)
        elif isinstance(item, LucentConversationItemToolCall):
            items.append(cx.built(f"{where}.tool_call", _function_call(item.tool_call, f"{where}.tool_call", members, cx)))
        elif isinstance(item, LucentConversationItemToolResult):
            items.append(cx.built(f"{where}.tool_result", _function_call_output(item.tool_result, f"{where}.tool_result", members, cx)))
        elif isinstance(item, LucentConversationItemReasoning):
            reasoning = _lux_reasoning(item.reasoning, f"{where}.reasoning", members, cx)
            if reasoning is not None:
                items.append(cx.built(f"{where}.reasoning", reasoning))
        else:
            action = item.agent_action
            payload = action.provider_payload
            if isinstance(payload, dict) and payload.get("type") == action.kind and _accepted(lambda: dispatch_InputItem(payload, "$")):
                items.append(cx.built(f"{where}.agent_action", payload))  # recorded: its kept members come back to it
            else:
                cx.report(f"{where}.agent_action", "Unsupported", f"a {action.kind} agent action that is not a Responses input item; dropped")
    return items


def _accepted(check: Any) -> bool:
    """Whether the Responses bindings accept a value (`check` decodes it)."""
    try:
        check()
    except (RuleViolation, msgspec.ValidationError, TypeError, ValueError):
        return False
    return True


def _call_id(ident: str, path: str, cx: Cx) -> str:
    """A call id Responses accepts (function_call_output call_id: 1 to 64 characters); another is
    replaced by lucent_call_<n>, the same for a call and its outputs (Degraded)."""
    if 1 <= len(ident) <= 64:
        return ident
    ids: dict[str, str] = cx.memo.setdefault("call_ids", {})
    if ident not in ids:
        ids[ident] = f"lucent_call_{len(ids) + 1}"
    cx.report(path, "Degraded", f"a Responses call_id has 1 to 64 characters; written as {ids[ident]}")
    return ids[ident]


def _function_call(call: LucentToolUse, path: str, members: _Members, cx: Cx) -> dict[str, Any]:
    kept = members.get(path)
    return {"type": "function_call", "call_id": _call_id(call.id, f"{path}.id", cx), "name": call.name, "arguments": call.arguments, **kept}


def _function_call_output(result: LucentToolResult, path: str, members: _Members, cx: Cx) -> dict[str, Any]:
    kept = members.get(path)
    if result.is_error:
        cx.report(f"{path}.is_error", "Degraded", "Responses function_call_output has no error flag; the error text is sent as a normal output")
    as_list = _flag(kept, "output_list", path, cx)
    verbatim = kept.pop("content_parts", None)
    if as_list or verbatim is not None:
        output: Any = _lux_parts(result.content, f"{path}.content", "user", verbatim, members, cx, verbatim_at=member(_members_path(path, cx), "content_parts"))
    else:
        texts = []
        for index, block in enumerate(result.content):
            if isinstance(block, LucentContentText):
                texts.append(block.text)
            else:
                cx.report(f"{path}.content[{index}]", "Unsupported", "a text function_call_output holds only text; dropped")
        if len(texts) > 1:
            cx.report(f"{path}.content", "Degraded", "the text blocks are joined with a newline into the output text")
        output = "\n".join(texts)
    return {"type": "function_call_output", "call_id": _call_id(result.tool_use_id, f"{path}.tool_use_id", cx), "output": output, **kept}


def _lux_reasoning(thinking: LucentThinking, path: str, members: _Members, cx: Cx) -> dict[str, Any] | None:
    kept = members.get(path)
    if kept.get("type") != "reasoning":
        cx.report(path, "Unsupported", "a reasoning item that did not come from Responses (no kept item): Responses cannot replay it; dropped")
        return None
    if thinking.redacted:
        cx.report(f"{path}.redacted", "Degraded", "Responses reasoning has no redacted flag")
    item = _reasoning_out(thinking, {}, path, cx)
    if "content" in kept:
        item["content"] = kept.pop("content")
    item.update(kept)
    return item


def _lux_message(message: LucentMessage, path: str, items: list[Any], members: _Members, cx: Cx) -> None:
    """One Lux message as a Responses message item, its tool results as function_call_output
    items before it and its tool calls as function_call items after it."""
    kept = members.get(path)
    role = message.role
    if role in ("model", "tool"):
        cx.report(f"{path}.role", "Degraded", f"Responses has no {role} message role; written as {'assistant' if role == 'model' else 'user'}")
        role = "assistant" if role == "model" else "user"
    before: list[Any] = []
    after: list[Any] = []
    blocks: list[tuple[int, LucentContent]] = []
    content = message.content
    for index, block in enumerate(content):
        where = f"{path}.content[{index}]"
        if isinstance(block, LucentContentToolUse):
            detail = "written as a function_call item after its message (it comes back as an item)"
            if all(isinstance(b, LucentContentToolUse) for b in content[index + 1:]):  # in place (lucent._forms)
                restructured(cx, where, "tool_call_place", detail)
            else:
                cx.report(where, "Degraded", detail + "; it is moved after the blocks that follow it")
            after.append(cx.built(f"{where}.tool_use", _function_call(block.tool_use, f"{where}.tool_use", members, cx)))
        elif isinstance(block, LucentContentToolResult):
            detail = "written as a function_call_output item before its message (it comes back as an item)"
            if all(isinstance(b, LucentContentToolResult) for b in content[:index]):  # in place (lucent._forms)
                restructured(cx, where, "tool_result_place", detail)
            else:
                cx.report(where, "Degraded", detail + "; it is moved ahead of the blocks before it")
            before.append(cx.built(f"{where}.tool_result", _function_call_output(block.tool_result, f"{where}.tool_result", members, cx)))
        elif isinstance(block, LucentContentThinking):
            cx.report(where, "Unsupported", "Responses messages hold no reasoning; dropped")
        else:
            blocks.append((index, block))
    items.extend(before)
    verbatim = kept.pop("content_parts", None)
    string = _flag(kept, "content_string", path, cx)
    if blocks or verbatim or not (before or after):
        if string and verbatim is None and len(blocks) == 1 and isinstance(blocks[0][1], LucentContentText) and blocks[0][1].annotations is UNSET:
            items.append(cx.built(path, {"role": role, "content": blocks[0][1].text, **kept}))
        else:
            content = _lux_parts([b for _i, b in blocks], f"{path}.content", role, verbatim, members, cx, [i for i, _b in blocks], member(_members_path(path, cx), "content_parts"))
            if role == "assistant" and not kept:
                # an assistant turn from another format: the input form of a message, its text a string
                items.append(cx.built(path, _easy_assistant(content, path, cx)))
            else:
                items.append(cx.built(path, {"role": role, "content": content, **kept}))
    else:
        # only tool calls and results: each is an item of its own, and the message is not written
        restructured(cx, f"{path}.role", "holder_role", f"the {message.role} message holds only tool calls and results, written as items of their own; its role is not kept")
        for key in kept:
            cx.report(member(_members_path(path, cx), key), "Unsupported", "the message is not written (only its tool calls and results are), so this kept member has no place")
    items.extend(after)


def _easy_assistant(content: list[Any], path: str, cx: Cx) -> dict[str, Any]:
    texts = []
    for index, part in enumerate(content):
        if part.get("type") == "output_text":
            texts.append(part["text"])
        elif part.get("type") == "refusal":
            texts.append(part["refusal"])
            cx.report(f"{path}.content", "Degraded", "a refusal in an assistant turn without a Responses id is written as its text")
        else:
            cx.report(f"{path}.content", "Unsupported", f"an assistant input message holds only text; a {part.get('type')} part is dropped")
    if len(texts) > 1:
        cx.report(f"{path}.content", "Degraded", "the text blocks of an assistant turn are joined with a newline")
    if not texts:
        cx.report(path, "Degraded", 'an assistant turn with neither text nor tool calls; written with content ""')
    return {"role": "assistant", "content": "\n".join(texts)}


def _lux_parts(
    blocks: list[LucentContent], path: str, role: str, verbatim: Any, members: _Members, cx: Cx, indexes: list[int] | None = None,
    verbatim_at: str = "$",
) -> list[Any]:
    """Lux blocks as Responses content parts (output_text / refusal for the assistant, input_text
    / input_image otherwise); parts kept verbatim are put back at their index."""
    parts: list[Any] = []
    for n, block in enumerate(blocks):
        where = f"{path}[{indexes[n] if indexes else n}]"
        kept = members.get(where)
        if isinstance(block, LucentContentText):
            kind = kept.pop("type", "output_text" if role == "assistant" else "input_text")
            if kind not in ("output_text", "input_text"):
                cx.report(member(_members_path(where, cx), "type"), "Invalid", f"{shown(kind)}, not output_text or input_text; ignored")
                kind = "output_text" if role == "assistant" else "input_text"
            part: dict[str, Any] = {"type": kind, "text": block.text}
            if block.annotations is not UNSET and "annotations" not in kept:
                if kind == "output_text":
                    part["annotations"] = _responses_annotations(block.annotations, f"{where}.annotations", cx)
                else:
                    cx.report(f"{where}.annotations", "Unsupported", f"Responses {kind} has no annotations")
            if kind == "output_text":
                for default in OUTPUT_TEXT_DEFAULTS:
                    part.setdefault(default, [])
            parts.append(cx.built(where, {**part, **kept}))
        elif isinstance(block, LucentContentRefusal):
            if role == "assistant":
                parts.append(cx.built(where, {"type": "refusal", "refusal": block.refusal, **kept}))
            else:
                cx.report(where, "Degraded", f"a {role} message has no refusal part; written as text")
                parts.append(cx.built(where, {"type": "input_text", "text": block.refusal, **kept}))
        elif isinstance(block, LucentContentImage) and role != "assistant":
            image = _lux_image(block.image, f"{where}.image", cx)
            if image is None:
                continue
            parts.append(cx.built(where, {"type": "input_image", **image, **({"detail": "auto"} | kept)}))
        else:
            cx.report(where, "Unsupported", f"Responses {role} messages have no {_tag(block)} part; dropped")
    return _put_back(parts, verbatim, verbatim_at, cx)


def _lux_image(image: LucentMultimedia, path: str, cx: Cx) -> dict[str, Any] | None:
    media = _media_of(cx, path)
    if image.source == "inline":
        if "data" not in media:
            cx.report(path, "Invalid", "inline image without its bytes (extra.media has no data for it); dropped")
            return None
        return {"image_url": f"data:{image.media_type};base64,{media['data']}"}
    if image.source == "url":
        if "url" not in media:
            cx.report(path, "Invalid", "url image without its url (extra.media has no url for it); dropped")
            return None
        return {"image_url": media["url"]}
    if "file_uri" not in media:
        cx.report(path, "Invalid", "file_uri image without its file id (extra.media has no file_uri for it); dropped")
        return None
    if "://" in media["file_uri"]:  # gs://..., a Gemini Files API URI: another provider's file
        cx.report(path, "Unsupported", "a Responses input_image file_id names an OpenAI file; another provider's file URI is dropped")
        return None
    return {"file_id": media["file_uri"]}


# ------------------------------------------------------------- Lux -> Responses: request options


@reports("Invalid")
def lux_tools(tools: list[LucentTool] | UnsetType, verbatim: Any, path: str, cx: Cx) -> Any:
    """Lux tools as flat function tools ({type, name, description?, parameters, strict}); the
    tools kept verbatim in extra.openai_responses.tools are put back at their index."""
    written: list[Any] = []
    for index, tool in enumerate(tools if tools is not UNSET else []):
        parameters = tool.parameters
        if parameters is not None and not isinstance(parameters, dict):
            cx.report(f"{path}[{index}].parameters", "Invalid", "Responses function parameters are a JSON object or null; written as null")
            parameters = None
        fn: dict[str, Any] = {"type": "function", "name": tool.name}
        if tool.description is not UNSET:
            fn["description"] = tool.description
        fn["parameters"] = parameters
        fn["strict"] = tool.strict if tool.strict is not UNSET else False
        written.append(cx.built(f"{path}[{index}]", fn))
    _put_back(written, verbatim, f"{cx.carried_path}.tools", cx)
    return written if written or tools is not UNSET or verbatim is not UNSET else UNSET


def lux_tool_choice(choice: LucentToolChoice | UnsetType, verbatim: Any, path: str, cx: Cx) -> Any:
    """auto / none / required; specific_tool as {type: function, name}; else the kept value."""
    if isinstance(choice, LucentToolChoiceSpecificTool):
        return {"type": "function", "name": choice.name}
    if isinstance(choice, str):
        return choice
    return verbatim


_CHAT_SCHEMA_MEMBERS = ("name", "description", "strict")


def _chat_schema_members(output: LucentStructuredOutput | UnsetType, chat: Any, cx: Cx) -> dict[str, Any]:
    """The name / description / strict Chat kept in extra.openai_chat.json_schema for the Lux
    json_schema output (a member of the wrong type is reported Invalid; with no json_schema
    output to go to, they are Unsupported)."""
    where = f"{_CHAT}.json_schema"
    if chat is UNSET:
        return {}
    if not isinstance(chat, dict):
        cx.report(where, "Invalid", f"{shown(chat)}, not an object; ignored")
        return {}
    if not isinstance(output, LucentStructuredOutputJsonSchema):
        cx.report(where, "Unsupported", "not written: the Lux structured output is not a json_schema output these members belong to")
        return {}
    found: dict[str, Any] = {}
    for key, value in chat.items():
        fits = isinstance(value, str) if key in ("name", "description") else value is None or isinstance(value, bool)
        if key not in _CHAT_SCHEMA_MEMBERS:
            cx.report(member(where, key), "Unsupported", "not a json_schema member Responses has (name, description, strict); ignored")
        elif not fits:
            cx.report(member(where, key), "Invalid", f"{shown(value)}, not a {'string' if key != 'strict' else 'boolean'}; ignored")
        else:
            found[key] = value
    return found


@reports("Degraded", "Unsupported", "Invalid")
def lux_text(output: LucentStructuredOutput | UnsetType, kept: Any, chat_schema: Any, chat_verbosity: Any, path: str, cx: Cx) -> Any:
    """options.structured_output as text.format, with the kept verbosity and json_schema name /
    strict / description, else the ones Chat kept (extra.openai_chat.json_schema and
    verbosity: the same members in Chat); a json_schema with no name from either is named
    "response" (Degraded)."""
    text: dict[str, Any] = dict(kept) if isinstance(kept, dict) else {}
    chat = _chat_schema_members(output, chat_schema, cx)
    if chat_verbosity is not UNSET:
        text["verbosity"] = own_or_sibling(text.get("verbosity", UNSET), chat_verbosity, f"{cx.carried_path}.text.verbosity", f"{_CHAT}.verbosity", cx)
    rest = text.pop("format", UNSET)
    if rest is not UNSET and not isinstance(rest, dict):
        cx.report(f"{cx.carried_path}.text.format", "Invalid", f"{shown(rest)}, not a text.format object; ignored")
        rest = UNSET
    rest = None if rest is UNSET else rest
    if isinstance(rest, dict) and "name" in rest and not isinstance(rest["name"], str):
        cx.report(f"{cx.carried_path}.text.format.name", "Invalid", f"{shown(rest['name'])}, not a string; ignored")
        rest = {k: v for k, v in rest.items() if k != "name"}
    no_format = text.pop("no_format", False)
    if not isinstance(no_format, bool):
        cx.report(f"{cx.carried_path}.text.no_format", "Invalid", f"{shown(no_format)}, not a boolean; ignored")
        no_format = False
    if output == "text":
        text["format"] = {"type": "text"}
    elif output == "json_object":
        text["format"] = {"type": "json_object"}
    elif isinstance(output, LucentStructuredOutputJsonSchema) and not isinstance(output.schema, dict):
        cx.report(f"{path}.schema", "Unsupported", "a Responses json_schema schema is a JSON object; the structured output is left out")
    elif isinstance(output, LucentStructuredOutputJsonSchema):
        members = dict(rest) if isinstance(rest, dict) else {}
        if chat and not members:
            members = chat  # a Lux request from Chat: its json_schema members
        elif chat and {k: v for k, v in members.items() if k in _CHAT_SCHEMA_MEMBERS} != chat:
            cx.report(f"{_CHAT}.json_schema", "Unsupported", f"not written: {cx.carried_path.removeprefix('$.')}.text.format is set and wins over it")
        if not isinstance(members.get("name"), str):
            cx.report(path, "Degraded", "Responses json_schema needs a name; written as \"response\"")
            members["name"] = "response"
        text["format"] = cx.built(path, {"type": "json_schema", "name": members.pop("name"), "schema": output.schema, **members})  # recorded: its kept members come back to it
    elif rest is not None and not no_format:
        text["format"] = rest
    return text or UNSET


@reports("Unsupported", "Invalid")
def lux_reasoning(config: LucentReasoningConfig | UnsetType, kept: Any, path: str, cx: Cx) -> Any:
    """{enabled: false} -> effort none; effort (or the kept Responses effort) and summary."""
    rest = dict(kept) if isinstance(kept, dict) else {}
    null = rest.pop("null", False)
    if not isinstance(null, bool):
        cx.report(f"{cx.carried_path}.reasoning.null", "Invalid", f"{shown(null)}, not a boolean; ignored")
        null = False
    if "effort" in rest and not isinstance(rest["effort"], str):
        cx.report(f"{cx.carried_path}.reasoning.effort", "Invalid", f"{shown(rest.pop('effort'))}, not a string; ignored")
    if null and config is UNSET:
        return None
    if config is UNSET:
        if rest:
            cx.report(f"{cx.carried_path}.reasoning", "Unsupported", "not written: the Lux request states no reasoning for these kept members to join")
        return UNSET
    reasoning: dict[str, Any] = {}
    if not config.enabled:
        reasoning["effort"] = "none"
        if config.effort is not UNSET:
            cx.report(f"{path}.effort", "Unsupported", f"Responses has no effort for disabled reasoning (effort none); {config.effort} left out")
    elif config.effort is not UNSET:
        effort = rest.get("effort")
        reasoning["effort"] = effort if isinstance(effort, str) and _NEAREST_EFFORT.get(effort) == config.effort else config.effort
    rest.pop("effort", None)
    if config.summary is not UNSET:
        reasoning["summary"] = config.summary
    if config.budget_tokens is not UNSET:
        cx.report(f"{path}.budget_tokens", "Unsupported", "Responses reasoning has no token budget (only an effort)")
    reasoning.update(rest)
    return cx.built(path, reasoning)  # recorded: its kept members come back to it


def lux_stream(stream: bool, absent: Any, path: str, cx: Cx) -> bool | UnsetType:
    """options.stream; false is left out when the source had no stream member."""
    return UNSET if stream is False and absent is True else stream


# The parameters Chat Completions and Responses both define: a Lux request from Chat keeps them in
# extra.openai_chat under their Chat names (mappings/openai_chat_lux_request.toml, decision 9), and
# Responses reads them there when its own side-car has none (lux_openai_responses_request.toml,
# decision 9).

_CHAT = "$.extra.openai_chat"


@reports("Unsupported", "Invalid")
def responses_store(own: Any, chat: Any, path: str, cx: Cx) -> Any:
    """store: the kept Responses value; else Chat's store: true as true, false or null as false
    (Chat stores a completion only when asked, Responses stores a response unless told not to).

    With neither, in a conversion composed from a format whose API keeps no conversation
    (``Format.gateway.keeps_conversation`` false: Chat, Anthropic, Gemini, ...), ``false``: such
    a request, which asked for nothing to be stored, must not be stored by Responses' default.
    """
    if chat is not UNSET and chat is not None and not isinstance(chat, bool):
        cx.report(f"{_CHAT}.store", "Invalid", f"{shown(chat)}, not a boolean; ignored")
        chat = UNSET
    if own is UNSET and chat is UNSET and _stores_nothing(COMPOSED_FROM.get()):
        return False
    return own_or_sibling(own, chat, path, f"{_CHAT}.store", cx, UNSET if chat is UNSET else bool(chat))


def _stores_nothing(source: str | None) -> bool:
    """Whether a request of `source` (a format name; None: not a composed conversion) means by
    leaving ``store`` out that nothing is stored."""
    if source is None or source == "openai-responses":
        return False
    gateway = FORMATS[source].gateway
    return gateway is None or not gateway.keeps_conversation


@reports("Unsupported")
def responses_prompt_cache_key(own: Any, chat: Any, path: str, cx: Cx) -> Any:
    """prompt_cache_key: the kept Responses value, else Chat's (the same string, or null)."""
    return own_or_sibling(own, chat, path, f"{_CHAT}.prompt_cache_key", cx)


@reports("Invalid")
def responses_include(own: Any, chat_logprobs: Any, path: str, cx: Cx) -> Any:
    """include: the kept Responses list; Chat's ``logprobs: true`` adds
    ``message.output_text.logprobs`` (how a Responses request asks for them). Chat's false or
    null asks for none (the default of both: nothing to write)."""
    if chat_logprobs is UNSET or chat_logprobs is None or chat_logprobs is False:
        return own
    if chat_logprobs is not True:
        cx.report(f"{_CHAT}.logprobs", "Invalid", f"{shown(chat_logprobs)}, not a boolean; ignored")
        return own
    if own is not UNSET and own is not None and not isinstance(own, list):
        return own  # not a list: the check of the output names it
    include = list(own) if isinstance(own, list) else []
    return include if LOGPROBS_INCLUDE in include else [*include, LOGPROBS_INCLUDE]


@reports("Unsupported")
def responses_top_logprobs(own: Any, chat: Any, path: str, cx: Cx) -> Any:
    """top_logprobs: the kept Responses value, else Chat's (an integer 0..20 in both, or null);
    one outside 0..20 is left out (Unsupported) at the path it was kept at."""
    value = own_or_sibling(own, chat, path, f"{_CHAT}.top_logprobs", cx)
    if isinstance(value, int) and not isinstance(value, bool) and not 0 <= value <= 20:
        cx.report(path if own is not UNSET else f"{_CHAT}.top_logprobs", "Unsupported", "Responses top_logprobs is 0 to 20; a value outside is left out")
        return UNSET
    return value


def _bounded(value: Any, path: str, cx: Cx, low: float, high: float | None, name: str) -> Any:
    if value is UNSET:
        return UNSET
    if value < low or (high is not None and value > high):
        bound = f"{low} to {high}" if high is not None else f"at least {low}"
        cx.report(path, "Unsupported", f"Responses {name} is {bound}; a value outside is left out")
        return UNSET
    return value


def _kept_null(kept: Any, name: str, cx: Cx) -> Any:
    """The JSON null the source had for `name`, kept in extra.openai_responses.<name>; any other
    kept value is reported Invalid and ignored."""
    if kept is UNSET:
        return UNSET
    if kept is None:
        return None
    cx.report(member(cx.carried_path, name), "Invalid", "not null (only a null is kept here); ignored")
    return UNSET


@reports("Unsupported", "Invalid")
def responses_temperature(value: float | UnsetType, kept: Any, path: str, cx: Cx) -> Any:
    """options.temperature inside Responses' 0..2 (else left out, Unsupported); without one, the
    kept null."""
    return _bounded(value, path, cx, 0, 2, "temperature") if value is not UNSET else _kept_null(kept, "temperature", cx)


@reports("Unsupported", "Invalid")
def responses_top_p(value: float | UnsetType, kept: Any, path: str, cx: Cx) -> Any:
    """options.top_p inside Responses' 0..1 (else left out, Unsupported); without one, the kept
    null."""
    return _bounded(value, path, cx, 0, 1, "top_p") if value is not UNSET else _kept_null(kept, "top_p", cx)


@reports("Unsupported", "Invalid")
def responses_max_output_tokens(value: int | UnsetType, kept: Any, path: str, cx: Cx) -> Any:
    """options.max_output_tokens, at least 16 in Responses (else left out, Unsupported); without
    one, the kept null."""
    if value is UNSET:
        return _kept_null(kept, "max_output_tokens", cx)
    return _bounded(value, path, cx, 16, None, "max_output_tokens")


@reports("Unsupported", "Invalid")
def responses_metadata(value: dict[str, str] | UnsetType, null: Any, path: str, cx: Cx) -> Any:
    """Lux metadata within Responses' bounds (16 pairs, keys of 64 and values of 512 characters);
    a pair outside them is left out (Unsupported). Without one, the kept null."""
    if value is UNSET:
        return _kept_null(null, "metadata", cx)
    kept: dict[str, str] = {}
    for key, text in value.items():
        if len(kept) >= 16 or len(key) > 64 or len(text) > 512:
            cx.report(member(path, key), "Unsupported", "Responses metadata holds 16 pairs, keys of up to 64 and values of up to 512 characters; left out")
            continue
        kept[key] = text
    return kept


# ---------------------------------------------------------------------- Responses -> Lux: response


def unix_seconds(value: float | UnsetType, path: str, cx: Cx) -> int | UnsetType:
    """created_at as whole seconds (a fraction is left to responses_created_at_fraction); none
    (a Response built without it, which the schema refuses and the target check names) gives none."""
    if value is UNSET:
        return UNSET
    return int(value) if float(value).is_integer() else UNSET


def responses_created_at_fraction(value: float | UnsetType, path: str, cx: Cx, status: Status, reason: str) -> float | UnsetType:
    """created_at when it is not a whole number of seconds (Lux created_at is an integer), reported."""
    if value is UNSET or float(value).is_integer():
        return UNSET
    cx.report(path, status, reason)
    return value


@reports("Degraded")
def responses_output(output: list[Any], status: Any, details: Any, path: str, cx: Cx) -> list[LucentChoice]:
    """The output items as one Lux choice: an assistant message whose blocks are, in order, the
    message parts (text / refusal), function calls (tool_use) and reasoning items (thinking);
    the item boundaries and members are kept in provider_payload.openai_responses.output."""
    lux = "$.choices[0].message"
    blocks: list[LucentContent] = []
    records: list[dict[str, Any]] = []
    items = [_plain(raw) for raw in output]
    last = max((i for i, item in enumerate(items) if item.get("type") in ITEM_CARRIED), default=-1)
    for index, item in enumerate(items):
        where = f"{path}[{index}]"
        kind = item.get("type")
        start = len(blocks)
        if kind == "message" and item.get("role") == "assistant" and isinstance(item.get("content"), list):
            verbatim_before = cx.memo.get("members", {}).get(lux, {}).pop("content_parts", None)
            blocks.extend(_parts(item["content"], f"{where}.content", lux, "content", "assistant", cx, start))
            kept = cx.memo.get("members", {}).get(lux, {}).pop("content_parts", None)
            if verbatim_before is not None:
                cx.memo["members"][lux]["content_parts"] = verbatim_before
            record: dict[str, Any] = {"blocks": len(blocks) - start, "item": _item_members({k: v for k, v in item.items() if k != "content"}, where, cx, item_status(kind, index == last, status))}
            if kept:
                record["parts"] = kept
                cx.sourced(record, {"parts": f"{where}.content"})
            records.append(record)
        elif kind == "function_call":
            call = LucentToolUse(id=item["call_id"], name=item["name"], arguments=item["arguments"])
            blocks.append(LucentContentToolUse(tool_use=cx.built(where, call, {"id": "call_id", "name": "name", "arguments": "arguments"})))
            records.append({"blocks": 1, "item": _item_members(_rest(item, ("call_id", "name", "arguments"), where, cx, ("caller", "namespace")), where, cx)})
        elif kind == "reasoning":
            at = f"{lux}.content[{start}].thinking"
            blocks.append(LucentContentThinking(thinking=_reasoning_item(item, where, at, cx)))
            records.append({"blocks": 1, "item": _item_members(cx.memo.get("members", {}).pop(at, {}), where, cx)})
        else:
            cx.report(where, "Degraded", f"a Lux message has no block for a {kind} output item; kept verbatim in provider_payload.openai_responses.output")
            records.append(cx.sourced({"verbatim": item}, {"verbatim": where}))
    cx.memo["output"] = cx.sourced(records, {}) if records else records  # the list names no source value of its own
    message = LucentMessage(role="assistant", content=blocks)
    status_path = path.rsplit(".", 1)[0] + ".status"
    finish = _finish_reason(status, details, status_path, cx)
    if finish == "stop" and any(isinstance(b, LucentContentToolUse) for b in blocks):
        finish = "tool_calls"
    # the finish reason stands for the response's status (a target without one names $.status)
    return [cx.sourced(LucentChoice(index=0, message=cx.sourced(message, {}), finish_reason=finish), {"finish_reason": status_path})]


def _item_members(kept: dict[str, Any], path: str, cx: Cx, status: str = "completed") -> dict[str, Any]:
    """The members of the output item at `path` that its record keeps (provider_payload.openai_responses.output);
    those a Lux block has no place for (``item_members_lost``, which the stream reader names too;
    `status`: the item status the Lux finish gives back, ``item_status``) are recorded at their
    own source paths, so that a target with no place for them names each one it drops
    (``$.output[1].id``), not the whole output."""
    return cx.sourced(kept, {k: member(path, k) for k in item_members_lost(kept, status)})


def _finish_reason(status: Any, details: Any, path: str, cx: Cx) -> LucentFinishReason:
    """The Lux finish reason the status gives: completed ->
    stop (tool_calls when a function call is in the output); incomplete for max_output_tokens ->
    length, for content_filter -> content_filter; failed / cancelled -> error; in_progress and
    queued (no answer yet) -> stop, reported."""
    reason = _plain(details).get("reason") if isinstance(details, msgspec.Struct) else None
    finish: LucentFinishReason = "stop"
    if status == "incomplete":
        finish = "content_filter" if reason == "content_filter" else "length"
    elif status in ("failed", "cancelled"):
        finish = "error"
    elif status in ("in_progress", "queued"):
        cx.report(path, "Degraded", f"a {status} response has no finish reason yet; written as stop (the status is kept)")
    return finish


def responses_output_records(output: Any, path: str, cx: Cx) -> list[dict[str, Any]] | UnsetType:
    """provider_payload.openai_responses.output: per output item, the number of Lux blocks it
    gave and its members (or the item verbatim)."""
    return cast("list[dict[str, Any]]", cx.memo.pop("output", UNSET))


def _is(value: Any, default: Any) -> bool:
    """``value`` is the JSON value ``default`` (``true`` is not ``1``; a Struct never is)."""
    return type(value) is type(default) and value == default


def restated(value: Any, path: str, cx: Cx) -> Any:
    """A member restating the request (tables.RESTATED_DEFAULTS), kept unless it holds the
    default a Lux -> Responses writer writes: that one is noted for ``restated_defaults``."""
    name = path.rsplit(".", 1)[-1]
    if value is not UNSET and _is(value, REQUEST_DEFAULTS[name]):
        cast("list[str]", cx.memo.setdefault("restated", [])).append(name)
        return UNSET
    return value


def restated_defaults(choices: Any, path: str, cx: Cx) -> bool | UnsetType:
    """True when :func:`restated` found a member at its default (a spelling: the way back
    writes each member not kept as its default again, without a report; no other format needs
    them). A Response requires all of them, so a member not kept was at its default."""
    return True if cx.memo.pop("restated", None) else UNSET


def status_kept(status: Any, path: str, cx: Cx) -> Any:
    """The status, unless the Lux finish reason gives it back (tables.IMPLIED_STATUS)."""
    return UNSET if status in IMPLIED_STATUS else status


def object_kept(value: Any, path: str, cx: Cx) -> Any:
    """``object``, unless it is ``response`` (the only value, which the way back writes)."""
    return UNSET if value == "response" else value


def error_kept(error: Any, status: Any, path: str, cx: Cx) -> Any:
    """The error, unless it is null on a response that did not fail (the way back writes null)."""
    return UNSET if error is None and status in ("completed", "incomplete") else error


def incomplete_details_kept(details: Any, status: Any, path: str, cx: Cx) -> Any:
    """incomplete_details, unless the Lux finish reason gives it back: null on a response that
    is not incomplete, ``{reason}`` (max_output_tokens, content_filter) on one that is."""
    if details is None and status in ("completed", "failed"):
        return UNSET
    plain = _plain(details)
    if status == "incomplete" and isinstance(plain, dict) and list(plain) == ["reason"] and plain["reason"] in INCOMPLETE_REASON_TO_LUX:
        return UNSET
    return details


def cache_write_absent_flag(usage: Any, path: str, cx: Cx) -> bool | UnsetType:
    """True when a usage object has no input_tokens_details.cache_write_tokens (most recorded
    responses: the member is newer than they are), so the way back leaves it out."""
    if usage is UNSET or usage is None:
        return UNSET
    details = getattr(usage, "input_tokens_details", UNSET)
    return True if getattr(details, "cache_write_tokens", UNSET) is UNSET else UNSET


@reports("Degraded")
def responses_usage(usage: msgspec.Struct | None | UnsetType, path: str, cx: Cx) -> LucentUsage | UnsetType:
    """input_tokens (cached tokens included, as in Lux) -> prompt_tokens, output_tokens (reasoning
    included) -> completion_tokens, total_tokens; cached_tokens, cache_write_tokens ->
    cache_creation_tokens and reasoning_tokens from the details. A null usage is no usage
    (reported Degraded: it comes back absent)."""
    if usage is UNSET:
        return UNSET
    if usage is None:
        cx.report(path, "Degraded", "usage is null; Lux has no usage, so it comes back absent")
        return UNSET
    plain = _plain(usage)
    lux = LucentUsage(prompt_tokens=plain["input_tokens"], completion_tokens=plain["output_tokens"], total_tokens=plain["total_tokens"])
    details = plain.get("input_tokens_details") or {}
    if isinstance(details.get("cached_tokens"), int):
        lux.cached_tokens = details["cached_tokens"]
    if isinstance(details.get("cache_write_tokens"), int):
        lux.cache_creation_tokens = details["cache_write_tokens"]
    reasoning = (plain.get("output_tokens_details") or {}).get("reasoning_tokens")
    if isinstance(reasoning, int):
        lux.reasoning_tokens = reasoning
    return cx.built(path, lux, {"prompt_tokens": "input_tokens", "completion_tokens": "output_tokens", "total_tokens": "total_tokens"})


# ---------------------------------------------------------------------- Lux -> Responses: response


_STATUS_OF = STATUS_FROM_LUX


def _choice(choices: list[LucentChoice], path: str, cx: Cx) -> LucentChoice | None:
    for index in range(1, len(choices)):
        cx.report(f"{path}[{index}]", "Unsupported", "a Responses response has one output; other choices are dropped")
    return choices[0] if choices else None


@reports("Degraded")
def lux_status(choices: list[LucentChoice], status: Any, path: str, cx: Cx) -> Any:
    """The response status the finish reason gives (the kept status when it gives the same)."""
    choice = choices[0] if choices else None
    if choice is None:
        return status if isinstance(status, str) else "completed"
    derived, _reason = _STATUS_OF[choice.finish_reason]
    if isinstance(status, str) and (status == derived or (derived == "completed" and status in ("in_progress", "queued")) or (derived == "failed" and status == "cancelled")):
        return status
    if choice.finish_reason in ("safety", "recitation", "malformed_tool_call"):
        cx.report(f"{path}[0].finish_reason", "Degraded", f"Responses has no {choice.finish_reason} finish; written as status {derived}")
    return derived


def lux_error(choices: list[LucentChoice], kept: Any, path: str, cx: Cx) -> Any:
    """The error of a failed response: the kept one (a Responses source), else, for a finish
    reason whose status is failed (error, malformed_tool_call), the ResponseError of
    tables.FAILURE_ERROR; null for any other response."""
    if kept is not UNSET:
        return kept
    choice = choices[0] if choices else None
    failure = FAILURE_ERROR.get(choice.finish_reason) if choice is not None else None
    return dict(failure) if failure is not None else None


@reports("Unsupported")
def lux_incomplete_details(choices: list[LucentChoice], details: Any, path: str, cx: Cx) -> Any:
    """{reason} for an incomplete response (length -> max_output_tokens, content_filter), else
    null (the kept value when it says the same)."""
    choice = choices[0] if choices else None
    reason = _STATUS_OF[choice.finish_reason][1] if choice is not None else None
    if isinstance(details, dict) and details.get("reason") == reason:
        return details
    if details is not None and details is not UNSET:
        cx.report(f"{cx.carried_path}.incomplete_details", "Unsupported", "not written: the Lux finish reason gives another incomplete_details")
    return None if reason is None else {"reason": reason}


@reports("Degraded", "Unsupported", "Invalid")
def lux_output(choices: list[LucentChoice], records: Any, path: str, cx: Cx) -> list[Any]:
    """The first choice's message as Responses output items: the kept item records regroup its
    blocks; blocks beyond them become a message item per run of text / refusal blocks, a
    function_call per tool_use block and a reasoning item per thinking block (generated ids
    msg_<n> / rs_<n>, Degraded)."""
    found = _lux_output(choices, records, path, cx)
    cx.report_unread_entries(MEMBERS, member(cx.sidecar_path, "openai_responses") + ".members")
    return found


def _lux_output(choices: list[LucentChoice], records: Any, path: str, cx: Cx) -> list[Any]:
    choice = _choice(choices, path, cx)
    if choice is None:
        return []
    members = _Members(cx)
    where = f"{path}[0].message"
    blocks = list(enumerate(choice.message.content))
    items: list[Any] = []
    if choice.message.role != "assistant":
        cx.report(f"{where}.role", "Degraded", "a Responses output message is the assistant's")
    for n, record in enumerate(records if isinstance(records, list) else []):
        if not isinstance(record, dict):
            cx.report(f"{cx.carried_path}.output[{n}]", "Invalid", f"{shown(record)}, not an output record (an object); ignored")
            continue
        for key in record:
            if key not in ("verbatim", "blocks", "item", "parts"):
                cx.report(member(f"{cx.carried_path}.output[{n}]", key), "Unsupported", "not a member of an output record (verbatim, or blocks, item and parts); ignored")
        if "verbatim" in record:
            if _accepted(lambda: convert_as(record["verbatim"], OutputItem)):
                items.append(record["verbatim"])
            else:
                cx.report(f"{cx.carried_path}.output", "Unsupported", "a kept output item that is not a Responses output item; dropped")
            continue
        count = record.get("blocks")
        item = record.get("item")
        if not isinstance(count, int) or isinstance(count, bool) or not isinstance(item, dict) or count > len(blocks):
            cx.report(f"{cx.carried_path}.output[{n}]", "Invalid", "not a record of an item and the count of Lux blocks it holds; it and the records after it are not read")
            break
        taken, blocks = blocks[:count], blocks[count:]
        kind = item.get("type")
        if kind == "message" and all(isinstance(b, (LucentContentText, LucentContentRefusal)) for _i, b in taken):
            content = _lux_parts([b for _i, b in taken], f"{where}.content", "assistant", record.get("parts"), members, cx, [i for i, _b in taken], f"{cx.carried_path}.output[{n}].parts")
            items.append({**item, "content": content})
        elif kind == "reasoning" and count == 1 and isinstance(taken[0][1], LucentContentThinking):
            at = f"{where}.content[{taken[0][0]}].thinking"
            items.append(cx.built(at, _reasoning_out(taken[0][1].thinking, dict(item), at, cx)))
        elif count == 1 and isinstance(taken[0][1], LucentContentToolUse):
            call = taken[0][1].tool_use
            items.append(cx.built(f"{where}.content[{taken[0][0]}].tool_use", {**item, "call_id": call.id, "name": call.name, "arguments": call.arguments}))
        else:
            cx.report(f"{cx.carried_path}.output[{n}]", "Unsupported", "the kept record does not match the Lux blocks at its place; it and the records after it are not read")
            blocks = taken + blocks
            break
    run: list[tuple[int, LucentContent]] = []
    run_made: list[dict[str, Any]] = []  # the message items made here
    made = dict.fromkeys(MADE_ID_PREFIX.values(), 0)

    def flush() -> None:
        if run:
            content = _lux_parts([b for _i, b in run], f"{where}.content", "assistant", None, members, cx, [i for i, _b in run])
            items.append({"type": "message", "id": _made_id(MADE_ID_PREFIX["message"], made, f"{where}.content[{run[0][0]}]", cx), "role": "assistant", "status": "completed", "content": content})
            run_made.append(items[-1])
            run.clear()

    for index, block in blocks:
        at = f"{where}.content[{index}]"
        if isinstance(block, (LucentContentText, LucentContentRefusal)):
            run.append((index, block))
            continue
        flush()
        if isinstance(block, LucentContentToolUse):
            call = block.tool_use
            items.append(cx.built(f"{at}.tool_use", {"type": "function_call", "id": _made_id(MADE_ID_PREFIX["function_call"], made, at, cx), "call_id": call.id, "name": call.name, "arguments": call.arguments, "status": "completed"}))
        elif isinstance(block, LucentContentThinking) and not block.thinking.redacted:
            item = {"type": "reasoning", "id": _made_id(MADE_ID_PREFIX["reasoning"], made, at, cx)}
            if block.thinking.signature is not UNSET:
                # No kept record does not mean another provider: a Lux response assembled from a
                # Responses stream has none (a Lux stream has no side-car), and a stream writer
                # keeps the signature as well.
                cx.report(f"{at}.thinking.signature", "Degraded", SIGNATURE_WRITTEN)
            items.append(cx.built(f"{at}.thinking", _reasoning_out(block.thinking, item, f"{at}.thinking", cx)))
        else:
            cx.report(at, "Unsupported", f"Responses output has no {_tag(block)} item; dropped")
    flush()
    if items and run_made and items[-1] is run_made[-1]:
        items[-1]["status"] = item_status("message", True, _STATUS_OF[choice.finish_reason][0])  # a truncated message is incomplete, as the API (and a stream) says
    return items


def _made_id(prefix: str, made: dict[str, int], path: str, cx: Cx) -> str:
    made[prefix] += 1
    ident = f"{prefix}_lucent_{made[prefix]}"
    cx.report(path, "Degraded", f"Responses output items need an id and Lux has none; written as {ident}")
    return ident


def _reasoning_out(thinking: LucentThinking, item: dict[str, Any], path: str, cx: Cx, signature: bool = True) -> dict[str, Any]:
    summary = []
    for index, block in enumerate(thinking.summary if thinking.summary is not UNSET else []):
        if isinstance(block, LucentContentText):
            summary.append({"type": "summary_text", "text": block.text})
        else:
            cx.report(f"{path}.summary[{index}]", "Unsupported", "a reasoning summary is text only; dropped")
    out: dict[str, Any] = {**item, "summary": summary}
    if signature and thinking.signature is not UNSET:
        out["encrypted_content"] = thinking.signature
    if "content" not in out and thinking.text:
        out["content"] = [{"type": "reasoning_text", "text": thinking.text}]
    return out


@reports("Degraded")
def lux_response_usage(usage: LucentUsage | UnsetType, kept: Any, no_cache_write: Any, path: str, cx: Cx) -> Any:
    """Lux usage as Responses usage: prompt_tokens (cache reads included) -> input_tokens with
    input_tokens_details {cached_tokens, cache_write_tokens (cache_creation_tokens)},
    completion_tokens -> output_tokens with output_tokens_details {reasoning_tokens}; a count
    Lux lacks is written 0 (Degraded: the openai SDK's ResponseUsage requires all three), but
    cache_write_tokens is left out when the Responses source had none (``cache_write_absent``).
    No Lux usage is no usage (null when the source had usage: null)."""
    if usage is UNSET:
        return None if kept is None else UNSET
    cache_write = usage.cache_creation_tokens
    for name, value in (("cached_tokens", usage.cached_tokens), ("cache_write_tokens", cache_write), ("reasoning_tokens", usage.reasoning_tokens)):
        if value is UNSET and not (name == "cache_write_tokens" and no_cache_write is True):
            cx.report(path, "Degraded", f"Responses usage requires {name}; Lux has none, written as 0")
    details: dict[str, Any] = {"cached_tokens": usage.cached_tokens if usage.cached_tokens is not UNSET else 0}
    if cache_write is not UNSET or no_cache_write is not True:
        details["cache_write_tokens"] = cache_write if cache_write is not UNSET else 0
    return cx.built(path, {  # recorded: its kept members come back to it
        "input_tokens": usage.prompt_tokens,
        "input_tokens_details": details,
        "output_tokens": usage.completion_tokens,
        "output_tokens_details": {"reasoning_tokens": usage.reasoning_tokens if usage.reasoning_tokens is not UNSET else 0},
        "total_tokens": usage.total_tokens,
    })


@reports("Degraded", "Invalid")
def kept_or(kept: Any, path: str, cx: Cx, carried: str) -> Any:
    """A member Responses requires: the kept value, else its default (null, [], {}, "auto",
    true: tables.REQUEST_DEFAULTS), reported Degraded once per response (at ``target:$``), unless
    the Responses source held that default (``restated_defaults``)."""
    if kept is not UNSET:
        return kept
    if carried in RESTATED_DEFAULTS and cx.from_carried("restated_defaults", "boolean") is True:
        default = REQUEST_DEFAULTS[carried]  # the Responses source held the default
        return type(default)() if isinstance(default, (list, dict)) else default
    if not cx.memo.get("defaults_reported"):
        cx.memo["defaults_reported"] = True
        cx.report("target:$", "Degraded", "Responses restates the request (tools, tool_choice, temperature, ...), which a Lux response does not carry; written as the defaults")
    default = REQUEST_DEFAULTS[carried]
    return type(default)() if isinstance(default, (list, dict)) else default  # a fresh [] / {} per response


def kept_value(kept: Any, path: str, cx: Cx) -> Any:
    """A member kept in the side-car, written back verbatim (UNSET when none was kept)."""
    return kept
