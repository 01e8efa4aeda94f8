"""The transforms of the llm-sdk <-> Lux mapping specs (mappings/llm_sdk_lux_*.toml,
mappings/lux_llm_sdk_*.toml).

Each public function is one transform a spec may name (codegen/mappings.py TRANSFORMS lists them);
the generated converters of those specs call them, and the shared ones of lucent._transforms.
"""

from __future__ import annotations

import re
from typing import Any, cast

from msgspec import UNSET, UnsetType, ValidationError, convert, to_builtins

from lucent._conversion import Cx, reports, Status
from lucent._transforms import json_object_problem, text_only
from lucent._validation import JsonTextError, dump_json_text, load_json_text, member
from lucent.generated.llm_sdk import (
    AssistantMessage,
    AudioPart,
    ImagePart,
    Message,
    ModelTokensDetail,
    ModelUsage,
    Part,
    ResponseFormatJson,
    ResponseFormatText,
    TextPart,
    ToolCallPart,
    ToolMessage,
    ToolResultPart,
    UserMessage,
)
from lucent.generated.lux_ir_v1 import (
    LucentChoice,
    LucentContent,
    LucentContentText,
    LucentConversationItem,
    LucentConversationItemMessage,
    LucentMessage,
    LucentFinishReason,
    LucentStructuredOutput,
    LucentStructuredOutputJsonSchema,
    LucentUsage,
)

_WHOLE = 2**53
"""The largest whole number a JSON double carries exactly: topK up to it is an integer."""

# Audio formats: llm-sdk names a container or an encoding, Lux a media type (docs/semantics.md).
_CONTAINER_MEDIA = {"wav": "audio/wav", "ogg": "audio/ogg", "flac": "audio/flac", "webm": "audio/webm"}
_ENCODING_MEDIA = {
    "mp3": "audio/mpeg",
    "aac": "audio/aac",
    "opus": "audio/opus",
    "flac": "audio/flac",
    "linear16": "audio/L16",
    "mulaw": "audio/PCMU",
    "alaw": "audio/PCMA",
}
_MEDIA_CONTAINER = {media: container for container, media in _CONTAINER_MEDIA.items()}
_MEDIA_ENCODING = {media: encoding for encoding, media in _ENCODING_MEDIA.items() if media not in _MEDIA_CONTAINER}
_UNKNOWN_MEDIA = "application/octet-stream"


def canonical_json(value: Any) -> str:
    """The compact JSON text of a JSON value (keys in order, no spaces, UTF-8 kept); raises
    JsonTextError (a ValueError) for a value with none (NaN or infinity, a type JSON lacks,
    nesting deeper than MAX_JSON_TEXT_DEPTH, a lone surrogate)."""
    return dump_json_text(value)


def _is_whole(value: float) -> bool:
    return float(value).is_integer() and abs(value) <= _WHOLE


def whole_number(value: float | UnsetType, path: str, cx: Cx) -> int | UnsetType:
    """A number that is a whole number (|n| <= 2**53) as an integer, else UNSET."""
    if value is UNSET or not _is_whole(value):
        return UNSET
    return int(value)


def fraction(value: float | UnsetType, path: str, cx: Cx, status: Status, reason: str) -> float | UnsetType:
    """A number that whole_number does not take (reported), else UNSET."""
    if value is UNSET or _is_whole(value):
        return UNSET
    cx.report(path, status, reason)
    return value


def response_format_to_lux(
    value: ResponseFormatJson | ResponseFormatText | UnsetType, path: str, cx: Cx
) -> LucentStructuredOutput | UnsetType:
    """text -> "text"; json with a schema -> {type: json_schema, schema}; json alone -> "json_object"."""
    if value is UNSET:
        return UNSET
    if isinstance(value, ResponseFormatText):
        return "text"
    if value.schema is UNSET:
        return "json_object"
    return cx.built(path, LucentStructuredOutputJsonSchema(schema=value.schema), {"schema": "schema"})


def tool_message_starts(messages: list[Message], path: str, cx: Cx) -> list[int] | UnsetType:
    """Lux conversation indexes where a tool message that follows another tool message begins."""
    starts: list[int] = []
    origins: dict[int, str] = {}
    index = 0
    previous = ""
    for n, message in enumerate(messages):
        if isinstance(message, ToolMessage):
            if previous == "tool" and message.content:
                origins[len(starts)] = f"{path}[{n}]"
                starts.append(index)
            index += len(message.content)
            previous = "tool"
        else:
            index += 1
            previous = "other"
    return cx.sourced(starts, origins) if starts else UNSET


