"""The transforms of the Anthropic Messages <-> Lux mapping specs.

Each public function is one transform a spec may name (codegen/vocabulary/anthropic.toml lists
them); the generated converters of mappings/*anthropic*.toml call them, and the shared ones of
lucent._transforms. The decisions they carry out are written at the top of each spec.

Side-car (`extra.anthropic` in a Lux request, `provider_payload.anthropic` in a Lux response):
`members` holds, keyed by the Lux path of the object they belong to, the Anthropic members a Lux
object has no field for (cache_control, citations, caller, an explicit is_error false, tool
flags) and two markers: `content_form` ("blocks": a content that is a list of one plain text
block, which would otherwise come back as a string; "absent": a tool_result without content) and
`blocks` ([{index, value}]: the Anthropic blocks Lux has no block for -- documents, server tool
blocks, search results -- verbatim, at their index in the Anthropic content list).
"""

from __future__ import annotations

import re
from typing import Any, cast

import msgspec
from msgspec import UNSET, UnsetType

from lucent._conversion import Cx, reads, reports, skips_absent, Status
from lucent._transforms import convert_kept, left_out, plain_members, present, report_unkept, shown, url_image_media_type, written
from lucent._forms import restructured
from lucent._validation import JsonTextError, RuleViolation, convert_as, described, dump_json_text, is_compact_text, load_json_text, member, plain_json_object, same_json_value
from lucent.formats.anthropic.tables import DIRECT_CALLER, STOP_REASON_FROM_LUX, STOP_REASON_TO_LUX, USAGE_KEPT, finish_reason_exact
from lucent.generated.anthropic import (
    CacheControlEphemeral,
    Container,
    ContentBlock,
    CreateMessageParamsToolsItem,
    InputContentBlock,
    InputMessage,
    Base64ImageSource,
    InputSchema,
    Metadata,
    OutputConfig,
    RefusalStopDetails,
    RequestDocumentBlock,
    RequestImageBlock,
    RequestRedactedThinkingBlock,
    RequestSearchResultBlock,
    RequestTextBlock,
    RequestThinkingBlock,
    RequestToolReferenceBlock,
    RequestToolResultBlock,
    RequestToolUseBlock,
    ResponseRedactedThinkingBlock,
    ResponseTextBlock,
    ResponseThinkingBlock,
    ResponseToolUseBlock,
    StopReason,
    ThinkingConfigAdaptive,
    ThinkingConfigDisabled,
    ThinkingConfigEnabled,
    ThinkingConfigParam,
    Tool,
    ToolChoice,
    ToolChoiceAny,
    ToolChoiceAuto,
    ToolChoiceNone,
    ToolChoiceTool,
    Usage,
)
from lucent.generated.anthropic import dispatch_CreateMessageParamsToolsItem
from lucent.generated.lux_ir_v1 import (
    LucentContent,
    LucentContentAudio,
    LucentContentImage,
    LucentContentRefusal,
    LucentContentText,
    LucentContentThinking,
    LucentContentToolResult,
    LucentContentToolUse,
    LucentContentVideo,
    LucentConversationItem,
    LucentConversationItemMessage,
    LucentConversationItemReasoning,
    LucentConversationItemToolCall,
    LucentConversationItemToolResult,
    LucentFinishReason,
    LucentMessage,
    LucentMultimedia,
    LucentReasoningConfig,
    LucentReasoningEffort,
    LucentStructuredOutput,
    LucentStructuredOutputJsonSchema,
    LucentThinking,
    LucentTool,
    LucentToolChoice,
    LucentToolResult,
    LucentToolUse,
    LucentUsage,
)

MEMBERS = "anthropic.members"
"""The side-car space of per-object members (under extra / provider_payload)."""

URL_IMAGE_MEDIA_TYPE = "image/*"
"""The Lux media type of an Anthropic URL image, which names none (a media range: any image)."""

_IMAGE_MEDIA_TYPES = ("image/jpeg", "image/png", "image/gif", "image/webp")
_EFFORTS: tuple[str, ...] = ("low", "medium", "high")
_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,128}$")
_ID = re.compile(r"^[a-zA-Z0-9_-]+$")
_NOT_NAME = re.compile(r"[^a-zA-Z0-9_-]")
_DATA_URL = re.compile(r"^data:([a-z]+/[a-z0-9.+-]+);base64,", re.IGNORECASE)
_EMPTY = "the input " + "{" + "}"
_OBJECT_SCHEMA = '{"type": "object"' + "}"


def _tag(value: Any) -> str:
    """The tag of a tagged Struct (its `type`)."""
    return str(type(value).__struct_config__.tag)


def _plain(value: Any) -> Any:
    """A Struct (or anything holding Structs) as plain JSON values; UNSET members left out."""
    return msgspec.to_builtins(value)


def _keep(cx: Cx, holder: str, key: str, value: Any, source: str) -> None:
    """Keep an Anthropic member Lux has no field for, for the Lux object built from `holder`."""
    if value is not UNSET:
        cx.keep(MEMBERS, holder, key, _plain(value), source)


# =============================================================== Anthropic request -> Lux request


def _text_is_plain(block: Any) -> bool:
    return isinstance(block, RequestTextBlock) and block.cache_control is UNSET and block.citations is UNSET


def _verbatim(block: Any, path: str, cx: Cx) -> dict[str, Any]:
    kind = _tag(block)
    cx.report(path, "Degraded", f"Lux has no {kind} block; kept verbatim in the members side-car, which Lux readers do not see")
    return cast("dict[str, Any]", _plain(block))


def _text(block: RequestTextBlock | ResponseTextBlock, path: str, cx: Cx) -> LucentContent:
    _keep(cx, path, "cache_control", getattr(block, "cache_control", UNSET), f"{path}.cache_control")
    if block.citations is not UNSET:
        if block.citations is not None:
            cx.report(f"{path}.citations", "Degraded", "Lux annotations cannot hold Anthropic citations; kept in the members side-car")
        _keep(cx, path, "citations", block.citations, f"{path}.citations")
    return cx.built(path, LucentContentText(text=block.text), {"text": "text"})


def _thinking(block: Any, path: str, cx: Cx) -> LucentContent:
    if isinstance(block, (RequestRedactedThinkingBlock, ResponseRedactedThinkingBlock)):
        thinking = LucentThinking(text="", signature=block.data, redacted=True)
        cx.built(path, thinking, {"signature": "data"})
    else:
        thinking = LucentThinking(text=block.thinking, signature=block.signature, redacted=False)
        cx.built(path, thinking, {"text": "thinking", "signature": "signature"})
    return cx.built(path, LucentContentThinking(thinking=thinking))


def _arguments(value: dict[str, Any], path: str, cx: Cx) -> str:
    try:
        return dump_json_text(value)
    except JsonTextError as exc:
        cx.report(path, "Invalid", f"the tool input has no JSON text ({exc.problem}); written as \"null\"")
        return "null"


def _tool_use(block: RequestToolUseBlock | ResponseToolUseBlock, path: str, cx: Cx) -> LucentContent:
    use = LucentToolUse(id=block.id, name=block.name, arguments=_arguments(block.input, f"{path}.input", cx))
    cx.built(path, use, {"id": "id", "name": "name", "arguments": "input"})
    _keep(cx, path, "cache_control", getattr(block, "cache_control", UNSET), f"{path}.cache_control")
    caller = _plain(block.caller) if block.caller is not UNSET else UNSET
    if caller == DIRECT_CALLER:  # how every other format's tool call is made: a spelling
        _keep(cx, path, "caller_direct", True, f"{path}.caller")
    else:
        _keep(cx, path, "caller", block.caller, f"{path}.caller")
    return cx.built(path, LucentContentToolUse(tool_use=use))


def _image(block: RequestImageBlock, path: str, cx: Cx) -> LucentContent:
    source = block.source
    if isinstance(source, Base64ImageSource):
        media = LucentMultimedia(media_type=source.media_type, source="inline")
        cx.keep("media", path, "data", source.data, f"{path}.source.data")
    else:
        # an Anthropic URL image states no media type: the one its file name names, else image/*
        media = LucentMultimedia(media_type=url_image_media_type(source.url) or URL_IMAGE_MEDIA_TYPE, source="url")
        cx.keep("media", path, "url", source.url, f"{path}.source.url")
    cx.built(path, media, {"media_type": "source.media_type"} if isinstance(source, Base64ImageSource) else None)
    _keep(cx, path, "cache_control", block.cache_control, f"{path}.cache_control")
    return cx.built(path, LucentContentImage(image=media))


