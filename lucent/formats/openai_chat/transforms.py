"""The transforms of the OpenAI Chat Completions specs (openai-chat <-> Lux).

Each public function is one transform a spec may name; codegen/vocabulary/openai_chat.toml lists
them. Source: schemas/vendor/openai-chat.json
(CreateChatCompletionRequest, CreateChatCompletionResponse) and schemas/lux-ir-v1.json; the
decisions are written at the top of mappings/*openai_chat*.toml.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from msgspec import UNSET, UnsetType, ValidationError, to_builtins

from lucent._conversion import Cx, Expect, reads, reports, skips_absent, Status
from lucent._transforms import convert_kept, obj, own_or_sibling, present, shown, url_image_media_type
from lucent._forms import restructured
from lucent._validation import described, member
from lucent.formats.openai_chat.tables import FINISH_REASON_FROM_LUX, FINISH_REASON_LOSS, JOINED_REFUSAL, JOINED_TEXT
from lucent.formats.openai_responses.tables import LOGPROBS_INCLUDE
from lucent.generated.lux_ir_v1 import (
    LucentAnnotation,
    LucentContent,
    LucentContentAudio,
    LucentContentImage,
    LucentContentRefusal,
    LucentContentText,
    LucentContentThinking,
    LucentContentToolResult,
    LucentContentToolUse,
    LucentConversationItem,
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
    LucentTool,
    LucentToolChoice,
    LucentToolChoiceSpecificTool,
    LucentToolResult,
    LucentToolUse,
    LucentUsage,
)
from lucent.generated.openai_chat import (
    ChatCompletionAllowedToolsChoice,
    ChatCompletionMessageCustomToolCall,
    ChatCompletionMessageCustomToolCallCustom,
    ChatCompletionMessageToolCall,
    ChatCompletionMessageToolCallFunction,
    ChatCompletionNamedToolChoice,
    ChatCompletionNamedToolChoiceCustom,
    ChatCompletionNamedToolChoiceCustomCustom,
    ChatCompletionNamedToolChoiceFunction,
    ChatCompletionRequestAssistantMessage,
    ChatCompletionRequestAssistantMessageAudioId,
    ChatCompletionRequestAssistantMessageFunctionCallArguments,
    ChatCompletionRequestAssistantMessageContentPart,
    ChatCompletionRequestDeveloperMessage,
    ChatCompletionRequestFunctionMessage,
    ChatCompletionRequestMessage,
    ChatCompletionRequestMessageContentPartAudio,
    ChatCompletionRequestMessageContentPartAudioInputAudio,
    ChatCompletionRequestMessageContentPartFile,
    ChatCompletionRequestMessageContentPartImage,
    ChatCompletionRequestMessageContentPartImageImageUrl,
    ChatCompletionRequestMessageContentPartRefusal,
    ChatCompletionRequestMessageContentPartText,
    ChatCompletionRequestSystemMessage,
    ChatCompletionRequestToolMessage,
    ChatCompletionRequestUserMessage,
    ChatCompletionRequestUserMessageContentPart,
    ChatCompletionResponseMessage,
    ChatCompletionResponseMessageAnnotationsItem,
    ChatCompletionResponseMessageAnnotationsItemUrlCitation,
    ChatCompletionResponseMessageAudioId,
    ChatCompletionResponseMessageFunctionCall,
    CompletionUsage,
    CompletionUsagePromptTokensDetails,
    CompletionUsageCompletionTokensDetails,
    ChatCompletionTool,
    ChatCompletionToolChoiceOption,
    CustomToolChatCompletions,
    CustomToolChatCompletionsCustom,
    CustomToolChatCompletionsCustomFormatGrammar,
    CustomToolChatCompletionsCustomFormatText,
    FunctionObject,
    PromptCacheBreakpointParam,
    ResponseFormatJsonObject,
    ResponseFormatJsonSchema,
    ResponseFormatJsonSchemaJsonSchema,
    ResponseFormatText,
)

MEMBERS = "openai_chat.members"
"""The side-car space (under extra / provider_payload) of Chat-only members, by Lux path."""

_DATA_URL = re.compile(r"^data:([A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*/[A-Za-z0-9!#$&^_.+-]+);base64,([A-Za-z0-9+/]*={0,2})$")
_URL_IMAGE = "image/*"
_AUDIO_MEDIA = {"wav": "audio/wav", "mp3": "audio/mpeg"}
_MEDIA_AUDIO = {"audio/wav": "wav", "audio/x-wav": "wav", "audio/wave": "wav", "audio/mpeg": "mp3", "audio/mp3": "mp3"}
_NEAREST_EFFORT = {"minimal": "low", "low": "low", "medium": "medium", "high": "high", "xhigh": "high", "max": "high"}



def _parent(path: str) -> str:
    return path.rsplit(".", 1)[0]


def typed(value: Any, tp: Any, path: str, cx: Cx) -> Any:
    """A kept JSON value as the Chat type it stands for (so the Struct written reads back like a
    decoded one), or UNSET when it is not one (reported Invalid at its side-car path)."""
    try:
        return convert_kept(value, tp, path, cx, "the Chat value of this place")
    except (ValidationError, TypeError, ValueError) as exc:
        cx.report(path, "Invalid", f"not a Chat value of this place ({described(exc)}); ignored")
        return UNSET


# ------------------------------------------------------------------------- Chat -> Lux requests


def _text_block(text: str, path: str, field: str, cx: Cx) -> LucentContentText:
    return cx.built(path, LucentContentText(text=text), {"text": field})


def _text_part_block(part: ChatCompletionRequestMessageContentPartText, path: str, cx: Cx) -> LucentContentText:
    if part.prompt_cache_breakpoint is not UNSET:
        cx.keep(MEMBERS, path, "prompt_cache_breakpoint", to_builtins(part.prompt_cache_breakpoint), f"{path}.prompt_cache_breakpoint")
    return _text_block(part.text, path, "text", cx)


def _one_part_list(content: Any, path: str, cx: Cx) -> None:
    """A list of one text part comes back as a string unless the message says otherwise."""
    if isinstance(content, list) and len(content) == 1 and isinstance(content[0], ChatCompletionRequestMessageContentPartText):
        cx.keep(MEMBERS, _parent(path), "content_parts", True, path)


def chat_text_content(
    content: str | list[ChatCompletionRequestMessageContentPartText], path: str, cx: Cx
) -> list[LucentContent]:
    """A string as one text block; a list of text parts as one text block each."""
    if isinstance(content, str):
        return [_text_block(content, path, "", cx)]
    _one_part_list(content, path, cx)
    return [_text_part_block(part, f"{path}[{i}]", cx) for i, part in enumerate(content)]


def chat_optional_text(content: str | None, path: str, cx: Cx) -> list[LucentContent]:
    """A string as one text block; null as none."""
    return [] if content is None else [_text_block(content, path, "", cx)]


def image_media(url: str, path: str, cx: Cx) -> LucentMultimedia:
    """An image URL as Lux media: a base64 data URL is inline (bytes in extra.media), any other
    URL a url image whose media type is guessed from the file name (else image/*)."""
    found = _DATA_URL.match(url)
    if found is None and url.startswith("data:"):
        cx.report(f"{path}.url", "Degraded", "not a base64 data URL of a media type; kept as a url image")
    if found is not None:
        cx.keep("media", path, "data", found.group(2), f"{path}.url")
        return cx.built(path, LucentMultimedia(media_type=found.group(1), source="inline"), {"media_type": "url", "source": "url"})
    cx.keep("media", path, "url", url, f"{path}.url")
    return cx.built(path, LucentMultimedia(media_type=url_media_type(url), source="url"), {"source": "url"})


def url_media_type(url: str) -> str:
    """The image media type a URL's file name names (image/png for .png), else image/*."""
    return url_image_media_type(url) or _URL_IMAGE


@reports("Degraded")
def chat_user_content(content: str | list[ChatCompletionRequestUserMessageContentPart], path: str, cx: Cx) -> list[LucentContent]:
    """A string as one text block; text, image_url and input_audio parts as text, image and audio
    blocks; file parts (no Lux block) kept verbatim with their index, Degraded."""
    if isinstance(content, str):
        return [_text_block(content, path, "", cx)]
    _one_part_list(content, path, cx)
    blocks: list[LucentContent] = []
    files: list[dict[str, Any]] = []
    for i, part in enumerate(content):
        where = f"{path}[{i}]"
        if isinstance(part, ChatCompletionRequestMessageContentPartText):
            blocks.append(_text_part_block(part, where, cx))
            continue
        if isinstance(part, ChatCompletionRequestMessageContentPartFile):
            cx.report(where, "Degraded", "Lux has no file or document block; the part is kept verbatim in extra.openai_chat.members")
            files.append({"index": i, "part": to_builtins(part)})
            continue
        if part.prompt_cache_breakpoint is not UNSET:
            cx.keep(MEMBERS, where, "prompt_cache_breakpoint", to_builtins(part.prompt_cache_breakpoint), f"{where}.prompt_cache_breakpoint")
        if isinstance(part, ChatCompletionRequestMessageContentPartImage):
            image = part.image_url
            if image.detail is not UNSET:
                cx.keep(MEMBERS, f"{where}.image_url", "detail", image.detail, f"{where}.image_url.detail")
            blocks.append(cx.built(where, LucentContentImage(image=image_media(image.url, f"{where}.image_url", cx))))
        else:
            audio = part.input_audio
            cx.keep("media", f"{where}.input_audio", "data", audio.data, f"{where}.input_audio.data")
            media = cx.built(f"{where}.input_audio", LucentMultimedia(media_type=_AUDIO_MEDIA[audio.format], source="inline"), {"media_type": "format"})
            blocks.append(cx.built(where, LucentContentAudio(audio=media)))
    if files:
        cx.keep(MEMBERS, _parent(path), "files", files, path)
    return blocks


def _tool_use_block(call: ChatCompletionMessageToolCall | ChatCompletionMessageCustomToolCall, path: str, cx: Cx) -> LucentContent:
    if isinstance(call, ChatCompletionMessageToolCall):
        use = LucentToolUse(id=call.id, name=call.function.name, arguments=call.function.arguments)
        return LucentContentToolUse(tool_use=cx.built(path, use, {"id": "id", "name": "function.name", "arguments": "function.arguments"}))
    cx.report(path, "Degraded", "a custom tool call's input is free text; it is the Lux arguments verbatim, and its type is kept in extra.openai_chat.members")
    cx.keep(MEMBERS, path, "type", "custom", f"{path}.type")
    use = LucentToolUse(id=call.id, name=call.custom.name, arguments=call.custom.input)
    return LucentContentToolUse(tool_use=cx.built(path, use, {"id": "id", "name": "custom.name", "arguments": "custom.input"}))


def _refusal_block(refusal: str, message: str, null_content: bool, cx: Cx) -> LucentContentRefusal:
    """The refusal of the message at `message` as a refusal block. With content null the block
    also stands for that null (its kind, a refusal instead of text, says it): a finding about the
    block names both source members."""
    block = LucentContentRefusal(refusal=refusal)
    if null_content:
        return cx.sourced(block, {"refusal": f"{message}.refusal", "type": f"{message}.content"})
    return cx.built(f"{message}.refusal", block, {"refusal": ""})


@reports("Degraded")
def chat_assistant_content(
    content: str | list[ChatCompletionRequestAssistantMessageContentPart] | None | UnsetType,
    refusal: str | None | UnsetType,
    tool_calls: list[ChatCompletionMessageToolCall | ChatCompletionMessageCustomToolCall] | UnsetType,
    audio: Any,
    function_call: Any,
    path: str,
    cx: Cx,
) -> list[LucentContent]:
    """The content (text and refusal parts), then the refusal, then one tool_use block per tool
    call; the shapes only Chat states (absent content, refusal null, a one-part list, a refusal
    part, tool_calls []) kept in extra.openai_chat.members, and the audio reference and the
    deprecated function_call kept there too (Degraded when not null)."""
    message = _parent(path)
    for key, value in (("audio", audio), ("function_call", function_call)):
        if value is UNSET:
            continue
        if value is not None:
            cx.report(f"{message}.{key}", "Degraded", f"Lux has no assistant {key}; kept verbatim in extra.openai_chat.members")
        cx.keep(MEMBERS, message, key, to_builtins(value), f"{message}.{key}")
    blocks: list[LucentContent] = []
    if content is UNSET:
        cx.keep(MEMBERS, message, "content_absent", True, path)
    elif isinstance(content, str):
        blocks.append(_text_block(content, path, "", cx))
    elif isinstance(content, list):
        _one_part_list(content, path, cx)
        for i, part in enumerate(content):
            where = f"{path}[{i}]"
            if isinstance(part, ChatCompletionRequestMessageContentPartText):
                blocks.append(_text_part_block(part, where, cx))
            else:
                cx.keep(MEMBERS, where, "part", True, where)
                blocks.append(cx.built(where, LucentContentRefusal(refusal=part.refusal), {"refusal": "refusal"}))
    if refusal is None:
        cx.keep(MEMBERS, message, "refusal", None, f"{message}.refusal")
    elif isinstance(refusal, str):
        blocks.append(_refusal_block(refusal, message, content is None, cx))
    if isinstance(tool_calls, list):
        if not tool_calls:
            cx.keep(MEMBERS, message, "tool_calls", [], f"{message}.tool_calls")
        blocks.extend(_tool_use_block(call, f"{message}.tool_calls[{i}]", cx) for i, call in enumerate(tool_calls))
    return blocks


@skips_absent
@reports("Degraded")
def chat_tools_to_lux(tools: list[ChatCompletionTool | CustomToolChatCompletions] | UnsetType, path: str, cx: Cx) -> list[LucentTool] | UnsetType:
    """Function tools as LucentTool (absent parameters -> null); a custom tool as a LucentTool
    with parameters null, its type and format kept in extra.openai_chat.members (Degraded)."""
    if tools is UNSET:
        return UNSET
    out: list[LucentTool] = []
    for i, tool in enumerate(tools):
        where = f"{path}[{i}]"
        if isinstance(tool, ChatCompletionTool):
            f = tool.function
            parameters = f.parameters if f.parameters is not UNSET else None  # dict[str, Any]: plain JSON, shared (plain_members)
            built = LucentTool(name=f.name, description=f.description, parameters=parameters, strict=UNSET if f.strict is None else f.strict)
            if f.strict is None:
                cx.keep(MEMBERS, where, "strict", None, f"{where}.function.strict")
            out.append(cx.built(where, built, {"name": "function.name", "description": "function.description", "parameters": "function.parameters", "strict": "function.strict"}))
        else:
            c = tool.custom
            cx.report(where, "Degraded", "a custom tool takes free text, not JSON arguments; written as a Lux tool with parameters null, its type and format kept in extra.openai_chat.members")
            cx.keep(MEMBERS, where, "type", "custom", f"{where}.type")
            if c.format is not UNSET:
                cx.keep(MEMBERS, where, "format", to_builtins(c.format), f"{where}.custom.format")
            out.append(cx.built(where, LucentTool(name=c.name, description=c.description, parameters=None), {"name": "custom.name", "description": "custom.description"}))
    return out


@skips_absent
def chat_tool_choice_to_lux(choice: ChatCompletionToolChoiceOption | UnsetType, path: str, cx: Cx) -> LucentToolChoice | UnsetType:
    """none / auto / required as they are; a named function or custom tool as specific_tool (a
    custom one noted in extra.openai_chat.members); allowed_tools: none (chat_allowed_tools)."""
    if choice is UNSET or isinstance(choice, ChatCompletionAllowedToolsChoice):
        return UNSET
    if isinstance(choice, str):
        return choice
    if isinstance(choice, ChatCompletionNamedToolChoice):
        return cx.built(path, LucentToolChoiceSpecificTool(name=choice.function.name), {"name": "function.name"})
    cx.keep(MEMBERS, path, "type", "custom", f"{path}.type")
    return cx.built(path, LucentToolChoiceSpecificTool(name=choice.custom.name), {"name": "custom.name"})


@skips_absent
def chat_allowed_tools(choice: ChatCompletionToolChoiceOption | UnsetType, path: str, cx: Cx, status: Status, reason: str) -> Any:
    """An allowed_tools choice, verbatim (reported)."""
    if not isinstance(choice, ChatCompletionAllowedToolsChoice):
        return UNSET
    cx.report(path, status, reason)
    return to_builtins(choice)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@skips_absent
def chat_token_limit(completion: int | None | UnsetType, legacy: int | None | UnsetType, path: str, cx: Cx) -> int | UnsetType:
    """max_completion_tokens, else the deprecated max_tokens (remembered for chat_max_tokens_kept)."""
    if _is_int(completion):
        return completion  # type: ignore[return-value]
    if _is_int(legacy):
        cx.memo["chat_limit"] = "max_tokens"
        return legacy  # type: ignore[return-value]
    return UNSET


@skips_absent
def chat_limit_field(completion: int | None | UnsetType, legacy: int | None | UnsetType, path: str, cx: Cx) -> str | UnsetType:
    """"max_tokens" when the Lux limit came from the deprecated max_tokens."""
    return "max_tokens" if not _is_int(completion) and _is_int(legacy) else UNSET


@skips_absent
def chat_max_tokens_kept(legacy: int | None | UnsetType, path: str, cx: Cx, status: Status, reason: str) -> int | None | UnsetType:
    """max_tokens when the Lux limit (chat_token_limit, run before) does not hold it: null
    (kept), or a value beside max_completion_tokens (kept, reported)."""
    if legacy is None:
        return None
    if legacy is UNSET or cx.memo.get("chat_limit") == "max_tokens":
        return UNSET
    cx.report(path, status, reason)
    return legacy


@skips_absent
def chat_stop_to_lux(stop: str | list[str] | None | UnsetType, path: str, cx: Cx) -> list[str] | UnsetType:
    """A stop string as a one-item list; a list as it is; null as none."""
    if isinstance(stop, str):
        return [stop]
    return stop if isinstance(stop, list) else UNSET


@skips_absent
def chat_stop_string(stop: str | list[str] | None | UnsetType, path: str, cx: Cx) -> bool | UnsetType:
    """True when stop was one string (Lux holds a list)."""
    return True if isinstance(stop, str) else UNSET


def chat_stream_flag(stream: bool | None | UnsetType, path: str, cx: Cx) -> bool:
    """stream; absent or null is false."""
    return stream if isinstance(stream, bool) else False


@skips_absent
def chat_response_format_to_lux(
    value: ResponseFormatText | ResponseFormatJsonSchema | ResponseFormatJsonObject | UnsetType, path: str, cx: Cx
) -> LucentStructuredOutput | UnsetType:
    """text -> "text"; json_object -> "json_object"; json_schema with a schema -> {type:
    json_schema, schema}; without a schema: none (chat_schemaless_json_schema)."""
    if value is UNSET:
        return UNSET
    if isinstance(value, ResponseFormatText):
        return "text"
    if isinstance(value, ResponseFormatJsonObject):
        return "json_object"
    if value.json_schema.schema is UNSET:
        return UNSET
    return cx.built(path, LucentStructuredOutputJsonSchema(schema=to_builtins(value.json_schema.schema)), {"schema": "json_schema.schema"})


@skips_absent
def chat_schemaless_json_schema(value: Any, path: str, cx: Cx, status: Status, reason: str) -> Any:
    """A json_schema response_format without a schema, verbatim (reported)."""
    if not isinstance(value, ResponseFormatJsonSchema) or value.json_schema.schema is not UNSET:
        return UNSET
    cx.report(path, status, reason)
    return to_builtins(value)


@skips_absent
def chat_json_schema_members(value: Any, path: str, cx: Cx) -> dict[str, Any] | UnsetType:
    """name, description and strict of a json_schema response_format (Lux keeps the schema)."""
    if not isinstance(value, ResponseFormatJsonSchema) or value.json_schema.schema is UNSET:
        return UNSET
    spec = value.json_schema
    return obj({"name": spec.name, "description": spec.description, "strict": spec.strict})


@skips_absent
def chat_effort_to_reasoning(effort: str | None | UnsetType, path: str, cx: Cx) -> LucentReasoningConfig | UnsetType:
    """none -> {enabled: false}; minimal -> low; xhigh / max -> high; low / medium / high as
    they are; null -> none."""
    if effort is UNSET or effort is None:
        return UNSET
    if effort == "none":
        return cx.built(path, LucentReasoningConfig(enabled=False))
    return cx.built(path, LucentReasoningConfig(enabled=True, effort=_NEAREST_EFFORT[effort]), {"effort": ""})  # type: ignore[arg-type]


@skips_absent
def chat_effort_kept(effort: str | None | UnsetType, path: str, cx: Cx, status: Status, reason: str) -> str | None | UnsetType:
    """A reasoning_effort Lux has no level for (minimal, xhigh, max; reported), or null."""
    if effort is None:
        return None
    if effort in ("minimal", "xhigh", "max"):
        cx.report(path, status, reason)
        return effort
    return UNSET


# ------------------------------------------------------------------------- Lux -> Chat requests


def _members(path: str, key: str, expect: Expect, cx: Cx) -> Any:
    return cx.kept(MEMBERS, path, key, expect)


def _text_part(block: LucentContentText, path: str, cx: Cx) -> ChatCompletionRequestMessageContentPartText:
    if block.annotations is not UNSET:
        cx.report(f"{path}.annotations", "Unsupported", "Chat Completions request text has no annotations; dropped")
    part = ChatCompletionRequestMessageContentPartText(text=block.text)
    breakpoint_ = _members(path, "prompt_cache_breakpoint", "object", cx)
    if breakpoint_ is not UNSET:
        part.prompt_cache_breakpoint = typed(breakpoint_, PromptCacheBreakpointParam, _kept_path(path, "prompt_cache_breakpoint", cx), cx)
    return cx.built(path, part)


def _kept_path(path: str, key: str, cx: Cx) -> str:
    return member(member(f"{cx.sidecar_path}.{MEMBERS}", path), key)


def _as_content(parts: list[Any], path: str, cx: Cx) -> Any:
    """One plain text part as a string (unless content_parts was kept), else the list; no part:
    UNSET (the caller decides)."""
    listed = _members(path, "content_parts", "boolean", cx) is True
    plain = len(parts) == 1 and isinstance(parts[0], ChatCompletionRequestMessageContentPartText)
    if plain and parts[0].prompt_cache_breakpoint is UNSET and not listed:
        return parts[0].text
    return parts if parts else UNSET


def _unsupported(path: str, what: str, cx: Cx) -> None:
    cx.report(path, "Unsupported", f"a Chat Completions {what} cannot hold this block; dropped")
    cx.forget(path)


def _text_only(blocks: list[LucentContent], path: str, what: str, cx: Cx) -> list[ChatCompletionRequestMessageContentPartText]:
    parts = []
    for j, block in enumerate(blocks):
        where = f"{path}.content[{j}]"
        if isinstance(block, LucentContentText):
            parts.append(_text_part(block, where, cx))
        elif not isinstance(block, LucentContentToolResult):
            _unsupported(where, what, cx)
    return parts


def _tool_call(use: LucentToolUse, path: str, cx: Cx) -> ChatCompletionMessageToolCall | ChatCompletionMessageCustomToolCall:
    if _members(path, "type", ("custom",), cx) == "custom":
        return cx.built(path, ChatCompletionMessageCustomToolCall(id=use.id, custom=ChatCompletionMessageCustomToolCallCustom(name=use.name, input=use.arguments)))
    return cx.built(path, ChatCompletionMessageToolCall(id=use.id, function=ChatCompletionMessageToolCallFunction(name=use.name, arguments=use.arguments)))


def _tool_message(result: LucentToolResult, path: str, cx: Cx) -> ChatCompletionRequestToolMessage:
    if result.is_error:
        cx.report(f"{path}.is_error", "Degraded", "Chat tool messages have no error flag; the error text is sent as a normal result")
    parts: list[ChatCompletionRequestMessageContentPartText] = []
    for j, block in enumerate(result.content):
        where = f"{path}.content[{j}]"
        if isinstance(block, LucentContentText):
            parts.append(_text_part(block, where, cx))
        else:
            _unsupported(where, "tool message (text only)", cx)
    content = _or_empty(_as_content(parts, path, cx), path, cx)
    return cx.built(path, ChatCompletionRequestToolMessage(tool_call_id=result.tool_use_id, content=content))


def _or_empty(content: Any, path: str, cx: Cx) -> Any:
    """Content a Chat message requires: none is written as "" (Degraded: it comes back as one
    empty text block)."""
    if content is not UNSET:
        return content
    cx.report(f"{path}.content", "Degraded", "a Chat message needs content; one with no text is written with content \"\"")
    return ""


def _media_url(media: LucentMultimedia, path: str, cx: Cx) -> str | None:
    """The URL of an image: a data URL of inline bytes (extra.media[path].data) or the URL kept."""
    if media.source == "inline":
        data = cx.kept("media", path, "data", "string")
        if data is UNSET:
            cx.report(path, "Invalid", "inline media without its bytes in extra.media; dropped")
            return None
        url = f"data:{media.media_type};base64,{data}"
        if _DATA_URL.match(url) is None:
            cx.report(path, "Degraded", "the media type and bytes do not form a base64 data URL that reads back; written as the data URL text")
        return url
    if media.source == "url":
        url = cx.kept("media", path, "url", "string")
        if url is UNSET:
            cx.report(path, "Invalid", "a url medium without its URL in extra.media; dropped")
            return None
        if url_media_type(url) != media.media_type:
            cx.report(f"{path}.media_type", "Degraded", "a Chat image URL has no media type; this one is not what the URL's file name gives back")
        return str(url)
    cx.report(path, "Unsupported", "Chat Completions takes an image as a URL or a data URL, not a provider file URI; dropped")
    return None


def _user_parts(blocks: list[LucentContent], path: str, cx: Cx) -> list[Any]:
    parts: list[Any] = []
    for j, block in enumerate(blocks):
        where = f"{path}.content[{j}]"
        if isinstance(block, LucentContentText):
            parts.append(_text_part(block, where, cx))
        elif isinstance(block, LucentContentImage):
            url = _media_url(block.image, f"{where}.image", cx)
            if url is None:
                cx.forget(where)
                continue
            image = ChatCompletionRequestMessageContentPartImageImageUrl(url=url)
            detail = _members(f"{where}.image", "detail", ("auto", "low", "high"), cx)
            if detail is not UNSET:
                image.detail = detail
            part = ChatCompletionRequestMessageContentPartImage(image_url=cx.built(f"{where}.image", image))
            parts.append(_with_breakpoint(part, where, cx))
        elif isinstance(block, LucentContentAudio):
            audio_format = _MEDIA_AUDIO.get(block.audio.media_type.lower())
            data = cx.kept("media", f"{where}.audio", "data", "string") if block.audio.source == "inline" else UNSET
            if audio_format is None or data is UNSET:
                why = "only inline wav or mp3 audio" if audio_format is None or block.audio.source != "inline" else "inline audio with its bytes in extra.media"
                cx.report(where, "Unsupported" if audio_format is None or block.audio.source != "inline" else "Invalid", f"Chat Completions takes {why}; dropped")
                cx.forget(where)
                continue
            if _AUDIO_MEDIA[audio_format] != block.audio.media_type:
                cx.report(f"{where}.audio.media_type", "Degraded", f"Chat names this audio format {audio_format}; it comes back as {_AUDIO_MEDIA[audio_format]}")
            audio = ChatCompletionRequestMessageContentPartAudioInputAudio(data=data, format=audio_format)  # type: ignore[arg-type]
            parts.append(_with_breakpoint(ChatCompletionRequestMessageContentPartAudio(input_audio=cx.built(f"{where}.audio", audio)), where, cx))
        elif isinstance(block, LucentContentRefusal):
            cx.report(where, "Degraded", "a Chat user message has no refusal part; written as a text part")
            parts.append(cx.built(where, ChatCompletionRequestMessageContentPartText(text=block.refusal)))
        elif not isinstance(block, LucentContentToolResult):
            _unsupported(where, "user message", cx)
    return parts


def _with_breakpoint(part: Any, path: str, cx: Cx) -> Any:
    breakpoint_ = _members(path, "prompt_cache_breakpoint", "object", cx)
    if breakpoint_ is not UNSET:
        part.prompt_cache_breakpoint = typed(breakpoint_, PromptCacheBreakpointParam, _kept_path(path, "prompt_cache_breakpoint", cx), cx)
    return cx.built(path, part)


def _put_back_files(parts: list[Any], path: str, cx: Cx) -> list[Any]:
    files = _members(path, "files", "array", cx)
    if files is UNSET:
        return parts
    merged = list(parts)
    for n, entry in enumerate(files):
        if not isinstance(entry, dict) or set(entry) != {"index", "part"} or not _is_int(entry["index"]) or not isinstance(entry["part"], dict):
            cx.report(f"{_kept_path(path, 'files', cx)}[{n}]", "Invalid", "not an {index, part} entry; ignored")
            continue
        part = typed(entry["part"], ChatCompletionRequestMessageContentPartFile, _kept_path(path, "files", cx), cx)
        if part is not UNSET:
            merged.insert(min(max(entry["index"], 0), len(merged)), part)
    return merged


def _assistant(message: LucentMessage, path: str, cx: Cx) -> ChatCompletionRequestAssistantMessage:
    parts: list[Any] = []
    refusals: list[str] = []
    calls: list[Any] = []
    for j, block in enumerate(message.content):
        where = f"{path}.content[{j}]"
        if isinstance(block, LucentContentText):
            parts.append(_text_part(block, where, cx))
        elif isinstance(block, LucentContentRefusal):
            if _members(where, "part", "boolean", cx) is True or refusals:
                parts.append(cx.built(where, ChatCompletionRequestMessageContentPartRefusal(refusal=block.refusal)))
            else:
                refusals.append(block.refusal)
        elif isinstance(block, LucentContentToolUse):
            calls.append(_tool_call(block.tool_use, f"{where}.tool_use", cx))
        elif isinstance(block, LucentContentThinking):
            cx.report(where, "Unsupported", "Chat Completions requests carry no reasoning; dropped")
            cx.forget(where)
        elif not isinstance(block, LucentContentToolResult):
            _unsupported(where, "assistant message", cx)
    out = ChatCompletionRequestAssistantMessage()
    content = _as_content(parts, path, cx)
    if content is not UNSET:
        out.content = content
    elif _members(path, "content_absent", "boolean", cx) is not True:
        out.content = None
    if refusals:
        out.refusal = refusals[0]
    elif _members(path, "refusal", "null", cx) is None:
        out.refusal = None
    if calls:
        out.tool_calls = calls
    elif _members(path, "tool_calls", "array", cx) == []:
        out.tool_calls = []
    for key, tp in (("audio", ChatCompletionRequestAssistantMessageAudioId | None), ("function_call", ChatCompletionRequestAssistantMessageFunctionCallArguments | None)):
        kept = _members(path, key, "any", cx)
        if kept is not UNSET:
            setattr(out, key, typed(kept, tp, _kept_path(path, key, cx), cx))
    return out


def _emit_message(out: list[Any], message: LucentMessage, path: str, cx: Cx) -> None:
    """A Lux message as Chat messages: its tool_result blocks first (tool messages), then the
    message by role."""
    for j, block in enumerate(message.content):
        if isinstance(block, LucentContentToolResult):
            where = f"{path}.content[{j}]"
            detail = "a tool_result block is written as a Chat tool message before its message (back in Lux: a tool_result item)"
            if all(isinstance(b, LucentContentToolResult) for b in message.content[:j]):  # in place: it comes back where it was
                restructured(cx, where, "tool_result_place", detail)
            else:
                cx.report(where, "Degraded", detail + "; it is moved ahead of the blocks before it")
            out.append(_tool_message(block.tool_result, f"{where}.tool_result", cx))
    only_results = bool(message.content) and all(isinstance(b, LucentContentToolResult) for b in message.content)
    role = message.role
    name = _members(path, "name", "string", cx)
    built: Any
    if role == "tool":
        parts = _text_only(message.content, path, "function message", cx)
        if name is not UNSET:
            text = "\n".join(p.text for p in parts) if parts else None
            if len(parts) > 1:
                cx.report(f"{path}.content", "Degraded", "a function message holds one text; the text blocks are joined with a newline")
            out.append(cx.built(path, ChatCompletionRequestFunctionMessage(name=name, content=text)))
            return
        if only_results:
            return
        cx.report(f"{path}.role", "Degraded", "a Chat tool message needs a tool call id; a Lux tool message without tool results is written as a user message")
        role = "user"
    elif only_results:
        restructured(cx, f"{path}.role", "holder_role", "the message held only tool results: it is written as the Chat tool messages alone")
        return
    if role in ("assistant", "model"):
        if role == "model":
            cx.report(f"{path}.role", "Degraded", "Chat Completions has no model role; written as assistant")
        built = _assistant(message, path, cx)
    elif role == "user":
        parts = _put_back_files(_user_parts(message.content, path, cx), path, cx)
        built = ChatCompletionRequestUserMessage(content=_or_empty(_as_content(parts, path, cx), path, cx))
    else:
        parts = _text_only(message.content, path, f"{role} message (text only)", cx)
        kind = ChatCompletionRequestSystemMessage if role == "system" else ChatCompletionRequestDeveloperMessage
        built = kind(content=_or_empty(_as_content(parts, path, cx), path, cx))
    if name is not UNSET:
        built.name = name
    out.append(cx.built(path, built))


def _append_call(out: list[Any], call: Any, path: str, cx: Cx) -> None:
    restructured(cx, path, "tool_call_place", "a tool_call item is written as a tool call of the assistant message before it (back in Lux: a tool_use block)")
    last = out[-1] if out else None
    if isinstance(last, ChatCompletionRequestAssistantMessage) and isinstance(last.tool_calls, list):
        last.tool_calls.append(call)  # in place: a copy per call made a run of calls quadratic
    elif isinstance(last, ChatCompletionRequestAssistantMessage):
        last.tool_calls = [call]
    else:
        out.append(cx.built(path, ChatCompletionRequestAssistantMessage(content=None, tool_calls=[call])))


@reports("Degraded", "Unsupported", "Invalid")
def chat_messages(instructions: list[LucentContent] | UnsetType, conversation: list[LucentConversationItem], path: str, cx: Cx) -> list[ChatCompletionRequestMessage]:
    """instructions as one leading system message (Degraded), then every conversation item in
    order; afterwards every extra.openai_chat.members entry no value read is reported."""
    out: list[Any] = []
    if instructions is not UNSET and instructions:
        parts = []
        for j, block in enumerate(instructions):
            where = f"$.instructions[{j}]"
            if isinstance(block, LucentContentText):
                parts.append(_text_part(block, where, cx))
            else:
                _unsupported(where, "system message (text only)", cx)
        if parts:
            restructured(cx, "$.instructions", "system_place", "Chat Completions has no instructions field; written as a leading system message")
            content = parts[0].text if len(parts) == 1 and parts[0].prompt_cache_breakpoint is UNSET else parts
            out.append(cx.built("$.instructions", ChatCompletionRequestSystemMessage(content=content)))
    for i, item in enumerate(conversation):
        where = f"$.conversation[{i}]"
        if isinstance(item, LucentConversationItemMessage):
            _emit_message(out, item.message, f"{where}.message", cx)
        elif isinstance(item, LucentConversationItemToolCall):
            _append_call(out, _tool_call(item.tool_call, f"{where}.tool_call", cx), where, cx)
        elif isinstance(item, LucentConversationItemToolResult):
            out.append(_tool_message(item.tool_result, f"{where}.tool_result", cx))
        elif isinstance(item, LucentConversationItemReasoning):
            cx.report(where, "Unsupported", "Chat Completions requests carry no reasoning items; dropped")
        else:
            cx.report(where, "Unsupported", "Chat Completions has no agent actions; dropped")
    cx.report_unread_entries(MEMBERS)
    return out


@reports("Unsupported", "Invalid")
def chat_tools(tools: list[LucentTool] | UnsetType, path: str, cx: Cx) -> list[ChatCompletionTool | CustomToolChatCompletions] | UnsetType:
    """LucentTools as function tools (parameters null -> absent; a parameters value that is not
    a JSON object Invalid, left out); a tool kept as custom (members) as a custom tool."""
    if tools is UNSET:
        return UNSET
    out: list[ChatCompletionTool | CustomToolChatCompletions] = []
    for i, tool in enumerate(tools):
        where = f"{path}[{i}]"
        if _members(where, "type", ("custom",), cx) == "custom":
            custom = CustomToolChatCompletionsCustom(name=tool.name, description=tool.description)
            kept = _members(where, "format", "object", cx)
            if kept is not UNSET:
                custom.format = typed(kept, CustomToolChatCompletionsCustomFormatText | CustomToolChatCompletionsCustomFormatGrammar, _kept_path(where, "format", cx), cx)
            if tool.parameters is not None:
                cx.report(f"{where}.parameters", "Unsupported", "a custom tool takes free text and has no parameters; dropped")
            if tool.strict is not UNSET:
                cx.report(f"{where}.strict", "Unsupported", "a custom tool has no strict flag; dropped")
            out.append(cx.built(where, CustomToolChatCompletions(custom=custom)))
            continue
        function = FunctionObject(name=tool.name, description=tool.description)
        if isinstance(tool.parameters, dict):
            function.parameters = tool.parameters
        elif tool.parameters is not None:
            cx.report(f"{where}.parameters", "Invalid", "Chat function parameters are a JSON Schema object; dropped")
        if tool.strict is not UNSET:
            function.strict = tool.strict
        elif _members(where, "strict", "null", cx) is None:
            function.strict = None
        out.append(cx.built(where, ChatCompletionTool(function=function), {"function.name": "name", "function.description": "description", "function.parameters": "parameters", "function.strict": "strict"}))
    return out


@reports("Unsupported", "Invalid")
def chat_tool_choice(choice: LucentToolChoice | UnsetType, path: str, cx: Cx, carried: str) -> Any:
    """auto / none / required as they are; specific_tool as a named function (or custom, when
    kept so); without a Lux choice, the carried allowed_tools choice."""
    if choice is UNSET:
        kept = cx.from_carried(carried, "object")
        return UNSET if kept is UNSET else typed(kept, ChatCompletionAllowedToolsChoice, f"{cx.carried_path}.{carried}", cx)
    if isinstance(choice, str):
        return choice
    if _members(path, "type", ("custom",), cx) == "custom":
        return cx.built(path, ChatCompletionNamedToolChoiceCustom(custom=ChatCompletionNamedToolChoiceCustomCustom(name=choice.name)))
    return cx.built(path, ChatCompletionNamedToolChoice(function=ChatCompletionNamedToolChoiceFunction(name=choice.name)), {"function.name": "name"})


def _responses_text(text: Any, value: LucentStructuredOutput | UnsetType, path: str, cx: Cx) -> dict[str, Any]:
    """The json_schema members (name, description, strict) Responses kept in
    extra.openai_responses.text.format for the Lux json_schema output; the members of that text
    Chat has no place for are reported Unsupported (verbosity is read by chat_verbosity)."""
    where = f"{_RESPONSES}.text"
    if text is UNSET:
        return {}
    if not isinstance(text, dict):
        cx.report(where, "Invalid", f"{shown(text)}, not an object; ignored")
        return {}
    for key in text:
        if key not in ("format", "verbosity", "no_format"):
            cx.report(member(where, key), "Unsupported", "not a text member Chat Completions has; ignored")
    if "no_format" in text and not isinstance(text["no_format"], bool):  # a spelling: text had no format
        cx.report(f"{where}.no_format", "Invalid", f"{shown(text['no_format'])}, not a boolean; ignored")
    fmt = text.get("format", UNSET)
    if fmt is UNSET:
        return {}
    if not isinstance(value, LucentStructuredOutputJsonSchema) or not isinstance(fmt, dict) or "type" in fmt:
        cx.report(f"{where}.format", "Unsupported", f"not written: Lux {path} is not a json_schema output these members belong to")
        return {}
    found: dict[str, Any] = {}
    for key, item in fmt.items():
        expect = _JSON_SCHEMA_MEMBERS.get(key)
        if expect is None:
            cx.report(member(f"{where}.format", key), "Unsupported", "not a json_schema member Chat Completions has (name, description, strict); ignored")
        elif not (isinstance(item, str) if expect == "string" else item is None or isinstance(item, bool)):
            cx.report(member(f"{where}.format", key), "Invalid", f"{shown(item)}, not {'a string' if expect == 'string' else 'a boolean or null'}; ignored")
        else:
            found[key] = item
    return found


@reports("Unsupported", "Invalid")
def chat_verbosity(own: Any, text: Any, path: str, cx: Cx) -> Any:
    """verbosity: the kept Chat value, else Responses' text.verbosity (low / medium / high in both)."""
    theirs = text.get("verbosity", UNSET) if isinstance(text, dict) else UNSET
    value = own_or_sibling(own, theirs, path, f"{_RESPONSES}.text.verbosity", cx)
    if value is not UNSET and value is not None and value not in _VERBOSITY:  # the target schema's enum
        cx.report(path if own is not UNSET else f"{_RESPONSES}.text.verbosity", "Unsupported", f'Chat Completions verbosity is one of ["low", "medium", "high"]; the value ({shown(value)}) is left out')
        return UNSET
    return value


_VERBOSITY = ("low", "medium", "high")


@reports("Degraded", "Unsupported", "Invalid")
def chat_response_format(value: LucentStructuredOutput | UnsetType, text: Any, path: str, cx: Cx, carried: str) -> Any:
    """text / json_object as they are; {type: json_schema, schema} with the carried name /
    description / strict, else those Responses kept in extra.openai_responses.text.format (name
    "response" when neither has one, Degraded; a schema that is not an object Invalid, no
    response_format); without a Lux value, the carried verbatim response_format."""
    if not isinstance(value, LucentStructuredOutputJsonSchema) and carried in cx.carried:
        cx.report(f"{cx.carried_path}.{carried}", "Unsupported", f"not written: Lux {path} is not a json_schema output, so these members have no response_format to go to")
    theirs = _responses_text(text, value, path, cx)
    if value is UNSET:
        kept_format = cx.from_carried("response_format", "object")
        if kept_format is UNSET:
            return UNSET
        return typed(kept_format, ResponseFormatText | ResponseFormatJsonSchema | ResponseFormatJsonObject, f"{cx.carried_path}.response_format", cx)
    if value == "text":
        return ResponseFormatText()
    if value == "json_object":
        return ResponseFormatJsonObject()
    assert isinstance(value, LucentStructuredOutputJsonSchema)
    if not isinstance(value.schema, dict):
        cx.report(f"{path}.schema", "Invalid", "a Chat json_schema is a JSON object; no response_format is written")
        return UNSET
    kept = cx.carried_object(carried, _JSON_SCHEMA_MEMBERS)
    kept = kept if isinstance(kept, dict) else {}
    for key in kept:
        if key not in _JSON_SCHEMA_MEMBERS:
            cx.report(member(f"{cx.carried_path}.{carried}", key), "Unsupported", "not a json_schema member Chat Completions has (name, description, strict); ignored")
    if theirs and not kept:
        kept = theirs  # a Lux request from Responses: its json_schema members
    elif theirs and {k: v for k, v in kept.items() if k in _JSON_SCHEMA_MEMBERS} != theirs:
        cx.report(f"{_RESPONSES}.text.format", "Unsupported", f"not written: {cx.carried_path.removeprefix('$.')}.{carried} is set and wins over it")
    name = kept.get("name")
    if not isinstance(name, str):
        cx.report(path, "Degraded", "a Chat json_schema needs a name; written as \"response\"")
        name = "response"
    spec = ResponseFormatJsonSchemaJsonSchema(name=name, schema=value.schema)
    if isinstance(kept.get("description"), str):
        spec.description = kept["description"]
    if "strict" in kept and (kept["strict"] is None or isinstance(kept["strict"], bool)):
        spec.strict = kept["strict"]
    return cx.built(path, ResponseFormatJsonSchema(json_schema=spec), {"json_schema.schema": "schema"})


_JSON_SCHEMA_MEMBERS: dict[str, Expect] = {"name": "string", "description": "string", "strict": "boolean|null"}
"""The json_schema members the side-car keeps (Lux holds the schema), with their JSON types."""


@reports("Invalid")
def chat_completion_limit(value: int | UnsetType, path: str, cx: Cx) -> int | None | UnsetType:
    """options.max_output_tokens, unless it came from the deprecated max_tokens; else a kept null."""
    if value is not UNSET and cx.from_carried("limit_field", ("max_tokens",)) != "max_tokens":
        return value
    return None if "max_completion_tokens" in cx.carried and cx.carried["max_completion_tokens"] is None else UNSET


@reports("Invalid")
def chat_legacy_limit(value: int | UnsetType, path: str, cx: Cx) -> int | None | UnsetType:
    """options.max_output_tokens when it came from max_tokens; else the carried max_tokens."""
    if value is not UNSET and cx.carried.get("limit_field") == "max_tokens":
        return value
    kept = cx.from_carried("max_tokens", "any")
    return kept if kept is None or _is_int(kept) else UNSET


@reports("Unsupported", "Invalid")
def chat_stop(value: list[str] | UnsetType, path: str, cx: Cx) -> str | list[str] | None | UnsetType:
    """options.stop (1 to 4 sequences; a one-item list noted as a string is one string); else a
    kept null. Another count is Unsupported and left out."""
    if value is UNSET:
        return None if "stop" in cx.carried and cx.carried["stop"] is None else UNSET
    if not 1 <= len(value) <= 4:
        cx.report(path, "Unsupported", f"Chat Completions takes 1 to 4 stop sequences; {len(value)} left out")
        return UNSET
    if len(value) == 1 and cx.from_carried("stop_string", "boolean") is True:
        return value[0]
    return value


# The parameters Responses and Chat Completions both define: a Lux request from Responses keeps
# them in extra.openai_responses under their Responses names (openai_responses_lux_request.toml,
# decision 8), and Chat reads them there when its own side-car has none
# (lux_openai_chat_request.toml, decision 9).

_RESPONSES = "$.extra.openai_responses"


@reports("Unsupported", "Invalid")
def chat_store(own: Any, responses: Any, path: str, cx: Cx) -> Any:
    """store: the kept Chat value; else Responses' true, false or null (null: the default of
    each, which for Chat is not to store; lucent never stores more than the source asked)."""
    if responses is not UNSET and responses is not None and not isinstance(responses, bool):
        cx.report(f"{_RESPONSES}.store", "Invalid", f"{shown(responses)}, not a boolean; ignored")
        responses = UNSET
    return own_or_sibling(own, responses, path, f"{_RESPONSES}.store", cx)


@reports("Unsupported")
def chat_prompt_cache_key(own: Any, responses: Any, path: str, cx: Cx) -> Any:
    """prompt_cache_key: the kept Chat value, else Responses' (the same string, or null)."""
    return own_or_sibling(own, responses, path, f"{_RESPONSES}.prompt_cache_key", cx)


def _asks_logprobs(include: Any) -> bool:
    return isinstance(include, list) and LOGPROBS_INCLUDE in include


@reports("Unsupported", "Invalid")
def chat_logprobs(own: Any, include: Any, path: str, cx: Cx) -> Any:
    """logprobs: the kept Chat value; else true when Responses' include asks for
    message.output_text.logprobs. Every other include entry is Unsupported (Chat Completions
    returns no such extra output data); a null or empty include asks for nothing (Exact)."""
    if isinstance(include, list):
        for i, entry in enumerate(include):
            if entry != LOGPROBS_INCLUDE:
                cx.report(f"{_RESPONSES}.include[{i}]", "Unsupported", "Chat Completions has no include list; only message.output_text.logprobs is carried, as logprobs: true")
    elif include is not UNSET and include is not None:
        cx.report(f"{_RESPONSES}.include", "Invalid", f"{shown(include)}, not an array; ignored")
    asked = True if _asks_logprobs(include) else UNSET
    return own_or_sibling(own, asked, path, f"{_RESPONSES}.include", cx)


@reports("Unsupported")
def chat_top_logprobs(own: Any, responses: Any, include: Any, path: str, cx: Cx) -> Any:
    """top_logprobs: the kept Chat value; else Responses' (0..20 in both, or null) when its
    include asks for the log probabilities (Chat takes top_logprobs only with logprobs: true);
    a number without that entry is Unsupported."""
    if own is UNSET and isinstance(responses, int) and not _asks_logprobs(include):
        cx.report(f"{_RESPONSES}.top_logprobs", "Unsupported", "Chat Completions takes top_logprobs only with logprobs: true, and the Responses include does not ask for message.output_text.logprobs")
        return UNSET
    value = own_or_sibling(own, responses, path, f"{_RESPONSES}.top_logprobs", cx)
    if isinstance(value, (int, float)) and not isinstance(value, bool) and not 0 <= value <= 20:  # the target schema's bounds
        cx.report(path if own is not UNSET else f"{_RESPONSES}.top_logprobs", "Unsupported", f"Chat Completions top_logprobs is 0 to 20; the value ({shown(value)}) is left out")
        return UNSET
    return value


@reports("Invalid")
def chat_stream(value: bool, path: str, cx: Cx) -> bool | None | UnsetType:
    """options.stream; false is written as the absent or null stream it came from."""
    if value is False and cx.from_carried("stream_absent", "boolean") is True:
        return UNSET
    if value is False and "stream" in cx.carried and cx.carried["stream"] is None:
        return None
    return value


@reports("Degraded", "Unsupported")
def chat_reasoning_effort(value: LucentReasoningConfig | UnsetType, path: str, cx: Cx, carried: str) -> Any:
    """{enabled: false} -> none; effort -> that level (a carried minimal / xhigh / max whose
    nearest Lux level it is); enabled alone -> medium (Degraded); budget_tokens and summary
    Unsupported; no Lux reasoning: the carried value (null)."""
    kept = cx.carried.get(carried, UNSET)
    if value is UNSET:
        if isinstance(kept, str):
            cx.report(f"{cx.carried_path}.{carried}", "Unsupported", f"not written: Lux {path} is absent, and a kept level goes with it")
        return None if kept is None else UNSET
    if value.budget_tokens is not UNSET:
        cx.report(f"{path}.budget_tokens", "Unsupported", "Chat Completions sets reasoning by effort, not a token budget; dropped")
    if value.summary is not UNSET:
        cx.report(f"{path}.summary", "Unsupported", "Chat Completions has no reasoning summary; dropped")
    if not value.enabled:
        if value.effort is not UNSET:
            cx.report(f"{path}.effort", "Unsupported", "reasoning is disabled; its effort is not written")
        return "none"
    if value.effort is UNSET:
        cx.report(path, "Degraded", "Chat Completions enables reasoning by effort; written as medium")
        return "medium"
    if isinstance(kept, str) and _NEAREST_EFFORT.get(kept) == value.effort and kept not in ("low", "medium", "high"):
        return kept
    if isinstance(kept, str):
        cx.report(f"{cx.carried_path}.{carried}", "Unsupported", f"not written: Lux {path}.effort is set and this is not a Chat level whose nearest Lux level it is")
    return value.effort


# ------------------------------------------------------------------------ Chat -> Lux responses


def _annotations(message: ChatCompletionResponseMessage, path: str, cx: Cx) -> list[LucentAnnotation] | UnsetType:
    """url_citation annotations as Lux url annotations of the message's text (title kept)."""
    if message.annotations is UNSET or not message.annotations:
        return UNSET
    out: list[LucentAnnotation] = []
    for k, item in enumerate(message.annotations):
        where = f"{path}.annotations[{k}]"
        cite = item.url_citation
        cx.keep(MEMBERS, where, "title", cite.title, f"{where}.url_citation.title")
        out.append(cx.built(where, LucentAnnotation(kind="url", ref=cite.url, start=cite.start_index, end=cite.end_index),
                            {"ref": "url_citation.url", "start": "url_citation.start_index", "end": "url_citation.end_index"}))
    return out


@reports("Degraded")
def chat_response_content(message: ChatCompletionResponseMessage, path: str, cx: Cx) -> list[LucentContent]:
    """The content as a text block (with the url_citation annotations), the refusal as a refusal
    block, one tool_use block per tool call; annotations [], audio and function_call kept in
    members at the choice (audio and function_call Degraded when not null)."""
    choice = _parent(path)
    blocks: list[LucentContent] = []
    annotations = _annotations(message, path, cx)
    if message.content is not None:
        block = LucentContentText(text=message.content, annotations=annotations)
        blocks.append(cx.built(f"{path}.content", block, {"text": ""}))
    elif annotations is not UNSET:
        cx.report(f"{path}.annotations", "Degraded", "annotations of a message without text have no Lux place; kept verbatim in provider_payload.openai_chat.members")
        cx.keep(MEMBERS, choice, "annotations", to_builtins(message.annotations), f"{path}.annotations")
    if message.annotations == []:
        cx.keep(MEMBERS, choice, "annotations", [], f"{path}.annotations")
    if message.refusal is not None:
        blocks.append(_refusal_block(message.refusal, path, message.content is None, cx))
    if message.tool_calls is not UNSET:
        if not message.tool_calls:
            cx.keep(MEMBERS, choice, "tool_calls", [], f"{path}.tool_calls")
        blocks.extend(_tool_use_block(call, f"{path}.tool_calls[{i}]", cx) for i, call in enumerate(message.tool_calls))
    for key in ("audio", "function_call"):
        value = getattr(message, key)
        if value is UNSET:
            continue
        if value is not None:
            cx.report(f"{path}.{key}", "Degraded", f"Lux has no assistant {key}; kept verbatim in provider_payload.openai_chat.members")
        cx.keep(MEMBERS, choice, key, to_builtins(value), f"{path}.{key}")
    return blocks


@reports("Degraded")
def chat_finish_reason(reason: str, path: str, cx: Cx) -> LucentFinishReason:
    """stop / length / tool_calls / content_filter as they are; the deprecated function_call as
    tool_calls (Degraded, kept in members)."""
    if reason == "function_call":
        cx.report(path, "Degraded", "Lux has no function_call finish reason; written as tool_calls and kept in provider_payload.openai_chat.members")
        cx.keep(MEMBERS, _parent(path), "finish_reason", reason, path)
        return "tool_calls"
    return reason  # type: ignore[return-value]


def _detail(details: Any, key: str) -> int | UnsetType:
    value = getattr(details, key, UNSET) if details is not UNSET and details is not None else UNSET
    return value if _is_int(value) else UNSET


def chat_cached_tokens(details: Any, path: str, cx: Cx) -> int | UnsetType:
    """prompt_tokens_details.cached_tokens (inside prompt_tokens, as Lux counts them)."""
    return _detail(details, "cached_tokens")


def chat_cache_write_tokens(details: Any, path: str, cx: Cx) -> int | UnsetType:
    """prompt_tokens_details.cache_write_tokens (inside prompt_tokens)."""
    return _detail(details, "cache_write_tokens")


def chat_reasoning_tokens(details: Any, path: str, cx: Cx) -> int | UnsetType:
    """completion_tokens_details.reasoning_tokens (inside completion_tokens)."""
    return _detail(details, "reasoning_tokens")


_LUX_DETAILS = {"prompt_tokens_details": ("cached_tokens", "cache_write_tokens"), "completion_tokens_details": ("reasoning_tokens",)}


def chat_usage_details(usage: CompletionUsage | UnsetType, path: str, cx: Cx, status: Status, reason: str) -> dict[str, Any] | UnsetType:
    """The token details Lux usage has no field for (audio and prediction counts), per details
    object, verbatim; an object kept empty says it was present (reported when any count is kept)."""
    if usage is UNSET:
        return UNSET
    kept: dict[str, Any] = {}
    for name, lux in _LUX_DETAILS.items():
        details = getattr(usage, name)
        if details is UNSET:
            continue
        counts = to_builtins(details)
        rest = {k: v for k, v in counts.items() if k not in lux}
        for key in rest:
            cx.report(f"{path}.{name}.{key}", status, reason)
        if rest or not any(k in counts for k in lux):  # else the Lux counts give the object back
            kept[name] = rest
    return kept if kept else UNSET


# ------------------------------------------------------------------------ Lux -> Chat responses

_FINISH = {lux: chat for lux, chat in FINISH_REASON_FROM_LUX.items() if lux not in FINISH_REASON_LOSS}


@reports("Degraded", "Unsupported", "Invalid")
def chat_response_message(message: LucentMessage, path: str, cx: Cx) -> ChatCompletionResponseMessage:
    """Text blocks as the content (several concatenated, Degraded: Lux text blocks are pieces of
    one text, as Anthropic splits a text around its citations), refusal blocks as the refusal
    (several joined with a newline, Degraded), tool_use blocks as tool_calls, url annotations as url_citation; the
    members kept at the choice put back; other blocks Unsupported."""
    choice = _parent(path)
    if message.role != "assistant":
        cx.report(f"{path}.role", "Degraded", f"a Chat response message is always assistant; the {message.role} role is written as assistant")
    texts: list[str] = []
    refusals: list[str] = []
    calls: list[Any] = []
    annotations: list[Any] = []
    offset = 0
    for j, block in enumerate(message.content):
        where = f"{path}.content[{j}]"
        if isinstance(block, LucentContentText):
            if block.annotations is not UNSET:
                annotations.extend(_url_citations(block.annotations, f"{where}.annotations", offset, cx))
            if texts:  # each block after the first, as the stream writer says it (lucent.formats.openai_chat.stream)
                cx.report(where, "Degraded", JOINED_TEXT)
            texts.append(block.text)
            offset += len(block.text)
        elif isinstance(block, LucentContentRefusal):
            if refusals:  # each block after the first, as the stream writer says it
                cx.report(where, "Degraded", JOINED_REFUSAL)
            refusals.append(block.refusal)
        elif isinstance(block, LucentContentToolUse):
            calls.append(_tool_call(block.tool_use, f"{where}.tool_use", cx))
        elif isinstance(block, LucentContentThinking):
            cx.report(where, "Unsupported", "a Chat Completions response carries no reasoning; dropped")
            cx.forget(where)
        else:
            _unsupported(where, "response message", cx)
    out = ChatCompletionResponseMessage(
        role="assistant",
        content="".join(texts) if texts else None,
        refusal="\n".join(refusals) if refusals else None,
    )
    if calls:
        out.tool_calls = calls
    elif _members(choice, "tool_calls", "array", cx) == []:
        out.tool_calls = []
    kept = _members(choice, "annotations", "array", cx)
    if annotations:
        out.annotations = annotations
    elif kept is not UNSET:
        out.annotations = typed(kept, list[ChatCompletionResponseMessageAnnotationsItem], _kept_path(choice, "annotations", cx), cx)
    for key, tp in (("audio", ChatCompletionResponseMessageAudioId | None), ("function_call", ChatCompletionResponseMessageFunctionCall)):
        value = _members(choice, key, "any", cx)
        if value is not UNSET:
            setattr(out, key, typed(value, tp, _kept_path(choice, key, cx), cx))
    return cx.built(path, out)


def _url_citations(annotations: list[LucentAnnotation], path: str, offset: int, cx: Cx) -> list[Any]:
    out = []
    for k, note in enumerate(annotations):
        where = f"{path}[{k}]"
        title = _members(where, "title", "string", cx)
        if note.kind == "file_citation" or note.ref is UNSET or note.start is UNSET or note.end is UNSET:
            cx.report(where, "Unsupported", "a Chat annotation is a url_citation with a URL and a start and end index; dropped")
            cx.forget(where)
            continue
        if note.kind == "web_search_citation":
            cx.report(f"{where}.kind", "Degraded", "Chat Completions cites the web as a url_citation")
        if title is UNSET:
            if note.text is not UNSET:
                cx.report(f"{where}.text", "Degraded", "a Chat url_citation has a title, not the cited text; written as the title")
            title = note.text if note.text is not UNSET else ""
        elif note.text is not UNSET:
            cx.report(f"{where}.text", "Unsupported", "a Chat url_citation has no cited text; dropped")
        cite = ChatCompletionResponseMessageAnnotationsItemUrlCitation(end_index=note.end + offset, start_index=note.start + offset, url=note.ref, title=title)
        out.append(cx.built(where, ChatCompletionResponseMessageAnnotationsItem(type="url_citation", url_citation=cite)))
    return out


@reports("Degraded", "Unsupported", "Invalid")
def chat_finish(reason: LucentFinishReason, path: str, cx: Cx) -> Literal["stop", "length", "tool_calls", "content_filter", "function_call"]:
    """The Chat finish reason: the same name, function_call when kept so, safety and recitation
    as content_filter (Degraded), malformed_tool_call and error as stop (Unsupported)."""
    if _members(_parent(path), "finish_reason", ("function_call",), cx) == "function_call" and reason == "tool_calls":
        return "function_call"
    if reason in _FINISH:
        return _FINISH[reason]  # type: ignore[return-value]
    written = FINISH_REASON_FROM_LUX[reason]
    if FINISH_REASON_LOSS[reason] == "Degraded":
        cx.report(path, "Degraded", f"Chat Completions reports a {reason} stop as {written}")
    else:
        cx.report(path, "Unsupported", f"Chat Completions has no {reason} finish reason; written as {written}")
    return written  # type: ignore[return-value]


@reports("Unsupported", "Invalid")
def chat_usage(usage: LucentUsage | UnsetType, path: str, cx: Cx, carried: str) -> Any:
    """prompt / completion / total tokens; cached_tokens and cache_creation_tokens in
    prompt_tokens_details, reasoning_tokens in completion_tokens_details, merged into the details
    kept in provider_payload.openai_chat.usage."""
    if usage is UNSET:
        return UNSET
    kept = cx.from_carried(carried, "object")
    kept = kept if isinstance(kept, dict) else {}
    for key in kept:
        if key not in _LUX_DETAILS:
            cx.report(member(f"{cx.carried_path}.{carried}", key), "Unsupported", "not a usage member the side-car keeps (the token details); ignored")
    out = CompletionUsage(completion_tokens=usage.completion_tokens, prompt_tokens=usage.prompt_tokens, total_tokens=usage.total_tokens)
    values = {"cached_tokens": usage.cached_tokens, "cache_write_tokens": usage.cache_creation_tokens, "reasoning_tokens": usage.reasoning_tokens}
    types = {"prompt_tokens_details": CompletionUsagePromptTokensDetails, "completion_tokens_details": CompletionUsageCompletionTokensDetails}
    for name, lux in _LUX_DETAILS.items():
        details = kept.get(name)
        found = {key: values[key] for key in lux if values[key] is not UNSET}
        if details is not None and not isinstance(details, dict) or name in kept and details is None:
            cx.report(f"{cx.carried_path}.{carried}.{name}", "Invalid", "not a JSON object of token counts; ignored")
            details = {}
        if details is None and not found:
            continue
        if not isinstance(details, dict):
            details = {}
        rest = typed({k: v for k, v in details.items() if k not in lux}, types[name], f"{cx.carried_path}.{carried}.{name}", cx)
        setattr(out, name, types[name](**{**(to_builtins(rest) if rest is not UNSET else {}), **found}))
    return cx.built(path, out, {"prompt_tokens": "prompt_tokens", "completion_tokens": "completion_tokens", "total_tokens": "total_tokens"})


@reports("Degraded", "Invalid")
@reads("created")
def chat_created(created_at: int | UnsetType, path: str, cx: Cx) -> int:
    """The caller's context["created"] (Chat's own name for it, as a Chat stream reads it; a
    different Lux created_at reported Degraded), else Lux created_at; a context value the Lux
    document lacks is no loss (the caller gave it, as to a Chat stream: nothing is reported);
    found in neither: Invalid target:$.created."""
    given = cx.from_context("created", "integer", "$.created")
    value = cx.prefer(given, created_at, path, "created")
    if value is UNSET:
        cx.missing("$.created", "created", "a Chat response states its creation time")
    created: int = present(value)
    return created