def empty_tool_messages(messages: list[Message], path: str, cx: Cx) -> list[int] | UnsetType:
    """Lux conversation indexes where an llm-sdk tool message with no parts stood (the index of
    the Lux item after it): such a message has no Lux item of its own."""
    found: list[int] = []
    origins: dict[int, str] = {}
    index = 0
    for n, message in enumerate(messages):
        if isinstance(message, ToolMessage):
            if not message.content:
                origins[len(found)] = f"{path}[{n}]"
                found.append(index)
            index += len(message.content)
        else:
            index += 1
    return cx.sourced(found, origins) if found else UNSET


def audio_media_type(container: str | UnsetType, encoding: str | UnsetType, path: str, cx: Cx) -> str:
    """audio/<container>, else the encoding's media type, else application/octet-stream."""
    if container is not UNSET:
        return _CONTAINER_MEDIA[container]
    if encoding is not UNSET:
        return _ENCODING_MEDIA[encoding]
    return _UNKNOWN_MEDIA


def _audio_format(media_type: str) -> tuple[str | UnsetType, str | UnsetType]:
    """The (container, encoding) an llm-sdk AudioPart gets from a Lux media type."""
    return _MEDIA_CONTAINER.get(media_type, UNSET), _MEDIA_ENCODING.get(media_type, UNSET)


def audio_container_implied(part: AudioPart, path: str, cx: Cx) -> bool:
    """The container is given back by the Lux media type."""
    media = audio_media_type(part.container, part.encoding, path, cx)
    return _audio_format(media)[0] == part.container


def audio_encoding_implied(part: AudioPart, path: str, cx: Cx) -> bool:
    """The encoding is given back by the Lux media type."""
    media = audio_media_type(part.container, part.encoding, path, cx)
    return _audio_format(media)[1] == part.encoding


def tool_call_name(name: str, call_id: str, path: str, cx: Cx) -> str:
    """The tool name, remembered for the tool results that answer this call id."""
    cx.memo.setdefault("tool_names", {})[call_id] = name
    return name


def _tool_name_of(call_id: str, cx: Cx) -> str | None:
    names: dict[str, str] = cx.memo.get("tool_names", {})
    return names.get(call_id)


def tool_name_implied(part: ToolResultPart, path: str, cx: Cx) -> bool:
    """The result's toolName is the name of the latest tool call with its id."""
    return _tool_name_of(part.toolCallId, cx) == part.toolName


@reports("Invalid")
def json_text(value: Any, path: str, cx: Cx) -> str:
    """A JSON value (tool call args: an object, or null) as its compact JSON text; a value with
    no JSON text (a Struct built in Python may hold one) is Invalid and written as "null"."""
    try:
        return canonical_json(value)
    except JsonTextError as exc:
        cx.report(path, "Invalid", f"the value has no JSON text: it {exc.predicate}; written as null")
        return "null"


@reports("Invalid")
def json_text_block(value: Any, path: str, cx: Cx) -> list[LucentContent]:
    """A JSON value (a tool result: an object or an array) as one text block of its JSON text; a
    value with no JSON text is Invalid and written as no content."""
    try:
        text = canonical_json(value)
    except JsonTextError as exc:
        cx.report(path, "Invalid", f"the value has no JSON text: it {exc.predicate}; written as no content")
        return []
    return [cx.built(path, LucentContentText(text=text), {"text": ""})]


def false_when_absent(value: bool | UnsetType, path: str, cx: Cx) -> bool:
    """A flag llm-sdk may leave out: absent is false."""
    return False if value is UNSET else value


# ------------------------------------------------------------------------- Lux -> llm-sdk inputs


class LlmSdkParts:
    """The blocks of one Lux message as llm-sdk parts, in order, each with its Lux path; tool
    results apart (they become an llm-sdk tool message of their own)."""

    __slots__ = ("parts", "results")

    def __init__(self) -> None:
        self.parts: list[tuple[Part, str]] = []
        self.results: list[tuple[ToolResultPart, str]] = []


def _root(path: str) -> str:
    return path.rsplit(".", 1)[0]