def _tool_result(block: RequestToolResultBlock, path: str, cx: Cx) -> LucentContent:
    content: list[LucentContent] = []
    if block.content is UNSET:
        _keep(cx, path, "content_form", "absent", f"{path}")
    else:
        content = _lux_blocks(block.content, f"{path}.content", path, cx)
    result = LucentToolResult(tool_use_id=block.tool_use_id, content=content, is_error=block.is_error is True)
    cx.built(path, result, {"tool_use_id": "tool_use_id", "content": "content"})
    if block.is_error is False:
        _keep(cx, path, "is_error", False, f"{path}.is_error")
    _keep(cx, path, "cache_control", block.cache_control, f"{path}.cache_control")
    return cx.built(path, LucentContentToolResult(tool_result=result))


def _lux_block(block: Any, path: str, cx: Cx) -> LucentContent | None:
    """One Anthropic content block as a Lux block; None for a block Lux has no block for."""
    if isinstance(block, (RequestTextBlock, ResponseTextBlock)):
        return _text(block, path, cx)
    if isinstance(block, (RequestThinkingBlock, RequestRedactedThinkingBlock, ResponseThinkingBlock, ResponseRedactedThinkingBlock)):
        return _thinking(block, path, cx)
    if isinstance(block, (RequestToolUseBlock, ResponseToolUseBlock)):
        return _tool_use(block, path, cx)
    if isinstance(block, RequestImageBlock):
        return _image(block, path, cx)
    if isinstance(block, RequestToolResultBlock):
        return _tool_result(block, path, cx)
    return None


def _lux_blocks(content: str | list[Any], path: str, holder: str, cx: Cx) -> list[LucentContent]:
    """Anthropic content (a string, or blocks) as Lux blocks; the blocks Lux has none for are kept
    verbatim, with their index, under `holder` (the source path of the Lux object that owns the
    content), and a list of one plain text block is marked so that it comes back as a list."""
    if isinstance(content, str):
        return [cx.built(path, LucentContentText(text=content), {"text": ""})]
    blocks: list[LucentContent] = []
    verbatim: list[dict[str, Any]] = []
    for index, block in enumerate(content):
        at = f"{path}[{index}]"
        lux = _lux_block(block, at, cx)
        if lux is None:
            verbatim.append(cx.built(at, {"index": index, "value": _verbatim(block, at, cx)}, {"value": ""}))
        else:
            blocks.append(lux)
    if verbatim:
        cx.keep(MEMBERS, holder, "blocks", verbatim, path)
    if len(content) == 1 and _text_is_plain(content[0]):
        cx.keep(MEMBERS, holder, "content_form", "blocks", path)
    return blocks


@reports("Degraded")
def lux_instructions(system: str | list[RequestTextBlock] | UnsetType, path: str, cx: Cx) -> list[LucentContent] | UnsetType:
    """The system prompt (a string, or text blocks) as Lux instruction blocks."""
    if system is UNSET:
        return UNSET
    if isinstance(system, str):
        return [cx.built(path, LucentContentText(text=system), {"text": ""})]
    return [_text(block, f"{path}[{i}]", cx) for i, block in enumerate(system)]


def system_form(system: str | list[RequestTextBlock] | UnsetType, path: str, cx: Cx) -> str | UnsetType:
    """"blocks" when the system prompt is a list of blocks (a string is the default)."""
    return "blocks" if isinstance(system, list) else UNSET


@reports("Degraded", "Invalid")
def lux_conversation(messages: list[InputMessage], path: str, cx: Cx) -> list[LucentConversationItem]:
    """Each Anthropic message as one Lux message item, in order, its blocks in order."""
    items: list[LucentConversationItem] = []
    for i, message in enumerate(messages):
        at = f"{path}[{i}]"
        content = _lux_blocks(message.content, f"{at}.content", at, cx)
        lux = cx.built(at, LucentMessage(role=message.role, content=content), {"role": "role", "content": "content"})
        items.append(cx.built(at, LucentConversationItemMessage(message=lux)))
    return items


def _client_tool(tool: Any) -> bool:
    return isinstance(tool, Tool)


@reports("Degraded")
def lux_tools(tools: list[CreateMessageParamsToolsItem] | UnsetType, path: str, cx: Cx) -> list[LucentTool] | UnsetType:
    """The client tools as LucentTool (input_schema is the parameters); their Anthropic members
    Lux has no field for are kept in the members side-car. Server tools: see server_tools."""
    if tools is UNSET:
        return UNSET
    found: list[LucentTool] = []
    for i, tool in enumerate(tools):
        if not isinstance(tool, Tool):
            continue
        at = f"{path}[{i}]"
        lux = LucentTool(name=tool.name, description=tool.description, parameters=plain_members(tool.input_schema), strict=tool.strict)
        found.append(cx.built(at, lux, {"name": "name", "description": "description", "parameters": "input_schema", "strict": "strict"}))
        for key in ("type", "cache_control", "eager_input_streaming", "allowed_callers", "defer_loading", "input_examples"):
            value = getattr(tool, key)
            if value is UNSET:
                continue
            if key not in ("type", "cache_control"):
                cx.report(f"{at}.{key}", "Degraded", f"Lux tools have no {key}; kept in the members side-car")
            _keep(cx, at, key, value, f"{at}.{key}")
    return found


def server_tools(
    tools: list[CreateMessageParamsToolsItem] | UnsetType, path: str, cx: Cx, status: Status, reason: str
) -> list[dict[str, Any]] | UnsetType:
    """The server tools (bash, web search, text editor, ...), verbatim as [{index, value}], each
    reported."""
    if tools is UNSET:
        return UNSET
    kept = []
    for index, tool in enumerate(tools):
        if not isinstance(tool, Tool):
            cx.report(f"{path}[{index}]", status, reason)
            kept.append(cx.built(f"{path}[{index}]", {"index": index, "value": _plain(tool)}, {"value": ""}))
    return kept if kept else UNSET


def disable_parallel(choice: ToolChoice | UnsetType, path: str, cx: Cx, status: Status, reason: str) -> bool | UnsetType:
    """tool_choice.disable_parallel_tool_use, reported (Lux has no such option)."""
    value = getattr(choice, "disable_parallel_tool_use", UNSET)
    if value is not UNSET:
        cx.report(f"{path}.disable_parallel_tool_use", status, reason)
    return cast("bool | UnsetType", value)


def _effort(config: OutputConfig | UnsetType) -> Any:
    return UNSET if config is UNSET else config.effort


@reports("Degraded")
def lux_reasoning(
    thinking: ThinkingConfigParam | UnsetType, config: OutputConfig | UnsetType, path: str, cx: Cx
) -> LucentReasoningConfig | UnsetType:
    """thinking enabled / adaptive -> enabled true (with budget_tokens); disabled, or no thinking
    beside an effort, -> enabled false; output_config.effort low / medium / high -> effort,
    xhigh / max -> effort high (reported; the level is kept by output_config_rest)."""
    effort = _effort(config)
    if thinking is UNSET and effort in (UNSET, None):
        return UNSET
    lux_effort: LucentReasoningEffort | UnsetType = UNSET
    if isinstance(effort, str):
        lux_effort = cast("LucentReasoningEffort", effort if effort in _EFFORTS else "high")
        if effort not in _EFFORTS:
            cx.report(f"{path.rsplit('.', 1)[0]}.output_config.effort", "Degraded", f"Lux effort is low, medium or high; {effort} written as high (the level is kept in extra.anthropic.output_config)")
    enabled = isinstance(thinking, (ThinkingConfigEnabled, ThinkingConfigAdaptive))
    budget = thinking.budget_tokens if isinstance(thinking, ThinkingConfigEnabled) else UNSET
    base = path.rsplit(".", 1)[0]
    origins = {"enabled": path if thinking is not UNSET else f"{base}.output_config.effort"}
    if budget is not UNSET:
        origins["budget_tokens"] = f"{path}.budget_tokens"
    if lux_effort is not UNSET:
        origins["effort"] = f"{base}.output_config.effort"
    return cx.sourced(LucentReasoningConfig(enabled=enabled, budget_tokens=budget, effort=lux_effort), origins)


