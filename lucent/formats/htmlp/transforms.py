"""The transforms of the htmlp <-> Lux mapping specs (mappings/htmlp_lux_request.toml,
mappings/lux_htmlp_request.toml).

Each public function is one transform a spec may name (codegen/mappings.py TRANSFORMS lists them);
the generated converters of those specs call them, and the shared ones of lucent._transforms.
"""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar, cast

import msgspec
from msgspec import UNSET, Struct, UnsetType

from lucent._conversion import Cx, reports, Status
from lucent._validation import JsonTextError, described, dump_json_text, load_json_text, member
from lucent._transforms import text_only
from lucent.generated.htmlp_model_request import (
    ContentBlock,
    ContentBlockImage,
    ContentBlockReasoning,
    ContentBlockText,
    ContentBlockToolResult,
    ContentBlockToolUse,
    ContentSource,
    ContentSourceAssistantHistory,
    ContentSourceSystemPrompt,
    ContentSourceToolOutput,
    ContentSourceUserMessage,
    PromptFragment,
    Role,
    ThinkingLevel,
)
from lucent.generated.lux_ir_v1 import (
    LucentContent,
    LucentMultimedia,
    LucentReasoningConfig,
    LucentReasoningEffort,
    LucentThinking,
    LucentTool,
    LucentToolResult,
    LucentToolUse,
)


# ------------------------------------------------------------------------------------ htmlp <-> Lux

_HTMLP_LEVELS = ("off", "low", "medium", "high", "xhigh", "max")
_HTMLP_EFFORTS = ("low", "medium", "high")
_HTMLP_BEYOND_HIGH = ("xhigh", "max")
_UINT32_MAX = 4_294_967_295
_UINT_MAX = 18_446_744_073_709_551_615
_HTMLP_SURROGATE = re.compile("[\ud800-\udfff]")
# the members of a PromptFragment's attribution that extra.htmlp.members keeps (decision 1)
_ATTRIBUTION = ("source", "byte_count")


def thinking_level_to_reasoning(
    level: ThinkingLevel, path: str, cx: Cx, status: Status, reason: str
) -> LucentReasoningConfig | UnsetType:
    """off -> no reasoning configuration; low / medium / high -> that effort; xhigh / max -> high,
    reported."""
    if level == "off":
        return UNSET
    if level in _HTMLP_BEYOND_HIGH:
        cx.report(path, status, f"{reason}: {level} -> high")
        return LucentReasoningConfig(enabled=True, effort="high")
    return LucentReasoningConfig(enabled=True, effort=cast(LucentReasoningEffort, level))


def thinking_level_kept(level: ThinkingLevel, path: str, cx: Cx) -> str | UnsetType:
    """The levels a Lux reasoning configuration does not name (xhigh, max), kept as they are."""
    return level if level in _HTMLP_BEYOND_HIGH else UNSET


@reports("Invalid")
def arguments_json_text(value: Any, path: str, cx: Cx) -> str:
    """Any JSON value as its compact JSON text (separators "," and ":", keys in order); a value
    with no JSON text (too deep, or NaN/infinity in a Struct built in Python) is Invalid, "null"."""
    try:
        return dump_json_text(value)
    except JsonTextError as exc:
        cx.report(path, "Invalid", f"the value has no JSON text: it {exc.predicate}; written as null")
        return "null"


def media_key(path: str) -> str:
    """The key of extra.media for the LucentMultimedia object at `path` in a Lux document."""
    return path


def htmlp_media(fragments: list[PromptFragment], path: str, cx: Cx) -> dict[str, Any] | UnsetType:
    """The base64 text of every image block, keyed by the Lux path of its LucentMultimedia."""
    media = {
        # each entry recorded as built from its image block (provenance for a second hop)
        media_key(f"$.conversation[{i}].message.content[{j}].image"): cx.built(
            f"{path}[{i}].content[{j}]", {"data": block.base64_data}, {"data": "base64_data"}
        )
        for i, fragment in enumerate(fragments)
        for j, block in enumerate(fragment.content)
        if isinstance(block, ContentBlockImage)
    }
    return media if media else UNSET


def _arguments_text(value: Any) -> str | None:
    """The compact JSON text of a tool_use block's arguments (None when it has none)."""
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return None