@reports("Degraded", "Unsupported")
def system_prompt(
    instructions: list[LucentContent] | UnsetType, conversation: list[LucentConversationItem], path: str, cx: Cx
) -> str | UnsetType:
    """instructions' text blocks, then those of the leading system / developer messages, joined
    with "\\n"; more than one instruction block, one joined with folded messages, and every folded
    message are Degraded. The folded
    messages are remembered, and emit_llm_sdk_message skips them."""
    root = _root(path)
    texts: list[str] = []
    if instructions is not UNSET:
        count = sum(isinstance(block, LucentContentText) for block in instructions)
        if count > 1:
            cx.report(path, "Degraded", f"{count} instruction text blocks joined with a newline into systemPrompt")
        elif not instructions:
            cx.report(path, "Degraded", "empty instructions; llm-sdk leaves systemPrompt out")
        texts.extend(text_only(instructions, path, cx, "llm-sdk text has no annotations", "systemPrompt is text only; dropped"))
    folded: set[str] = set()
    for i, item in enumerate(conversation):
        if not isinstance(item, LucentConversationItemMessage) or item.message.role not in ("system", "developer"):
            break
        where = f"{root}.conversation[{i}].message"
        folded.add(where)
        texts.extend(block.text for block in item.message.content if isinstance(block, LucentContentText))
        cx.report(where, "Degraded", f"a leading {item.message.role} message is written into systemPrompt (joined with a newline)")
    cx.memo["folded"] = folded
    if folded and instructions is not UNSET and len([b for b in instructions if isinstance(b, LucentContentText)]) == 1:
        cx.report(path, "Degraded", "the instruction text is joined with the leading system messages into systemPrompt")
    return "\n".join(texts) if texts or instructions else UNSET


def _allowed(part: Part, role: str) -> bool:
    if role == "user":
        return isinstance(part, (TextPart, ImagePart, AudioPart))
    if role == "assistant":
        return isinstance(part, (TextPart, ToolCallPart, AudioPart))
    return False


def _has_data(part: Part) -> bool:
    """Media parts whose bytes were not found (reported already) are left out."""
    if isinstance(part, ImagePart):
        return isinstance(part.imageData, str)
    if isinstance(part, AudioPart):
        return isinstance(part.audioData, str)
    return True


@reports("Degraded", "Unsupported")
def emit_llm_sdk_message(out: list[Message], message: LucentMessage, parts: LlmSdkParts, path: str, cx: Cx) -> None:
    """One Lux message as llm-sdk messages: its tool results first (a tool message), then the
    message by role (user; assistant; model -> assistant and mid-conversation system / developer
    -> user, Degraded). Parts the role cannot hold are Unsupported; a folded leading system
    message (system_prompt) writes nothing more."""
    folded = path in cx.memo.get("folded", set())
    role = {"user": "user", "system": "user", "developer": "user", "assistant": "assistant", "model": "assistant"}.get(message.role, "tool")
    if parts.results and not folded:
        results = [result for result, _ in parts.results]
        if message.role == "tool":
            cx.report(path, "Degraded", "a tool message of tool_result blocks is written as one llm-sdk tool message (back in Lux: tool_result items)")
        else:
            for _, where in parts.results:
                cx.report(where, "Degraded", "a tool_result block is written as an llm-sdk tool message before its message")
        out.append(cx.built(path, ToolMessage(content=results)))
    elif parts.results:
        for _, where in parts.results:
            cx.report(where, "Unsupported", "systemPrompt is text only; dropped")
            cx.forget(where)
    kept: list[Part] = []
    for part, where in parts.parts:
        if folded:
            if not isinstance(part, TextPart):
                cx.report(where, "Unsupported", "systemPrompt is text only; dropped")
                cx.forget(where)
        elif not _allowed(part, role):
            cx.report(where, "Unsupported", f"an llm-sdk {role} message cannot hold this part; dropped")
            cx.forget(where)
        elif _has_data(part):
            kept.append(part)
    if folded:
        return
    if role == "tool":
        if not parts.results:
            cx.report(path, "Degraded", "a tool message without tool results is an empty llm-sdk tool message (back in Lux: extra.llm_sdk.empty_tool_messages)")
            out.append(cx.built(path, ToolMessage(content=[])))
        return
    if message.role in ("system", "developer"):
        cx.report(f"{path}.role", "Degraded", f"llm-sdk has no {message.role} role inside messages; written as a user message at its position")
    elif message.role == "model":
        cx.report(f"{path}.role", "Degraded", "llm-sdk has no model role; written as assistant")
    if not kept and parts.results and not parts.parts:
        cx.report(f"{path}.role", "Degraded", "the message held only tool results: it is written as the llm-sdk tool message alone")
        return
    if role == "assistant":
        out.append(cx.built(path, AssistantMessage(content=[p for p in kept if isinstance(p, (TextPart, ToolCallPart, AudioPart))])))
    else:
        out.append(cx.built(path, UserMessage(content=[p for p in kept if isinstance(p, (TextPart, ImagePart, AudioPart))])))