def thinking_display(thinking: ThinkingConfigParam | UnsetType, path: str, cx: Cx, status: Status, reason: str) -> Any:
    """thinking.display (summarized / omitted / null), reported: Lux has no display mode."""
    display = getattr(thinking, "display", UNSET)
    if display is not UNSET and display is not None:
        cx.report(f"{path}.display", status, reason)
    return display


def thinking_absent(
    thinking: ThinkingConfigParam | UnsetType, config: OutputConfig | UnsetType, path: str, cx: Cx
) -> bool | UnsetType:
    """True when an effort is given without thinking (Lux reasoning then says enabled false)."""
    return True if thinking is UNSET and _effort(config) not in (UNSET, None) else UNSET


def output_config_rest(config: OutputConfig | UnsetType, path: str, cx: Cx) -> dict[str, Any] | UnsetType:
    """The output_config members Lux does not give back: null members, an effort Lux has no
    level for (xhigh, max), and {} for an empty output_config."""
    if config is UNSET:
        return UNSET
    rest: dict[str, Any] = {}
    if config.effort is None or (isinstance(config.effort, str) and config.effort not in _EFFORTS):
        rest["effort"] = config.effort
    if config.format is None:
        rest["format"] = None
    if rest or (config.effort is UNSET and config.format is UNSET):
        return cx.sourced(rest, {k: f"{path}.{k}" for k in rest})
    return UNSET


def lux_structured_output(config: OutputConfig | UnsetType, path: str, cx: Cx) -> LucentStructuredOutput | UnsetType:
    """output_config.format {type: json_schema, schema} as the Lux json_schema output."""
    if config is UNSET or config.format is UNSET or config.format is None:
        return UNSET
    return cx.built(f"{path}.format", LucentStructuredOutputJsonSchema(schema=config.format.schema), {"schema": "schema"})


def lux_metadata(metadata: Metadata | UnsetType, path: str, cx: Cx) -> dict[str, str] | UnsetType:
    """metadata.user_id as the Lux metadata {"user_id": ...}."""
    if metadata is UNSET or not isinstance(metadata.user_id, str):
        return UNSET
    return cx.sourced({"user_id": metadata.user_id}, {"user_id": f"{path}.user_id"})


def metadata_rest(metadata: Metadata | UnsetType, path: str, cx: Cx) -> dict[str, Any] | UnsetType:
    """A metadata lux_metadata does not give back ({}, user_id null), verbatim."""
    if metadata is UNSET or isinstance(metadata.user_id, str):
        return UNSET
    return cx.built(path, cast("dict[str, Any]", _plain(metadata)))


def stream_flag(stream: bool | UnsetType, path: str, cx: Cx) -> bool:
    """stream; absent is false (the Messages API default)."""
    return stream is True


def explicit_false(value: bool | UnsetType, path: str, cx: Cx) -> bool | UnsetType:
    """false when the source says false explicitly (absent means the same)."""
    return False if value is False else UNSET


def as_json(value: Any, path: str, cx: Cx) -> Any:
    """Any source value as plain JSON, not reported (it changes nothing a reader sees)."""
    return UNSET if value is UNSET else _plain(value)


def verbatim(value: Any, path: str, cx: Cx, status: Status, reason: str) -> Any:
    """Any source value, as plain JSON, reported when it is not null."""
    if value is UNSET:
        return UNSET
    if value is not None:
        cx.report(path, status, reason)
    return _plain(value)


# =============================================================== Lux request -> Anthropic request


def _names(cx: Cx) -> dict[str, dict[str, str]]:
    return cast("dict[str, dict[str, str]]", cx.memo.setdefault("anthropic_names", {"name": dict(), "id": dict()}))


def _fitted(value: str, kind: str, path: str, cx: Cx) -> str:
    """A tool name (1-128 of a-z A-Z 0-9 _ -) or tool id (1 or more of them) Anthropic can hold:
    other characters become "_", a name is cut to 128, an empty one is "lucent_<kind>"; the same
    value gets the same replacement everywhere (and a different one when that one is taken)."""
    if (_NAME if kind == "name" else _ID).match(value):
        return value
    seen = _names(cx)[kind]
    if value not in seen:
        base = _NOT_NAME.sub("_", value)[: 120 if kind == "name" else None] or f"lucent_{kind}"
        fitted, n = base, 1
        taken = set(seen.values())
        while fitted in taken:
            n += 1
            fitted = f"{base}_{n}"
        seen[value] = fitted
    fitted = seen[value]
    rule = "1 to 128 of a-z A-Z 0-9 _ -" if kind == "name" else "1 or more of a-z A-Z 0-9 _ -"
    cx.report(path, "Degraded", f"Anthropic cannot hold this tool {kind}, {shown(value)} ({rule}); written with every other character as _ (cut to 120, made unique), as everywhere it is used")
    return fitted


def _convert(data: Any, tp: Any, path: str, cx: Cx) -> Any:
    """`data` as the Anthropic type `tp`; None (reported Invalid at `path`) when it is not one."""
    try:
        return convert_kept(data, tp, path, cx, "the Anthropic value of this place")
    except (msgspec.ValidationError, ValueError, TypeError) as exc:
        cx.report(path, "Invalid", f"not a valid Anthropic value ({described(exc)}); dropped")
        return None


def _written(data: Any, tp: Any, path: str, cx: Cx) -> Any:
    """A block the writers here built from Lux values (``_text_out``, ``_tool_use_out``,
    ``_tool_result_out``, ``_thinking_out``, ``_block_out``) as the Anthropic type `tp`, as
    :func:`_convert` gives it. Such a block holds the members its writer names, each one `tp`
    defines, and the members kept for its object in the side-car (``anthropic.members``); once
    that space is known to keep nothing (Cx.has_kept), no member can be one `tp` leaves out, so
    only the conversion runs."""
    if cx.has_kept(MEMBERS):
        return _convert(data, tp, path, cx)
    try:
        return convert_as(data, tp)
    except (msgspec.ValidationError, ValueError, TypeError) as exc:
        cx.report(path, "Invalid", f"not a valid Anthropic value ({described(exc)}); dropped")
        return None


def _kept_members(path: str, keys: tuple[str, ...], cx: Cx) -> dict[str, Any]:
    if not cx.keeps(MEMBERS, path):  # nothing kept for this object: every key is UNSET
        return {}
    found = {}
    for key in keys:
        value = cx.kept(MEMBERS, path, key, "json")
        if value is not UNSET:
            found[key] = value
    return found


def _text_out(text: str, path: str, cx: Cx, members: dict[str, Any], empty_text: bool = False) -> dict[str, Any] | None:
    if not text and not empty_text:
        cx.report(path, "Degraded", "an Anthropic text block in a list cannot be empty; dropped")
        return None
    return {"type": "text", "text": text, **members}


def _image_out(media: LucentMultimedia, path: str, cx: Cx) -> dict[str, Any] | None:
    at = f"{path}.image"
    if media.source == "inline":
        if media.media_type not in _IMAGE_MEDIA_TYPES:
            cx.report(at, "Unsupported", f"Anthropic images are {', '.join(_IMAGE_MEDIA_TYPES)}; an image of another media type ({shown(media.media_type)}) is dropped")
            return None
        data = cx.kept("media", at, "data", "string")
        if data is UNSET:
            cx.report(at, "Invalid", "inline image without its bytes (extra.media[<its Lux path>].data); dropped")
            return None
        return {"type": "image", "source": dict(type="base64", media_type=media.media_type, data=data)}
    if media.source == "url":
        url = cx.kept("media", at, "url", "string")
        if url is UNSET:
            cx.report(at, "Invalid", "url image without its URL (extra.media[<its Lux path>].url); dropped")
            return None
        found = _DATA_URL.match(url)
        if found and found.group(1) in _IMAGE_MEDIA_TYPES:
            # a data URL (as OpenAI sends images) is base64 data with its media type
            return {"type": "image", "source": dict(type="base64", media_type=found.group(1), data=url[found.end():])}
        if media.media_type not in (URL_IMAGE_MEDIA_TYPE, url_image_media_type(url)):  # else the URL gives it back
            cx.report(f"{at}.media_type", "Degraded", "an Anthropic URL image names no media type; this one is not what the URL's file name gives back")
        return {"type": "image", "source": dict(type="url", url=url)}
    cx.report(at, "Unsupported", "Anthropic images are base64 data or a URL; a file_uri image is dropped")
    return None