def _block_texts(content: list[ContentBlock]) -> list[str]:
    """The text of each block that byte_count counts: text, reasoning, tool result content, tool
    call arguments as compact JSON text, image base64 text."""
    texts = []
    for block in content:
        if isinstance(block, (ContentBlockText, ContentBlockReasoning)):
            texts.append(block.text)
        elif isinstance(block, ContentBlockToolUse):
            texts.append(_arguments_text(block.arguments) or "")
        elif isinstance(block, ContentBlockToolResult):
            texts.append(block.content)
        else:
            texts.append(block.base64_data)
    return texts


def _byte_count(content: list[ContentBlock]) -> int:
    """The derived byte_count: the UTF-8 bytes of the fragment's text. A lone surrogate (only in a
    Struct built in Python: decoding refuses one) counts the 3 bytes surrogatepass gives it."""
    return sum(len(text.encode("utf-8", "surrogatepass")) for text in _block_texts(content))


def _derived_source(role: str, content: list[ContentBlock], cx: Cx) -> ContentSource:
    """The derived attribution: tool_output {tool_name} for a fragment of tool results whose call
    an earlier fragment names, else system_prompt / user_message / assistant_history by role.
    Called once per fragment, in order: it notes the tool names of the fragment's calls."""
    names: dict[str, str] = cx.memo.setdefault("htmlp.tool_names", {})
    for block in content:
        if isinstance(block, ContentBlockToolUse):
            names.setdefault(block.tool_use_id, block.tool_name)
    results = [b for b in content if isinstance(b, ContentBlockToolResult)]
    if results and len(results) == len(content) and results[0].tool_use_id in names:
        return ContentSourceToolOutput(tool_name=names[results[0].tool_use_id])
    if role == "system":
        return ContentSourceSystemPrompt()
    if role == "assistant":
        return ContentSourceAssistantHistory()
    return ContentSourceUserMessage()


def message_key(index: int) -> str:
    """The key of extra.htmlp.members for the fragment that becomes conversation[index]."""
    return f"$.conversation[{index}].message"


def attribution_members(fragments: list[PromptFragment], path: str, cx: Cx) -> dict[str, Any] | UnsetType:
    """extra.htmlp.members: for each fragment, the members of its attribution (source,
    byte_count) that differ from the ones Lux -> htmlp derives from the message; none when every
    fragment's attribution is the derived one."""
    members: dict[str, Any] = {}
    for i, fragment in enumerate(fragments):
        entry: dict[str, Any] = {}
        if fragment.source != _derived_source(fragment.role, fragment.content, cx):
            entry["source"] = msgspec.to_builtins(fragment.source)
        if fragment.byte_count != _byte_count(fragment.content):
            entry["byte_count"] = fragment.byte_count
        if entry:
            # recorded as built from the fragment, each member from its own (provenance)
            members[message_key(i)] = cx.built(f"{path}[{i}]", entry, {k: k for k in entry})
    return members if members else UNSET


# ------------------------------------------------------------------------------------- Lux -> htmlp


@reports("Degraded", "Unsupported", "Invalid")
def reasoning_to_thinking_level(
    reasoning: LucentReasoningConfig | UnsetType, path: str, cx: Cx, carried: str
) -> ThinkingLevel:
    """The htmlp level of a Lux reasoning configuration (decision 4 of lux_htmlp_request.toml)."""
    kept = cx.from_carried(carried, _HTMLP_LEVELS)
    if reasoning is UNSET:
        level: ThinkingLevel = "off"
    elif not reasoning.enabled:
        level = "off"
        if reasoning.effort is not UNSET:
            cx.report(f"{path}.effort", "Unsupported", "reasoning is disabled: an htmlp thinking level of off has no effort; dropped")
        cx.report(
            path,
            "Degraded",
            "disabled reasoning is htmlp's thinking level off, which comes back as no reasoning configuration (the two mean the same here)",
        )
    elif reasoning.effort is UNSET:
        level = "medium"
        cx.report(f"{path}.enabled", "Degraded", "reasoning enabled without an effort; htmlp needs a level: written as medium")
    else:
        level = reasoning.effort
    if kept is UNSET:
        return level
    where = member(cx.carried_path, carried)
    if kept in _HTMLP_BEYOND_HIGH and level == "high":
        return cast(ThinkingLevel, kept)
    if kept == level:
        cx.report(where, "Degraded", f"the level reasoning already gives ({level}); htmlp -> Lux keeps only xhigh and max, so it does not come back")
    else:
        cx.report(where, "Invalid", f"disagrees with reasoning ({level}); ignored")
    return level