_CONVERSATION_INDEX = re.compile(r"^\$\.conversation\[(\d+)\]")


@reports("Invalid")
def insert_empty_tool_messages(messages: list[Message], cx: Cx) -> None:
    """Put back the empty tool messages extra.llm_sdk.empty_tool_messages lists, before the first
    message written from that Lux index or a later one."""
    wanted = cx.from_carried("empty_tool_messages", "array")
    if isinstance(wanted, UnsetType):
        return
    if not all(isinstance(i, int) and not isinstance(i, bool) for i in wanted):
        cx.report(member(cx.carried_path, "empty_tool_messages"), "Invalid", "not a list of conversation indexes; ignored")
        return
    indexes = []
    for message in messages:
        record = cx._built.get(id(message))
        found = _CONVERSATION_INDEX.match(record[1]) if record is not None and record[0] is message else None
        indexes.append(int(found.group(1)) if found else -1)
    for index in sorted(wanted, reverse=True):
        at = next((n for n, i in enumerate(indexes) if i >= index), len(messages))
        messages.insert(at, ToolMessage(content=[]))
        indexes.insert(at, index)


def append_tool_call_part(
    out: list[Message], part: ToolCallPart, path: str, cx: Cx, status: Status, reason: str
) -> None:
    """A tool_call item joins the assistant message right before it as a tool-call part, or opens
    one (reported: the item becomes a part)."""
    cx.report(path, status, reason)
    last = out[-1] if out else None
    if isinstance(last, AssistantMessage):
        last.content.append(part)
        return
    out.append(cx.built(path, AssistantMessage(content=[part])))


def _starts(cx: Cx) -> set[int]:
    if "starts" not in cx.memo:
        value = cx.from_carried("tool_message_starts", "array")
        found: set[int] = set()
        if value is not UNSET:
            if all(isinstance(i, int) and not isinstance(i, bool) for i in value):
                found = set(value)
            else:
                cx.report(member(cx.carried_path, "tool_message_starts"), "Invalid", "not a list of conversation indexes; ignored")
        cx.memo["starts"] = found
    starts: set[int] = cx.memo["starts"]
    return starts


@reports("Invalid")
def append_tool_result_part(out: list[Message], part: ToolResultPart, path: str, cx: Cx) -> None:
    """Consecutive tool_result items are one llm-sdk tool message, unless
    extra.llm_sdk.tool_message_starts names this item's index."""
    index = int(path[path.rindex("[") + 1 : -1])
    last = out[-1] if out else None
    if cx.memo.get("tool_group") is last and isinstance(last, ToolMessage) and index not in _starts(cx):
        last.content.append(part)
        return
    message = cx.built(path, ToolMessage(content=[part]))
    out.append(message)
    cx.memo["tool_group"] = message


@reports("Invalid")
def tool_name_for(call_id: str, path: str, cx: Cx) -> str:
    """The name of the latest tool call with this id; "" (Invalid) when there is none."""
    name = _tool_name_of(call_id, cx)
    if name is None:
        cx.report(path, "Invalid", "no tool call with this id comes before it, and llm-sdk needs a toolName; written as \"\"")
        return ""
    return name


def _json_value(text: str) -> tuple[Any, str | None, JsonTextError | None]:
    """(value, its compact JSON text, None) for JSON text that load_json_text reads (no duplicate
    keys, NaN, number out of range such as 1e999, trailing data, deep nesting); else
    (None, None, why)."""
    try:
        value = load_json_text(text)
        return value, canonical_json(value), None
    except JsonTextError as exc:
        return None, None, exc


@reports("Degraded")
def json_args(arguments: str, path: str, cx: Cx, status: Status, reason: str) -> dict[str, Any] | None:
    """Tool call arguments as llm-sdk args: the JSON object ("null" is null); re-serialized text is
    Degraded, text that is not a JSON object (or null) is reported and written as null."""
    value, compact, _ = _json_value(arguments)
    if compact is None or not (value is None or isinstance(value, dict)):
        problem = json_object_problem(arguments) or "not a JSON object"
        cx.report(path, status, f"{reason}: {problem}")
        return None
    if compact != arguments:
        cx.report(path, "Degraded", "llm-sdk args are a JSON value: the text is re-serialized (spacing and number forms are not kept)")
    return value