def _thinking_out(thinking: LucentThinking, at: str, cx: Cx, holder: str) -> dict[str, Any] | None:
    """A Lux thinking (at its Lux path `at`, in the block or item at `holder`) as a thinking or
    redacted_thinking block; without a signature the block or item is dropped, and named at
    `holder` (as an Anthropic stream names the block it drops)."""
    if thinking.summary is not UNSET:
        cx.report(f"{at}.summary", "Unsupported", "Anthropic thinking blocks have no summary; dropped")
    if thinking.signature is UNSET:
        cx.report(holder, "Unsupported", "Anthropic replays a thinking block only with the signature it issued; a thinking block without one is dropped")
        return None
    if thinking.redacted:
        if thinking.text:
            cx.report(f"{at}.text", "Unsupported", "an Anthropic redacted_thinking block holds only its data; the text is dropped")
        return {"type": "redacted_thinking", "data": thinking.signature}
    return {"type": "thinking", "thinking": thinking.text, "signature": thinking.signature}


def _tool_input(arguments: str, path: str, cx: Cx) -> dict[str, Any]:
    plain = plain_json_object(arguments)  # read in C, the object load_json_text reads
    if plain is not None:  # compact text is its value's own writing; other text, unless a number is rounded, the same value
        if not is_compact_text(arguments, *plain) and not same_json_value(arguments, plain[0]):
            cx.report(path, "Degraded", "the arguments text is written as the JSON object it holds; a number in it is rounded")
        return plain[0]
    try:
        value = load_json_text(arguments)
    except JsonTextError as exc:
        if not arguments.strip():
            cx.report(path, "Degraded", "empty tool arguments written as the input {}")
            return {}
        cx.report(path, "Invalid", f"Anthropic tool input is a JSON object; the arguments are not JSON ({exc.problem}); written as " + _EMPTY)
        return {}
    if not isinstance(value, dict):
        cx.report(path, "Invalid", f"Anthropic tool input is a JSON object; the arguments are JSON text of {shown(value)}; written as " + _EMPTY)
        return {}
    if not same_json_value(arguments, value):
        cx.report(path, "Degraded", "the arguments text is written as the JSON object it holds; a number in it is rounded")
    return value


def _tool_use_out(use: LucentToolUse, at: str, cx: Cx) -> dict[str, Any]:
    """A Lux tool use (at its Lux path `at`) as a tool_use block."""
    return {
        "type": "tool_use",
        "id": _fitted(use.id, "id", f"{at}.id", cx),
        "name": _fitted(use.name, "name", f"{at}.name", cx),
        "input": _tool_input(use.arguments, f"{at}.arguments", cx),
        **_kept_members(at, ("cache_control", "caller"), cx),
        **({"caller": dict(DIRECT_CALLER)} if cx.keeps(MEMBERS, at) and cx.kept(MEMBERS, at, "caller_direct", "boolean") is True else {}),
    }


def _tool_result_out(result: LucentToolResult, at: str, cx: Cx) -> dict[str, Any]:
    """A Lux tool_result (at its Lux path `at`) as an Anthropic tool_result block."""
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": _fitted(result.tool_use_id, "id", f"{at}.tool_use_id", cx)}
    form = cx.kept(MEMBERS, at, "content_form", ("blocks", "absent"))
    content = _content_out(result.content, f"{at}.content", at, cx, _RESULT_BLOCKS, form)
    if content is not None:
        block["content"] = content
    if result.is_error:
        block["is_error"] = True
    block.update(_kept_members(at, ("is_error", "cache_control"), cx) if not result.is_error else _kept_members(at, ("cache_control",), cx))
    return block


_RESULT_BLOCKS = ("text", "image")


def _block_out(block: LucentContent, path: str, cx: Cx, allowed: tuple[str, ...] | None, empty_text: bool = False) -> dict[str, Any] | None:
    """One Lux block as an Anthropic block (a dict); None when it is dropped (reported).
    `empty_text`: a text block may be empty (a response's; a request's may not)."""
    kind = _tag(block)
    if allowed is not None and kind not in allowed and kind != "refusal":
        cx.report(path, "Unsupported", f"an Anthropic tool result holds text and images; a {kind} block is dropped")
        return None
    if isinstance(block, LucentContentText):
        if block.annotations is not UNSET:
            cx.report(f"{path}.annotations", "Unsupported", "Anthropic text blocks have no Lux annotations; dropped")
        return _text_out(block.text, path, cx, _kept_members(path, ("cache_control", "citations"), cx), empty_text)
    if isinstance(block, LucentContentRefusal):
        cx.report(path, "Degraded", "Anthropic has no refusal block; written as a text block")
        return _text_out(block.refusal, path, cx, {}, empty_text)
    if isinstance(block, LucentContentImage):
        image = _image_out(block.image, path, cx)
        return None if image is None else {**image, **_kept_members(path, ("cache_control",), cx)}
    if isinstance(block, LucentContentThinking):
        return _thinking_out(block.thinking, f"{path}.thinking", cx, path)
    if isinstance(block, LucentContentToolUse):
        return _tool_use_out(block.tool_use, f"{path}.tool_use", cx)
    if isinstance(block, LucentContentToolResult):
        return _tool_result_out(block.tool_result, f"{path}.tool_result", cx)
    cx.report(path, "Unsupported", f"Anthropic messages have no {kind} blocks; dropped")
    return None


def _merge_verbatim(blocks: list[Any], holder: str, tp: Any, cx: Cx) -> None:
    entries = cx.kept(MEMBERS, holder, "blocks", "array")
    if entries is UNSET:
        return
    _insert_kept_blocks(blocks, entries, member(f"{cx.sidecar_path}.{MEMBERS}", holder) + ".blocks", tp, cx)


def _insert_kept_blocks(blocks: list[Any], entries: list[Any], where: str, tp: Any, cx: Cx) -> None:
    """Put kept ``{index, value}`` entries (blocks Lux has no home for) back into ``blocks`` at
    their index, each converted to ``tp``; an entry of another shape is Invalid at ``where[n]``."""
    found = []
    for n, entry in enumerate(entries):
        index = entry.get("index") if isinstance(entry, dict) else None
        if not isinstance(index, int) or isinstance(index, bool) or set(entry) != {"index", "value"}:
            cx.report(f"{where}[{n}]", "Invalid", "not an {index, value} entry; ignored")
            continue
        value = _convert(entry["value"], tp, f"{where}[{n}].value", cx)
        if value is not None:
            found.append((index, value))
    for index, value in sorted(found, key=lambda pair: pair[0]):
        blocks.insert(min(max(index, 0), len(blocks)), value)


def _content_out(
    content: list[LucentContent], path: str, holder: str, cx: Cx, allowed: tuple[str, ...] | None, form: Any
) -> str | list[Any] | None:
    """Lux blocks as Anthropic content: a string for one plain text block (unless the content
    form kept says blocks), else the blocks with the verbatim ones put back at their index; None
    when the form kept says absent and there is nothing to write."""
    if form == "absent" and not content:
        kept: list[Any] = []
        _merge_verbatim(kept, holder, _verbatim_type(allowed), cx)
        return kept or None
    if len(content) == 1 and isinstance(content[0], LucentContentText) and form != "blocks":
        only = content[0]
        if only.annotations is UNSET and not _kept_members(f"{path}[0]", ("cache_control", "citations"), cx):
            if cx.kept(MEMBERS, holder, "blocks", "array") is UNSET:
                return only.text
    blocks = []
    for i, block in enumerate(content):
        written = _block_out(block, f"{path}[{i}]", cx, allowed)
        if written is not None:
            converted = _written(written, _verbatim_type(allowed), f"{path}[{i}]", cx)
            if converted is not None:
                blocks.append(converted)
    _merge_verbatim(blocks, holder, _verbatim_type(allowed), cx)
    if form != "blocks" and len(blocks) == 1 and _text_is_plain(blocks[0]):
        return cast("RequestTextBlock", blocks[0]).text  # the other blocks were dropped (reported)
    return blocks


_RESULT_CONTENT: Any = RequestTextBlock | RequestImageBlock | RequestSearchResultBlock | RequestDocumentBlock | RequestToolReferenceBlock
"""What a tool_result's content list holds (RequestToolResultBlock.content)."""


def _verbatim_type(allowed: tuple[str, ...] | None) -> Any:
    return InputContentBlock if allowed is None else _RESULT_CONTENT