@reports("Invalid")
def uint32_tokens(value: int | UnsetType, path: str, cx: Cx, carried: str) -> int | None | UnsetType:
    """A token limit htmlp accepts (0..2^32-1), else null when kept as null, else nothing."""
    if carried in cx.carried:
        where = member(cx.carried_path, carried)
        if cx.carried[carried] is not None:
            cx.report(where, "Invalid", "only null (no limit) is kept here; ignored")
        elif value is not UNSET:
            cx.report(where, "Invalid", "null (no limit) disagrees with options.max_output_tokens; ignored")
        else:
            return None
    if value is not UNSET:
        if 0 <= value <= _UINT32_MAX:
            return value
        cx.report(path, "Invalid", f"htmlp max_output_tokens is a uint32 (0..{_UINT32_MAX}); dropped")
    return UNSET


@reports("Degraded")
def empty_tool_list(tools: list[LucentTool], path: str, cx: Cx) -> list[Any]:
    """No tools of its own: an empty Lux tool list is reported, since htmlp, which requires tools,
    writes no tools as [] and that comes back as no tools list."""
    if not tools:
        cx.report(path, "Degraded", "an empty tool list: htmlp writes no tools as [], which comes back as no tools list")
    return []


@reports("Degraded")
def description_or_empty(value: str | UnsetType, path: str, cx: Cx) -> str:
    """A tool description; htmlp requires one, so a missing one is "" (reported)."""
    if value is UNSET:
        cx.report(path.rsplit(".", 1)[0], "Degraded", 'no description, which htmlp requires; written as ""')
        return ""
    return value


@reports("Degraded")
def json_arguments(text: str, path: str, cx: Cx, status: Status, reason: str) -> Any:
    """The JSON value whose text `text` is; other text is reported and kept as a JSON string.
    Text that is not the compact JSON of its value (which is what comes back) is Degraded."""
    try:
        value = load_json_text(text)  # 1e999, deep nesting, lone surrogates: not a carriable value
    except JsonTextError as exc:
        cx.report(path, status, f"{reason}: {exc.problem}")
        return text
    if _arguments_text(value) != text:
        cx.report(
            path,
            "Degraded",
            "written as its JSON value, whose compact JSON text (what comes back) differs from this text: spacing, number or escape forms",
        )
    return value


@reports("Degraded", "Unsupported")
def tool_result_text(content: list[LucentContent], path: str, cx: Cx) -> str:
    """The text blocks of a tool result joined with a newline; other blocks are reported."""
    if not content:
        cx.report(path, "Degraded", "no content blocks: written as an empty string, which comes back as one empty text block")
    texts = text_only(content, path, cx, "htmlp text has no annotations", "an htmlp tool result is text only; dropped")
    if len(texts) > 1:
        cx.report(path, "Degraded", f"{len(texts)} text blocks joined with a newline into one string")
    return "\n".join(texts)