@reports("Degraded", "Unsupported")
def json_result(
    content: list[LucentContent], path: str, cx: Cx, status: Status, reason: str
) -> list[Any] | dict[str, Any]:
    """A tool result's content as llm-sdk result: one text block holding the compact JSON of an
    object or an array is that value; otherwise the text blocks as llm-sdk text parts (reported),
    [] for none. Other blocks are Unsupported."""
    texts = text_only(content, path, cx, "llm-sdk text has no annotations", "an llm-sdk tool result holds JSON only; dropped")
    why = None
    if len(content) == 1 and len(texts) == 1:
        value, compact, why = _json_value(texts[0])
        if compact is not None and isinstance(value, (dict, list)):
            if compact != texts[0]:
                cx.report(f"{path}[0].text", "Degraded", "the JSON text is re-serialized (spacing and number forms are not kept)")
            return value
    if not texts:
        cx.report(path, status, f"{reason}: no text; written as []")
        return []
    if why is not None and why.kind not in ("malformed", "trailing_data"):
        cx.report(path, status, f"{reason}: the text is JSON that lucent does not read as a value ({why.problem})")
    else:
        cx.report(path, status, reason)
    return [{"type": "text", "text": text} for text in texts]


def true_or_absent(value: bool, path: str, cx: Cx) -> bool | UnsetType:
    """is_error: true is isError true; false leaves isError out."""
    return True if value else UNSET


def text_or_empty(value: str | UnsetType, path: str, cx: Cx, status: Status, reason: str) -> str:
    """A text llm-sdk requires: absent is "" (reported)."""
    if value is UNSET:
        cx.report(path, status, reason)
        return ""
    return value


def object_or_null(value: Any, path: str, cx: Cx, status: Status, reason: str) -> dict[str, Any] | None:
    """A JSON object, or null; anything else is reported and written as null."""
    if value is None or isinstance(value, dict):
        return value
    cx.report(path, status, reason)
    return None


def object_or_absent(value: Any, path: str, cx: Cx, status: Status, reason: str) -> dict[str, Any] | UnsetType:
    """A JSON object; anything else is reported and left out."""
    if isinstance(value, dict):
        return value
    cx.report(path, status, reason)
    return UNSET


@reports("Invalid")
def inline_media_data(source: str, path: str, cx: Cx, status: Status, reason: str) -> str:
    """The base64 text of inline media, from the side-car extra.media[<Lux path>].data. A url or
    file_uri medium is reported (status); inline media without its bytes is Invalid. Either way
    the part is left out (the value is UNSET)."""
    where = _root(path)
    if source != "inline":
        cx.report(where, status, reason)
        return cast(str, UNSET)
    data = cx.kept("media", where, "data", "string")
    if data is UNSET:
        cx.report(where, "Invalid", "inline media without its base64 text in extra.media; dropped")
    return cast(str, data)


def audio_container(media_type: str, path: str, cx: Cx) -> str | UnsetType:
    """The llm-sdk audio container a Lux media type names (audio/wav -> wav ...)."""
    return _audio_format(media_type)[0]


def audio_encoding(media_type: str, path: str, cx: Cx, status: Status, reason: str) -> str | UnsetType:
    """The llm-sdk audio encoding a Lux media type names (audio/mpeg -> mp3 ...); a media type
    that names neither a container nor an encoding is reported."""
    container, encoding = _audio_format(media_type)
    if container is UNSET and encoding is UNSET and media_type != _UNKNOWN_MEDIA:
        cx.report(path, status, f"{reason}: {media_type}")
    return encoding


# ------------------------------------------------------------------------ llm-sdk <-> Lux responses


def inferred_finish_reason(content: list[Any], path: str, cx: Cx) -> LucentFinishReason:
    """tool_calls when the content has a tool call, else stop (llm-sdk responses carry none)."""
    return "tool_calls" if any(isinstance(part, ToolCallPart) for part in content) else "stop"


def sum_tokens(first: int, second: int, path: str, cx: Cx) -> int:
    """The sum of two token counts (total = input + output)."""
    return first + second


def cached_text_tokens(detail: ModelTokensDetail | UnsetType, path: str, cx: Cx) -> int | UnsetType:
    """inputTokensDetail.cachedTextTokens (cached input tokens)."""
    return UNSET if detail is UNSET else detail.cachedTextTokens