@reports("Degraded", "Unsupported", "Invalid")
@reads("max_tokens")
def anthropic_max_tokens(value: int | UnsetType, path: str, cx: Cx) -> int:
    """max_tokens: the caller's context["max_tokens"] (a different max_output_tokens is reported
    Degraded; none at all is reported Degraded at target:$.max_tokens, since it comes back as a
    max_output_tokens the Lux request did not have), else options.max_output_tokens; a value
    below 0 (Anthropic's minimum) is left out; found nowhere: Invalid target:$.max_tokens."""
    given = cx.from_context("max_tokens", "integer", "$.max_tokens")
    if given is not UNSET and given < 0:
        cx.report("target:$.max_tokens", "Invalid", f"context['max_tokens'] is {given}; Anthropic max_tokens has minimum 0")
        given = UNSET
    if value is not UNSET and value < 0:
        left_out(value, path, cx, "Anthropic max_tokens has minimum 0")
        value = UNSET
    if given is not UNSET:
        if value is UNSET:
            cx.report("target:$.max_tokens", "Degraded", "the caller's context['max_tokens']: the Lux request has no max_output_tokens, and this one comes back as one")
        return cast("int", cx.prefer(given, value, path, "max_tokens"))
    if value is UNSET:
        cx.missing("$.max_tokens", "max_tokens", "Anthropic requires max_tokens")
    return cast("int", value)


@skips_absent
@reports("Degraded", "Unsupported", "Invalid")
def anthropic_system(instructions: list[LucentContent] | UnsetType, path: str, cx: Cx, carried: str) -> str | list[RequestTextBlock] | UnsetType:
    """The instruction blocks as the system prompt: one plain text block is a string (unless the
    carried system_form says blocks), else text blocks; other blocks are Unsupported."""
    if instructions is UNSET:
        return UNSET
    form = cx.from_carried(carried, ("blocks",))
    texts: list[RequestTextBlock] = []
    for i, block in enumerate(instructions):
        at = f"{path}[{i}]"
        if not isinstance(block, (LucentContentText, LucentContentRefusal)):
            cx.report(at, "Unsupported", f"the Anthropic system prompt is text; a {_tag(block)} block is dropped")
            continue
        written = _block_out(block, at, cx, None)
        if written is not None:
            converted = _written(written, RequestTextBlock, at, cx)
            if converted is not None:
                texts.append(converted)
    if form is UNSET and len(instructions) == 1 and isinstance(instructions[0], LucentContentText):
        only = instructions[0]
        if not texts or (texts[0].cache_control is UNSET and texts[0].citations is UNSET):
            return only.text
    return texts


class _Turns:
    """The Anthropic messages written so far, and which were opened for Lux items."""

    def __init__(self) -> None:
        self.messages: list[InputMessage] = []
        self.opened: set[int] = set()

    def join(self, role: str, block: Any, path: str, cx: Cx) -> None:
        """Append `block` to the last message when it has `role` and was opened for items, else
        open a new message of `role` for it."""
        last = self.messages[-1] if self.messages else None
        if last is not None and id(last) in self.opened and last.role == role and isinstance(last.content, list):
            last.content.append(block)
            return
        message = InputMessage(role=cast("Any", role), content=[block])
        self.messages.append(cx.built(path, message))
        self.opened.add(id(message))


_ROLES = {"user": "user", "assistant": "assistant", "system": "system", "model": "assistant", "developer": "system", "tool": "user"}


@reports("Degraded", "Unsupported", "Invalid")
def anthropic_messages(conversation: list[LucentConversationItem], path: str, cx: Cx) -> list[InputMessage]:
    """The conversation as Anthropic messages: a message keeps its position (model -> assistant,
    developer -> system, tool -> user, Degraded); tool_call and reasoning items join the
    assistant message opened for items before them (or open one), tool_result items the user
    message opened for items (or open one), Degraded; agent_action items are Unsupported."""
    turns = _Turns()
    for i, item in enumerate(conversation):
        at = f"{path}[{i}]"
        if isinstance(item, LucentConversationItemMessage):
            message = item.message
            mpath = f"{at}.message"
            role = _ROLES[message.role]
            if role != message.role:
                cx.report(f"{mpath}.role", "Degraded", f"Anthropic has no {message.role} role; written as {role}")
            form = cx.kept(MEMBERS, mpath, "content_form", ("blocks",))
            content = _content_out(message.content, f"{mpath}.content", mpath, cx, None, form)
            turns.messages.append(cx.built(mpath, InputMessage(role=cast("Any", role), content=content if content is not None else [])))
        elif isinstance(item, LucentConversationItemToolCall):
            restructured(cx, at, "tool_call_place", "Anthropic has no tool call items; written as a tool_use block of an assistant message")
            block = _written(_tool_use_out(item.tool_call, f"{at}.tool_call", cx), RequestToolUseBlock, at, cx)
            if block is not None:
                turns.join("assistant", block, at, cx)
        elif isinstance(item, LucentConversationItemToolResult):
            restructured(cx, at, "tool_result_place", "Anthropic has no tool result items; written as a tool_result block of a user message")
            block = _written(_tool_result_out(item.tool_result, f"{at}.tool_result", cx), RequestToolResultBlock, at, cx)
            if block is not None:
                turns.join("user", block, at, cx)
        elif isinstance(item, LucentConversationItemReasoning):
            thinking = _thinking_out(item.reasoning, f"{at}.reasoning", cx, at)
            if thinking is not None:
                cx.report(at, "Degraded", "Anthropic has no reasoning items; written as a thinking block of an assistant message")
                block = _written(thinking, InputContentBlock, at, cx)
                if block is not None:
                    turns.join("assistant", block, at, cx)
        else:
            cx.report(at, "Unsupported", "Anthropic has no agent actions; dropped")
    return turns.messages


_TOOL_MEMBERS = ("type", "cache_control", "eager_input_streaming", "allowed_callers", "defer_loading", "input_examples")


def _input_schema(parameters: Any, path: str, cx: Cx) -> dict[str, Any]:
    """Lux tool parameters as an Anthropic input_schema (a JSON Schema object of type object)."""
    if parameters is None:
        cx.report(path, "Degraded", 'no parameters; written as the input_schema {"type": "object"}')
        return {"type": "object"}
    if not isinstance(parameters, dict):
        cx.report(path, "Invalid", f"an Anthropic input_schema is a JSON object, not {shown(parameters)}; written as " + _OBJECT_SCHEMA)
        return {"type": "object"}
    schema = dict(parameters)
    if schema.get("type", "object") != "object":
        cx.report(f"{path}.type", "Invalid", f'an Anthropic input_schema has type "object"; another type ({shown(schema["type"])}) written as "object"')
    if "type" not in schema:
        cx.report(path, "Degraded", 'an Anthropic input_schema states its type; "type": "object" added')
    schema["type"] = "object"
    for key in ("properties", "required"):
        if key in schema and schema[key] is not None and not isinstance(schema[key], dict if key == "properties" else list):
            cx.report(f"{path}.{key}", "Invalid", f"an Anthropic input_schema {key} is a JSON {'object' if key == 'properties' else 'array'}; dropped")
            del schema[key]
    if isinstance(schema.get("required"), list) and not all(isinstance(r, str) for r in schema["required"]):
        cx.report(f"{path}.required", "Invalid", "an Anthropic input_schema required lists strings; dropped")
        del schema["required"]
    return schema


@reports("Degraded")
def fitted_name(name: str, path: str, cx: Cx) -> str:
    """A tool name Anthropic can hold (see _fitted), the same replacement wherever it is used."""
    return _fitted(name, "name", path, cx)


@reports("Degraded", "Invalid")
def input_schema(parameters: Any, path: str, cx: Cx) -> dict[str, Any]:
    """Lux tool parameters as an Anthropic input_schema: the JSON Schema object as it is, with
    type "object" (see _input_schema). Every keyword is written, top-level ones the InputSchema
    binding does not name (additionalProperties, $defs, description, ...) too: Anthropic's
    input_schema is an open object, and a strict tool's ``additionalProperties: false`` is part
    of what ``strict: true`` enforces. The value is checked as an InputSchema (type, properties,
    required); one that is not is written as ``{"type": "object"}``."""
    schema = _input_schema(parameters, path, cx)
    try:
        convert_as(schema, InputSchema)  # the check only: the binding keeps the named members
    except (msgspec.ValidationError, ValueError, TypeError) as exc:
        cx.report(path, "Invalid", f"not a valid Anthropic value ({described(exc)}); dropped")
        return {"type": "object"}
    return schema