def _uint(value: Any) -> int | None:
    """An htmlp uint (0..2^64-1); an integral JSON number such as 5.0 is the integer 5."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= _UINT_MAX:
        return value
    return None


def _kept_attribution(path: str, cx: Cx) -> tuple[ContentSource | None, int | None]:
    """extra.htmlp.members[path]: the source and byte_count kept for the Lux object at `path`
    (each None when not kept, or reported and ignored); checked once, and noted as read."""
    read: dict[str, tuple[ContentSource | None, int | None]] = cx.memo.setdefault("htmlp.members_read", {})
    if path in read:
        return read[path]
    members = cx.carried.get("members")
    if not isinstance(members, dict) or path not in members:
        return None, None  # a members value that is not an object is reported by side_car_leftovers
    read[path] = (None, None)
    where = member(member(cx.carried_path, "members"), path)
    entry = members[path]
    if not isinstance(entry, dict):
        cx.report(where, "Invalid", "not an object of attribution members (source, byte_count); ignored, the attribution is derived")
        return None, None
    for key in entry:
        if key not in _ATTRIBUTION:
            cx.report(member(where, key), "Unsupported", "not a member of an htmlp attribution (source, byte_count); dropped")
    source: ContentSource | None = None
    if "source" in entry:
        raw = entry["source"]
        raw = msgspec.to_builtins(raw) if isinstance(raw, Struct) else raw
        try:
            source = msgspec.convert(raw, ContentSource)
        except (msgspec.ValidationError, ValueError) as exc:
            cx.report(member(where, "source"), "Invalid", f"not an htmlp ContentSource ({described(exc)}); ignored, the source is derived")
        else:
            known = msgspec.to_builtins(source)
            for key in raw:
                if key not in known:
                    cx.report(member(member(where, "source"), key), "Unsupported", f"not a member of a {known['kind']} ContentSource; dropped")
    count: int | None = None
    if "byte_count" in entry:
        count = _uint(entry["byte_count"])
        if count is None:
            cx.report(
                member(where, "byte_count"),
                "Invalid",
                f"{entry['byte_count']!r} is not an htmlp byte_count (an integer in 0..2^64-1); ignored, the count is derived",
            )
    read[path] = (source, count)
    return source, count


@reports("Degraded", "Unsupported", "Invalid")
def fragment_source(role: Role, content: list[ContentBlock], path: str, cx: Cx) -> ContentSource:
    """The source kept for the Lux object at `path` in extra.htmlp.members, else the derived one
    (a kept one equal to it is reported: it does not come back)."""
    derived = _derived_source(role, content, cx)  # also notes the tool names of its calls
    return _kept_or(_kept_attribution(path, cx)[0], derived, path, "source", "the source the fragment is given anyway (derived from it)", cx)


T = TypeVar("T")


def _kept_or(kept: T | None, derived: T, path: str, name: str, what: str, cx: Cx) -> T:
    """The fragment attribution `name` kept for the Lux object at `path`, else the `derived`
    one; a kept one equal to it is reported Degraded (`what` it is): htmlp -> Lux keeps only one
    that differs, so it does not come back."""
    if kept is None:
        return derived
    if kept == derived:
        cx.report(member(member(member(cx.carried_path, "members"), path), name), "Degraded", f"{what}; htmlp -> Lux keeps only one that differs, so it does not come back")
    return kept


@reports("Degraded", "Unsupported", "Invalid")
def fragment_byte_count(content: list[ContentBlock], path: str, cx: Cx) -> int:
    """The byte_count kept for the Lux object at `path` in extra.htmlp.members, else the UTF-8
    bytes of the fragment's text (a kept one equal to it is reported: it does not come back)."""
    derived = _byte_count(content)
    if any(not text.isascii() and _HTMLP_SURROGATE.search(text) for text in _block_texts(content)):
        cx.report(path, "Invalid", "holds a lone UTF-16 surrogate, which UTF-8 cannot carry: the htmlp request has no JSON text")
    return _kept_or(_kept_attribution(path, cx)[1], derived, path, "byte_count", "the byte_count the fragment's text gives anyway", cx)


def _fragment(role: Role, content: list[ContentBlock], path: str, cx: Cx) -> PromptFragment:
    return PromptFragment(
        source=fragment_source(role, content, path, cx),
        role=role,
        content=content,
        byte_count=fragment_byte_count(content, path, cx),
    )


@reports("Degraded", "Unsupported", "Invalid")
def instruction_fragments(instructions: list[LucentContent], path: str, cx: Cx) -> list[PromptFragment]:
    """The text blocks of the instructions as one system fragment (source system_prompt)."""
    if not instructions:
        cx.report(path, "Degraded", "an empty instruction list writes no fragment, so it does not come back")
    texts = text_only(instructions, path, cx, "htmlp text has no annotations", "an htmlp system fragment made from instructions is text only; dropped")
    content: list[ContentBlock] = [ContentBlockText(text=text) for text in texts]
    if not content:
        return []
    return [_fragment("system", content, path, cx)]