def _detail_members(detail: ModelTokensDetail | UnsetType, skip: str = "") -> dict[str, Any]:
    if detail is UNSET:
        return {}
    return {k: v for k, v in to_builtins(detail).items() if k != skip}


def input_detail_rest(usage: ModelUsage | UnsetType, path: str, cx: Cx, status: Status, reason: str) -> dict[str, Any] | UnsetType:
    """inputTokensDetail without cachedTextTokens (each member reported); {} for an empty one (so
    that it comes back), else UNSET."""
    if usage is UNSET or usage.inputTokensDetail is UNSET:
        return UNSET
    rest = _detail_members(usage.inputTokensDetail, "cachedTextTokens")
    for key in rest:
        cx.report(f"{path}.inputTokensDetail.{key}", status, reason)
    return rest if rest or usage.inputTokensDetail.cachedTextTokens is UNSET else UNSET


def output_detail(usage: ModelUsage | UnsetType, path: str, cx: Cx, status: Status, reason: str) -> dict[str, Any] | UnsetType:
    """outputTokensDetail (each member reported), else UNSET."""
    if usage is UNSET or usage.outputTokensDetail is UNSET:
        return UNSET
    members = _detail_members(usage.outputTokensDetail)
    for key in members:
        cx.report(f"{path}.outputTokensDetail.{key}", status, reason)
    return members


@reports("Invalid")
def tokens_detail(value: Any, path: str, cx: Cx) -> ModelTokensDetail | UnsetType:
    """A kept ModelTokensDetail object (reported Invalid when it is not one)."""
    if isinstance(value, UnsetType):
        return UNSET
    try:
        detail: ModelTokensDetail = convert(value, ModelTokensDetail)
        return detail
    except ValidationError:
        cx.report(path, "Invalid", "not an llm-sdk ModelTokensDetail; ignored")
        return UNSET


@reports("Invalid")
def input_tokens_detail(cached: int | UnsetType, path: str, cx: Cx, carried: str) -> ModelTokensDetail | UnsetType:
    """inputTokensDetail: the kept per-modality counts, and cachedTextTokens from cached_tokens."""
    kept = cx.from_carried(carried, "object")
    missing = isinstance(kept, UnsetType)
    members: dict[str, Any] = {} if missing else dict(kept)
    if cached is not UNSET:
        members["cachedTextTokens"] = cached
    if not members and missing:
        return UNSET
    return tokens_detail(members, member(cx.carried_path, carried), cx)


def total_is_sum(usage: LucentUsage, path: str, cx: Cx) -> bool:
    """total_tokens is prompt_tokens + completion_tokens."""
    return usage.total_tokens == usage.prompt_tokens + usage.completion_tokens


@reports("Degraded", "Unsupported")
def emit_response_content(out: list[TextPart | ToolCallPart | AudioPart], choice: LucentChoice, parts: LlmSdkParts, path: str, cx: Cx) -> None:
    """The first choice's parts are the response content; the other choices are Unsupported. The
    finish reason is reported (Degraded when the content gives it back, else Unsupported), as
    are an index other than 0 and a role other than assistant."""
    if "responded" in cx.memo:
        cx.report(path, "Unsupported", "an llm-sdk response is one message; this choice is dropped")
        cx.forget(path)
        return
    cx.memo["responded"] = True
    if choice.index != 0:
        cx.report(f"{path}.index", "Unsupported", "an llm-sdk response has no choice index")
    if choice.message.role == "model":
        cx.report(f"{path}.message.role", "Degraded", "llm-sdk responses are assistant messages; model written as assistant")
    elif choice.message.role != "assistant":
        cx.report(f"{path}.message.role", "Unsupported", "llm-sdk responses are assistant messages; the role is dropped")
    for part, where in parts.parts:
        if isinstance(part, (TextPart, ToolCallPart, AudioPart)) and _has_data(part):
            out.append(part)
        elif not isinstance(part, (TextPart, ToolCallPart, AudioPart)):
            cx.report(where, "Unsupported", "an llm-sdk response cannot hold this part; dropped")
            cx.forget(where)
    derived = "tool_calls" if any(isinstance(part, ToolCallPart) for part in out) else "stop"
    if choice.finish_reason == derived:
        cx.report(f"{path}.finish_reason", "Degraded", f"llm-sdk responses carry no finish reason; {derived} follows from the content (llm-sdk -> Lux derives it back)")
    else:
        cx.report(f"{path}.finish_reason", "Unsupported", f"llm-sdk responses carry no finish reason, and only {derived} follows from the content")