@reports("Invalid")
def tools_as_types(tools: list[Any], cx: Cx) -> None:
    """The tools written as JSON objects (client tools, and the server tools merged back from
    extra.anthropic.tools) as Anthropic tool types; one that is not an Anthropic tool is reported
    Invalid at its source path and dropped."""
    where = f"{cx.carried_path}.tools"
    kept = [i for i, tool in enumerate(tools) if isinstance(tool, dict) and not _built_from(tool, cx)]
    for i in range(len(tools) - 1, -1, -1):
        tool = tools[i]
        if not isinstance(tool, dict):
            continue
        origin = _built_from(tool, cx)
        at = origin or f"{where}[{kept.index(i)}].value"
        try:
            converted = dispatch_CreateMessageParamsToolsItem(tool, "")
        except (RuleViolation, ValueError, TypeError) as exc:
            cx.report(at, "Invalid", f"not an Anthropic tool ({described(exc)}); dropped")
            del tools[i]
            continue
        tools[i] = cx.built(at, converted) if origin else converted


def _built_from(value: Any, cx: Cx) -> str | None:
    record = cx._built.get(id(value))
    return record[1] if record is not None and record[0] is value else None


@reports("Degraded", "Unsupported", "Invalid")
def anthropic_tool_choice(choice: LucentToolChoice | UnsetType, path: str, cx: Cx, carried: str) -> ToolChoice | UnsetType:
    """auto -> auto, none -> none, required -> any, specific_tool -> tool; the carried
    disable_parallel_tool_use is put back (Unsupported on none, or without a tool_choice)."""
    disable = cx.from_carried(carried, "boolean")
    where = member(cx.carried_path, carried)
    if choice is UNSET:
        if disable is not UNSET:
            cx.report(where, "Unsupported", "disable_parallel_tool_use needs a tool_choice, and the Lux request has none")
        return UNSET
    if choice == "none":
        if disable is not UNSET:
            cx.report(where, "Unsupported", "tool_choice none takes no disable_parallel_tool_use")
        return cx.built(path, ToolChoiceNone())
    if choice == "auto":
        return cx.built(path, ToolChoiceAuto(disable_parallel_tool_use=disable))
    if choice == "required":
        return cx.built(path, ToolChoiceAny(disable_parallel_tool_use=disable))
    name = _fitted(choice.name, "name", f"{path}.name", cx)
    return cx.built(path, ToolChoiceTool(name=name, disable_parallel_tool_use=disable), {"name": "name"})


@reports("Unsupported", "Invalid")
def anthropic_thinking(reasoning: LucentReasoningConfig | UnsetType, path: str, cx: Cx) -> ThinkingConfigParam | UnsetType:
    """enabled with budget_tokens (>= 1024) -> enabled; enabled without -> adaptive; enabled
    false -> disabled, or no thinking when extra.anthropic.thinking_absent says so. The display
    kept in extra.anthropic.thinking_display is put back; summary is Unsupported."""
    display = None if cx.carried.get("thinking_display", UNSET) is None else cx.from_carried("thinking_display", ("summarized", "omitted"))
    if reasoning is UNSET or not reasoning.enabled:
        if display is not UNSET:
            cx.report(f"{cx.carried_path}.thinking_display", "Unsupported", "a thinking display needs thinking enabled, and the Lux request has none")
    if reasoning is UNSET:
        return UNSET
    if reasoning.summary is not UNSET:
        cx.report(f"{path}.summary", "Unsupported", "Anthropic has no reasoning summary setting; dropped")
    if not reasoning.enabled:
        if reasoning.budget_tokens is not UNSET:
            cx.report(f"{path}.budget_tokens", "Unsupported", "disabled thinking takes no budget; dropped")
        if cx.from_carried("thinking_absent", "boolean") is True:
            return UNSET
        return cx.built(path, ThinkingConfigDisabled())
    budget = reasoning.budget_tokens
    if budget is not UNSET and budget < 1024:
        cx.report(f"{path}.budget_tokens", "Unsupported", "Anthropic thinking budget_tokens has minimum 1024; a smaller budget is left out (adaptive thinking)")
        budget = UNSET
    if budget is UNSET:
        return cx.built(path, ThinkingConfigAdaptive(display=display))
    return cx.built(path, ThinkingConfigEnabled(budget_tokens=budget, display=display), {"budget_tokens": "budget_tokens"})


@reports("Degraded", "Unsupported", "Invalid")
def anthropic_output_config(
    reasoning: LucentReasoningConfig | UnsetType, output: LucentStructuredOutput | UnsetType, path: str, cx: Cx
) -> OutputConfig | UnsetType:
    """reasoning.effort -> effort (or the level kept in extra.anthropic.output_config);
    json_schema -> format {type: json_schema, schema}; json_object -> format with the schema
    {"type": "object"} (Degraded); text is the default (nothing written)."""
    rest: dict[str, Any] | UnsetType = cx.from_carried("output_config", "object")
    members: dict[str, Any] = {}
    effort = UNSET if reasoning is UNSET else reasoning.effort
    if effort is not UNSET:
        members["effort"] = effort
    base = path.rsplit(".", 1)[0]
    if output == "text":
        cx.report(f"{base}.options.structured_output", "Degraded", "text output is the Anthropic default; nothing is written")
    elif output == "json_object":
        cx.report(f"{base}.options.structured_output", "Degraded", 'Anthropic has no JSON mode without a schema; written as the schema {"type": "object"}')
        members["format"] = {"type": "json_schema", "schema": dict(type="object")}
    elif isinstance(output, LucentStructuredOutputJsonSchema):
        if isinstance(output.schema, dict):
            members["format"] = {"type": "json_schema", "schema": output.schema}
        else:
            cx.report(f"{base}.options.structured_output.schema", "Invalid", f"an Anthropic output schema is a JSON object, not {shown(output.schema)}; dropped")
    if rest is not UNSET:
        where = f"{cx.carried_path}.output_config"
        for key, value in rest.items():
            if key == "effort" and (value is None or value in ("xhigh", "max")) and members.get("effort", "high" if value else UNSET) in ("high", UNSET):
                members["effort"] = value
            elif key == "format" and value is None and "format" not in members:
                members["format"] = None
            else:
                cx.report(member(where, key), "Unsupported", "not an output_config member the Lux request leaves unsaid; ignored")
    if not members and rest is UNSET:
        return UNSET
    converted = _convert(members, OutputConfig, path, cx)
    return UNSET if converted is None else cast("OutputConfig", cx.built(path, converted))


@reports("Unsupported", "Invalid")
def anthropic_metadata(metadata: dict[str, str] | UnsetType, path: str, cx: Cx, carried: str) -> Metadata | UnsetType:
    """metadata.user_id (at most 512 characters); other Lux metadata keys are Unsupported; a
    metadata kept verbatim in extra.anthropic.metadata when the Lux one has none."""
    user_id: Any = UNSET
    if metadata is not UNSET:
        for key, value in metadata.items():
            if key != "user_id":
                cx.report(member(path, key), "Unsupported", "Anthropic metadata holds only user_id")
            elif len(value) > 512:
                cx.report(member(path, key), "Unsupported", f"Anthropic metadata user_id has maxLength 512; {len(value)} characters left out")
            else:
                user_id = value
    if user_id is not UNSET:
        return cx.built(path, Metadata(user_id=cast("str", user_id)), {"user_id": "user_id"})
    kept: dict[str, Any] | UnsetType = cx.from_carried(carried, "object")
    if kept is not UNSET:
        converted = _convert(kept, Metadata, member(cx.carried_path, carried), cx)
        return UNSET if converted is None else cast("Metadata", converted)
    return UNSET


@reports("Invalid")
def anthropic_stream(stream: bool, path: str, cx: Cx, carried: str) -> bool | UnsetType:
    """stream true; false is the default, written only when extra.anthropic.stream says false."""
    if stream:
        return True
    return False if cx.from_carried(carried, "boolean") is False else UNSET


@skips_absent
@reports("Unsupported", "Invalid")
def carried_cache_control(value: Any, path: str, cx: Cx) -> CacheControlEphemeral | None | UnsetType:
    """The request-level cache_control kept in extra.anthropic (null kept as null)."""
    return cast("CacheControlEphemeral | None | UnsetType", _carried_as(value, CacheControlEphemeral, path, cx))