@reports("Degraded", "Unsupported", "Invalid")
def tool_call_fragment(
    out: list[PromptFragment], call: LucentToolUse, path: str, cx: Cx, status: Status, reason: str
) -> None:
    """A tool_call item as an assistant fragment with one tool_use block (reported: it comes back
    as a message)."""
    cx.report(path, status, reason)
    arguments = json_arguments(call.arguments, f"{path}.tool_call.arguments", cx, "Invalid", "Lux tool arguments are the JSON text of one value; kept as a JSON string")
    block = ContentBlockToolUse(tool_use_id=call.id, tool_name=call.name, arguments=arguments)
    out.append(_fragment("assistant", [block], f"{path}.tool_call", cx))


@reports("Degraded", "Unsupported", "Invalid")
def tool_result_fragment(
    out: list[PromptFragment], result: LucentToolResult, path: str, cx: Cx, status: Status, reason: str
) -> None:
    """A tool_result item as a user fragment with one tool_result block (reported: it comes back
    as a message)."""
    cx.report(path, status, reason)
    text = tool_result_text(result.content, f"{path}.tool_result.content", cx)
    block = ContentBlockToolResult(tool_use_id=result.tool_use_id, content=text, is_error=result.is_error)
    out.append(_fragment("user", [block], f"{path}.tool_result", cx))


_REDACTED = "redacted reasoning can only be replayed with its signature, which htmlp cannot carry; dropped"


@reports("Degraded", "Unsupported", "Invalid")
def reasoning_fragment(
    out: list[PromptFragment], thinking: LucentThinking, path: str, cx: Cx, status: Status, reason: str
) -> None:
    """A reasoning item as an assistant fragment with one reasoning block (reported: it comes
    back as a message); a redacted one is Unsupported and dropped."""
    if thinking.redacted:
        cx.report(path, "Unsupported", _REDACTED)
        return
    cx.report(path, status, reason)
    out.append(_fragment("assistant", [ContentBlockReasoning(text=thinking.text)], f"{path}.reasoning", cx))


def reasoning_block(
    out: list[ContentBlock], thinking: LucentThinking, path: str, cx: Cx, status: Status, reason: str
) -> None:
    """A thinking block as a reasoning block; a redacted one is reported and dropped."""
    if thinking.redacted:
        cx.report(path, status, reason)
        return
    out.append(ContentBlockReasoning(text=thinking.text))


@reports("Invalid")
def inline_image(
    out: list[ContentBlock], image: LucentMultimedia, path: str, cx: Cx, status: Status, reason: str
) -> None:
    """An inline image whose base64 text is in extra.media; any other image is reported."""
    data = cx.kept("media", f"{path}.image", "data", "string") if image.source == "inline" else UNSET
    if data is UNSET:
        cx.report(path, status, reason)
        return
    out.append(ContentBlockImage(media_type=image.media_type, base64_data=data))


def _side_car_object(value: Any, where: str, what: str, cx: Cx) -> bool:
    """Whether a side-car value is an object (else Invalid); an empty one is reported, since it
    does not come back."""
    if not isinstance(value, dict):
        cx.report(where, "Invalid", f"not an object of {what} keyed by Lux path; ignored")
        return False
    if not value:
        cx.report(where, "Degraded", "an empty side-car object; it does not come back")
    return True


@reports("Degraded", "Unsupported", "Invalid")
def side_car_leftovers(extra: dict[str, Any], path: str, cx: Cx) -> list[PromptFragment]:
    """No fragment of its own; run after the conversation, it reports what of the side-cars does
    not come back: an extra.htmlp.members entry no conversation item read, a members or media
    value that is not an object, and an empty extra, extra.htmlp, members or media object."""
    if not extra:
        cx.report(path, "Degraded", "an empty extra object; htmlp has no extension fields, so it does not come back")
        return []
    if extra.get("htmlp") == {}:
        cx.report(member(path, "htmlp"), "Degraded", "an empty side-car object; it does not come back")
    if "media" in extra:
        if isinstance(extra["media"], dict):
            _side_car_object(extra["media"], member(path, "media"), "the base64 text of inline media", cx)
        else:
            cx._space("media")  # reports the side-car that is not an object, once
    if "members" in cx.carried:
        members = cx.carried["members"]
        where = member(cx.carried_path, "members")
        if _side_car_object(members, where, "attributions", cx):
            read = cx.memo.get("htmlp.members_read", {})
            for key in members:
                if key not in read:
                    cx.report(member(where, key), "Unsupported", "no conversation item of the request is at this Lux path: the attribution is not used")
    return []