def _carried_as(value: Any, tp: Any, path: str, cx: Cx) -> Any:
    """A kept member as the Anthropic type `tp` (null kept as null; UNSET for none, or for one
    that is not a `tp`, reported Invalid)."""
    if value is UNSET or value is None:
        return value
    converted = _convert(value, tp, path, cx)
    return UNSET if converted is None else converted


# ============================================================= Anthropic response -> Lux response

# stop_reason -> Lux finish_reason; the reasons a finish reason gives back need nothing kept
_FINISH = cast("dict[str, LucentFinishReason]", STOP_REASON_TO_LUX)
_STOP = {finish: reason for finish, reason in STOP_REASON_FROM_LUX.items() if finish_reason_exact(finish)}
_USAGE_KEPT = USAGE_KEPT


def _has_tool_use(content: Any) -> bool:
    return isinstance(content, list) and any(isinstance(block, (ResponseToolUseBlock, LucentContentToolUse)) for block in content)


@reports("Degraded", "Invalid")
def lux_response_blocks(content: list[ContentBlock], path: str, cx: Cx) -> list[LucentContent]:
    """The content blocks as Lux blocks, in order (text, thinking, redacted thinking, tool_use);
    the server tool blocks, which Lux has no block for, are left to response_blocks_kept."""
    blocks = []
    for index, block in enumerate(content if isinstance(content, list) else []):
        lux = _lux_block(block, f"{path}[{index}]", cx)
        if lux is not None:
            blocks.append(lux)
    return blocks


@reports("Degraded")
def response_blocks_kept(content: list[ContentBlock], path: str, cx: Cx) -> list[dict[str, Any]] | UnsetType:
    """The blocks Lux has no block for (server tool use and results, container uploads),
    verbatim as [{index, value}], each reported Degraded."""
    kept = []
    for index, block in enumerate(content if isinstance(content, list) else []):
        at = f"{path}[{index}]"
        if not isinstance(block, (ResponseTextBlock, ResponseThinkingBlock, ResponseRedactedThinkingBlock, ResponseToolUseBlock)):
            kept.append(cx.built(at, {"index": index, "value": _verbatim(block, at, cx)}, {"value": ""}))
    return kept if kept else UNSET


def lux_finish_reason(stop_reason: StopReason | None | UnsetType, content: list[ContentBlock], path: str, cx: Cx) -> LucentFinishReason:
    """end_turn / stop_sequence / pause_turn -> stop, max_tokens / model_context_window_exceeded
    -> length, tool_use -> tool_calls, refusal -> content_filter; none (null) -> tool_calls when
    the content has a tool_use block, else stop."""
    if isinstance(stop_reason, str):
        return _FINISH[stop_reason]
    return "tool_calls" if _has_tool_use(content) else "stop"


@reports("Degraded")
def stop_reason_kept(
    stop_reason: StopReason | None | UnsetType, stop_sequence: str | None | UnsetType, path: str, cx: Cx
) -> str | None | UnsetType:
    """A stop_reason the Lux finish reason does not give back (pause_turn,
    model_context_window_exceeded, null, and stop_sequence without the sequence matched),
    reported Degraded; an absent one is reported (the finish reason is derived) and marked by
    stop_reason_absent."""
    if stop_reason is UNSET:
        cx.report(path, "Degraded", "no stop_reason; the Lux finish reason is derived from the content (marked provider_payload.anthropic.stop_reason_absent)")
        return UNSET
    if stop_reason == "stop_sequence" and not isinstance(stop_sequence, str):
        return stop_reason
    if stop_reason == "stop_sequence":
        # Lux says stop for both end_turn and stop_sequence: which one comes back from the kept
        # stop_sequence, so a target without that side-car loses it (named here).
        cx.report(path, "Degraded", "Lux has no finish reason stop_sequence; the Lux finish reason is stop, and the matched sequence kept in provider_payload.anthropic.stop_sequence gives it back")
        return UNSET
    if stop_reason in ("end_turn", "max_tokens", "tool_use", "refusal"):
        return UNSET
    finish = "derived from the content" if stop_reason is None else _FINISH[stop_reason]
    cx.report(path, "Degraded", f"Lux has no finish reason {written(stop_reason)}; the Lux finish reason is {finish}, and the stop_reason is kept in provider_payload.anthropic.stop_reason")
    return stop_reason


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def lux_usage(usage: Usage, path: str, cx: Cx) -> LucentUsage:
    """Usage with Lux's inclusive counts: prompt_tokens = input_tokens + cache_read_input_tokens
    + cache_creation_input_tokens (Anthropic counts cache reads and writes apart from
    input_tokens; Lux and OpenAI count them inside the prompt), cached_tokens = the cache reads,
    cache_creation_tokens = the cache writes, completion_tokens = output_tokens,
    reasoning_tokens = output_tokens_details.thinking_tokens, total = prompt + completion."""
    if not isinstance(usage, Usage):
        return cast("LucentUsage", UNSET)  # an invalid source: reported when it was built
    read = getattr(usage, "cache_read_input_tokens", UNSET)
    write = getattr(usage, "cache_creation_input_tokens", UNSET)
    details = getattr(usage, "output_tokens_details", UNSET)
    prompt = usage.input_tokens + _count(read) + _count(write)
    lux = LucentUsage(
        prompt_tokens=prompt,
        completion_tokens=usage.output_tokens,
        total_tokens=prompt + usage.output_tokens,
        cached_tokens=read if isinstance(read, int) else UNSET,
        cache_creation_tokens=write if isinstance(write, int) else UNSET,
        reasoning_tokens=details.thinking_tokens if details is not UNSET and details is not None else UNSET,
    )
    origins = {"completion_tokens": "output_tokens", "cached_tokens": "cache_read_input_tokens", "cache_creation_tokens": "cache_creation_input_tokens", "reasoning_tokens": "output_tokens_details.thinking_tokens"}
    return cx.built(path, lux, {k: v for k, v in origins.items() if getattr(lux, k) is not UNSET})


@reports("Degraded")
def kept_unless_null(value: Any, path: str, cx: Cx, status: Status, reason: str) -> Any:
    """A source value as plain JSON, reported; a null (the member's default: no stop sequence
    matched, no refusal details) is not kept, and :func:`null_flag` notes it."""
    if value is UNSET or value is None:
        return UNSET
    cx.report(path, status, reason)
    return _plain(value)


def null_flag(value: Any, path: str, cx: Cx) -> bool | UnsetType:
    """True when the source member is a JSON null (written back as null), else nothing."""
    return True if value is None else UNSET


_ZERO_CACHE_CREATION: dict[str, int] = {"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 0}


def _zero_cache_creation(usage: Any) -> bool:
    """The usage's cache_creation says no more than cache_creation_input_tokens 0 does: both
    TTLs 0 (what Anthropic reports for a request that wrote no cache)."""
    value = getattr(usage, "cache_creation", UNSET)
    return value is not UNSET and value is not None and _plain(value) == _ZERO_CACHE_CREATION and getattr(usage, "cache_creation_input_tokens", UNSET) == 0


def cache_creation_zero_flag(usage: Any, path: str, cx: Cx) -> bool | UnsetType:
    """True when the usage's cache_creation is all zero with cache_creation_input_tokens 0: it
    is not kept (Lux's cache_creation_tokens 0 says it), and the way back writes it again."""
    return True if isinstance(usage, Usage) and _zero_cache_creation(usage) else UNSET


@reports("Degraded")
def usage_kept(usage: Usage, path: str, cx: Cx) -> dict[str, Any] | UnsetType:
    """The usage members Lux has no count for, verbatim: cache_creation (by TTL), server_tool_use,
    service_tier and inference_geo (Degraded when not null), and the counts that are null (Lux
    has no null count; kept so that they come back as null)."""
    kept: dict[str, Any] = {}
    if not isinstance(usage, Usage):
        return UNSET
    for key in ("cache_read_input_tokens", "cache_creation_input_tokens", "output_tokens_details", *_USAGE_KEPT):
        value = getattr(usage, key, UNSET)
        if value is UNSET or (value is not None and key not in _USAGE_KEPT):
            continue
        if key == "cache_creation" and _zero_cache_creation(usage):
            continue  # said by cache_creation_tokens 0 (cache_creation_zero_flag)
        if value is not None:
            cx.report(f"{path}.{key}", "Degraded", f"Lux usage has no {key}; kept in provider_payload.anthropic.usage")
        kept[key] = _plain(value)
    return cx.sourced(kept, {k: f"{path}.{k}" for k in kept}) if kept else UNSET


# ============================================================= Lux response -> Anthropic response


@reports("Degraded", "Unsupported", "Invalid")
def anthropic_content(choices: list[Any], path: str, cx: Cx) -> list[ContentBlock]:
    """The first choice's blocks as content blocks (text, thinking, tool_use; a refusal as text,
    Degraded), with the blocks kept in provider_payload.anthropic.blocks put back at their index;
    other choices, and blocks a response cannot hold, are reported."""
    for n in range(1, len(choices)):
        cx.report(f"{path}[{n}]", "Unsupported", "an Anthropic response holds one message; other choices are dropped")
    blocks: list[Any] = []
    if choices:
        first = choices[0]
        at = f"{path}[0]"
        if first.index != 0:
            cx.report(f"{at}.index", "Unsupported", "an Anthropic response has no choice index")
        if first.message.role == "model":
            cx.report(f"{at}.message.role", "Degraded", "an Anthropic response is the assistant's; model written as assistant")
        elif first.message.role != "assistant":
            cx.report(f"{at}.message.role", "Unsupported", f"an Anthropic response is the assistant's; the role {first.message.role} is not kept")
        if first.safety_ratings is not UNSET:
            cx.report(f"{at}.safety_ratings", "Unsupported", "Anthropic reports no safety ratings")
        for i, block in enumerate(first.message.content):
            bpath = f"{at}.message.content[{i}]"
            if isinstance(block, (LucentContentImage, LucentContentAudio, LucentContentVideo, LucentContentToolResult)):
                cx.report(bpath, "Unsupported", f"an Anthropic response holds no {_tag(block)} blocks; dropped")
                continue
            written = _block_out(block, bpath, cx, None, empty_text=True)
            if written is None:
                continue
            converted = _convert(written, ContentBlock, bpath, cx)
            if converted is not None:
                blocks.append(cx.built(bpath, converted))  # recorded: its kept members come back to it
    _merge_response_blocks(blocks, cx)
    cx.report_unread_entries(MEMBERS)
    return blocks


def _merge_response_blocks(blocks: list[Any], cx: Cx) -> None:
    entries = cx.from_carried("blocks", "array")
    if entries is UNSET:
        return
    _insert_kept_blocks(blocks, entries, f"{cx.carried_path}.blocks", ContentBlock, cx)


@reports("Degraded", "Invalid")
def anthropic_stop_reason(choices: list[Any], path: str, cx: Cx) -> StopReason | None | UnsetType:
    """The stop_reason kept in provider_payload.anthropic, else the first choice's finish reason:
    stop -> end_turn (stop_sequence when a stop_sequence is kept), length -> max_tokens,
    tool_calls -> tool_use, content_filter -> refusal; safety and recitation -> refusal,
    malformed_tool_call -> tool_use and error -> end_turn are Degraded."""
    if cx.from_carried("stop_reason_absent", "boolean") is True:
        return UNSET
    if not choices:
        return cast("StopReason | None | UnsetType", _kept_stop_reason(cx))
    finish = choices[0].finish_reason
    kept = _kept_stop_reason(cx)
    if kept is not UNSET:
        return cast("StopReason | None", kept)
    if finish == "stop" and isinstance(cx.carried.get("stop_sequence"), str):
        return "stop_sequence"
    if finish in _STOP:
        return cast("StopReason", _STOP[finish])
    written = STOP_REASON_FROM_LUX[finish]
    cx.report(f"{path}[0].finish_reason", "Degraded", f"Anthropic has no stop reason {finish}; written as {written}")
    return cast("StopReason", written)


def _kept_stop_reason(cx: Cx) -> Any:
    if "stop_reason" not in cx.carried:
        return UNSET
    value = cx.carried["stop_reason"]
    if value is None or (isinstance(value, str) and value in _FINISH):
        return value
    what = "a string that is not one of " + ", ".join(_FINISH) if isinstance(value, str) else f"{shown(value)}, not a string or null"
    cx.report(f"{cx.carried_path}.stop_reason", "Invalid", f"an Anthropic stop_reason is one of its stop reasons or null; this is {what}; ignored")
    return UNSET


@reports("Unsupported", "Invalid")
def anthropic_usage(usage: LucentUsage | UnsetType, path: str, cx: Cx, carried: str) -> Usage:
    """input_tokens = prompt_tokens - cached_tokens - cache_creation_tokens (Lux counts are
    inclusive; Anthropic counts cache reads and writes apart), output_tokens =
    completion_tokens, cache_read_input_tokens / cache_creation_input_tokens /
    output_tokens_details.thinking_tokens from cached_tokens / cache_creation_tokens /
    reasoning_tokens; the members kept in provider_payload.anthropic.usage are put back. A
    total_tokens that is not prompt + completion is Unsupported."""
    if usage is UNSET:
        return present(UNSET)  # declared unreachable: the converter reports it Invalid at target:$.usage
    kept = cx.from_carried(carried, "object")
    kept = {} if kept is UNSET else kept
    read = usage.cached_tokens
    write = usage.cache_creation_tokens
    input_tokens = usage.prompt_tokens - _count(read) - _count(write)
    if input_tokens < 0:
        cx.report(f"{path}.prompt_tokens", "Invalid", "prompt_tokens is less than cached_tokens + cache_creation_tokens, which Lux counts inside it; input_tokens written as 0")
        input_tokens = 0
    if usage.total_tokens != usage.prompt_tokens + usage.completion_tokens:
        cx.report(f"{path}.total_tokens", "Unsupported", "Anthropic has no total; this one is not prompt_tokens + completion_tokens")
    members: dict[str, Any] = {"input_tokens": input_tokens, "output_tokens": usage.completion_tokens}
    if read is not UNSET:
        members["cache_read_input_tokens"] = read
    if write is not UNSET:
        members["cache_creation_input_tokens"] = write
    if usage.reasoning_tokens is not UNSET:
        members["output_tokens_details"] = {"thinking_tokens": usage.reasoning_tokens}
    where = member(cx.carried_path, carried)
    if cx.from_carried("cache_creation_zero", "boolean") is True and write == 0 and "cache_creation" not in kept:
        members["cache_creation"] = dict(_ZERO_CACHE_CREATION)  # the source's all-zero breakdown
    for key, value in kept.items():
        if key in members or key not in ("cache_read_input_tokens", "cache_creation_input_tokens", "output_tokens_details", *_USAGE_KEPT):
            cx.report(member(where, key), "Unsupported", "not a usage member the Lux usage leaves unsaid; ignored")
            continue
        members[key] = value
    try:
        converted = convert_as(members, Usage)
    except (msgspec.ValidationError, ValueError, TypeError) as exc:
        cx.report(path, "Invalid", f"not a valid Anthropic usage ({described(exc)}); dropped")
        return present(UNSET)
    # what Usage drops of the kept members (an unknown key of cache_creation...), at its side-car path
    written = msgspec.to_builtins(converted)
    report_unkept({k: members[k] for k in kept if k in members}, {k: written[k] for k in kept if k in written}, where, cx, "an Anthropic Usage")
    return cast("Usage", cx.built(path, converted))


@reports("Unsupported", "Invalid")
def carried_stop_details(value: Any, path: str, cx: Cx) -> RefusalStopDetails | None | UnsetType:
    """The stop_details kept in provider_payload.anthropic (null kept as null, or noted by
    stop_details_null)."""
    if value is UNSET and cx.from_carried("stop_details_null", "boolean") is True:
        return None
    if value is UNSET or value is None:
        return None if value is None else UNSET
    converted = _convert(value, RefusalStopDetails, path, cx)
    return UNSET if converted is None else cast("RefusalStopDetails", converted)


@reports("Invalid")
def carried_stop_sequence(value: Any, path: str, cx: Cx) -> str | None | UnsetType:
    """The stop_sequence kept in provider_payload.anthropic; null when stop_sequence_null notes
    that the source said null; else none."""
    if value is UNSET and cx.from_carried("stop_sequence_null", "boolean") is True:
        return None
    return cast("str | None | UnsetType", value)


@reports("Unsupported", "Invalid")
def carried_container(value: Any, path: str, cx: Cx) -> Container | None | UnsetType:
    """The container kept in provider_payload.anthropic (null kept as null)."""
    return cast("Container | None | UnsetType", _carried_as(value, Container, path, cx))
