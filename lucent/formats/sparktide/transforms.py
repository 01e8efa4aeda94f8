"""The transforms of the SparkTide REMOTE 1.0 <-> Lux mapping specs (mappings/*sparktide*.toml):
Chat-Completions-shaped requests, responses and failures.

Each public function is one transform a spec may name (codegen/mappings.py TRANSFORMS lists them);
the generated converters of those specs call them, and the shared ones of lucent._transforms.
The limits of SparkTide's ids and names are read from its schema by codegen, as data
(lucent.generated.sparktide_text_checks, rendered from codegen/templates/sparktide_text_checks.py.jinja).
"""

from __future__ import annotations

import re
from typing import Any, Literal, cast

from msgspec import UNSET, UnsetType

from lucent._conversion import Cx, reports, Status
from lucent._transforms import shown, unchecked, written
from lucent._validation import member
from lucent.formats.sparktide.tables import JOINED_TEXT
from lucent.generated.lux_ir_v1 import (
    LucentChoice,
    LucentContentToolUse,
    LucentError,
    LucentErrorKind,
    LucentFinishReason,
    LucentTool,
    LucentToolChoice,
    LucentToolChoiceSpecificTool,
    LucentUsage,
)
from lucent.generated.sparktide_remote_1_0 import RemoteModelMessage, RemoteModelToolCall, RemoteModelUsage
from lucent.generated.sparktide_text_checks import (
    SPARKTIDE_CALL_ID_LENGTH,
    SPARKTIDE_CALL_ID_LIMITS,
    SPARKTIDE_CALL_ID_PATTERN,
    SPARKTIDE_FUNCTION_NAME_LENGTH,
    SPARKTIDE_FUNCTION_NAME_LIMITS,
    SPARKTIDE_FUNCTION_NAME_PATTERN,
    SPARKTIDE_TOOL_CALL_ID_LENGTH,
    SPARKTIDE_TOOL_CALL_ID_PATTERN,
)

# ------------------------------------------------------ Chat Completions shapes -> Lux (SparkTide)

_FUNCTION_KEYS = {"name", "description", "parameters", "strict"}


def _function_tool(tool: Any) -> LucentTool | None:
    if not isinstance(tool, dict) or set(tool) != {"type", "function"} or tool["type"] != "function":
        return None
    fn = tool["function"]
    if not isinstance(fn, dict) or not set(fn) <= _FUNCTION_KEYS or not isinstance(fn.get("name"), str):
        return None
    description = fn.get("description", UNSET)
    parameters = fn.get("parameters", UNSET)
    strict = fn.get("strict", UNSET)
    if description is not UNSET and not isinstance(description, str):
        return None
    if parameters is not UNSET and not isinstance(parameters, dict):
        return None
    if strict is not UNSET and not isinstance(strict, bool):
        return None
    return LucentTool(
        name=fn["name"],
        description=description,
        parameters=None if parameters is UNSET else parameters,
        strict=strict,
    )


def function_tools(tools: list[dict[str, Any]] | UnsetType, path: str, cx: Cx) -> list[LucentTool] | UnsetType:
    """The Chat Completions function tools as LucentTool (absent parameters -> null)."""
    if tools is UNSET:
        return UNSET
    return [tool for tool in map(_function_tool, tools) if tool is not None]


def verbatim_tools(
    tools: list[dict[str, Any]] | UnsetType, path: str, cx: Cx, status: Status, reason: str
) -> list[dict[str, Any]] | UnsetType:
    """The tools function_tools cannot map, as [{index, value}], each reported."""
    if tools is UNSET:
        return UNSET
    kept = []
    for index, tool in enumerate(tools):
        if _function_tool(tool) is None:
            cx.report(f"{path}[{index}]", status, reason)
            kept.append(cx.built(f"{path}[{index}]", {"index": index, "value": tool}, {"value": ""}))
    return kept if kept else UNSET


def _specific_tool(choice: Any) -> str | None:
    if not isinstance(choice, dict) or set(choice) != {"type", "function"} or choice["type"] != "function":
        return None
    fn = choice["function"]
    if isinstance(fn, dict) and set(fn) == {"name"} and isinstance(fn["name"], str):
        return fn["name"]
    return None


def tool_choice_to_lux(choice: Any, path: str, cx: Cx) -> LucentToolChoice | UnsetType:
    """auto / none / required, and {type: function, function: {name}} -> specific_tool."""
    if choice == "auto" or choice == "none" or choice == "required":
        return cast(LucentToolChoice, choice)
    name = _specific_tool(choice)
    return UNSET if name is None else LucentToolChoiceSpecificTool(name=name)


def verbatim_tool_choice(choice: Any, path: str, cx: Cx, status: Status, reason: str) -> Any:
    """A tool_choice that tool_choice_to_lux cannot map (null included), reported."""
    if choice is UNSET or tool_choice_to_lux(choice, path, cx) is not UNSET:
        return UNSET
    cx.report(path, status, reason)
    return choice


def content_absent_indexes(messages: list[RemoteModelMessage], path: str, cx: Cx) -> list[int] | UnsetType:
    """Indexes of the assistant messages that have no content key."""
    found = [i for i, m in enumerate(messages) if m.role == "assistant" and m.content is UNSET]
    return cx.sourced(found, {n: f"{path}[{i}]" for n, i in enumerate(found)}) if found else UNSET


def empty_tool_calls_indexes(messages: list[RemoteModelMessage], path: str, cx: Cx) -> list[int] | UnsetType:
    """Indexes of the messages that carry tool_calls: []."""
    found = [i for i, m in enumerate(messages) if m.tool_calls is not UNSET and not m.tool_calls]
    return cx.sourced(found, {n: f"{path}[{i}].tool_calls" for n, i in enumerate(found)}) if found else UNSET


# ------------------------------------------------------------------------- Lux -> SparkTide turns


class MessageParts:
    """The blocks of one Lux message (or tool result), sorted by kind, each with its Lux path."""

    __slots__ = ("texts", "tool_calls", "tool_messages")

    def __init__(self) -> None:
        self.texts: list[tuple[str, str]] = []
        self.tool_calls: list[tuple[RemoteModelToolCall, str]] = []
        self.tool_messages: list[tuple[RemoteModelMessage, str]] = []


@reports("Degraded")
def joined_text(parts: MessageParts, path: str, cx: Cx) -> str:
    """The text blocks joined with a newline (Degraded when there is more than one, and when
    there is none: an empty string reads back as one empty text block)."""
    if not parts.texts:
        cx.report(f"{path}.content", "Degraded", "no text: written as an empty string, which reads back as one empty text block")
        return ""
    if len(parts.texts) > 1:
        cx.report(f"{path}.content", "Degraded", f"{len(parts.texts)} text blocks joined with a newline into one string")
    return "\n".join(text for text, _ in parts.texts)


@reports("Degraded", "Invalid")
def message_content(
    parts: MessageParts, role: str, path: str, cx: Cx, carried: str
) -> str | None | UnsetType:
    """The content of a turn: its text; an assistant turn without text has null (or no key)."""
    if parts.texts:
        return joined_text(parts, path, cx)
    if role == "assistant":
        return UNSET if cx.carried_index(carried, path) else None
    return ""


@reports("Unsupported", "Invalid")
def message_tool_calls(
    parts: MessageParts, role: str, path: str, cx: Cx, carried: str
) -> list[RemoteModelToolCall] | UnsetType:
    """The tool calls of an assistant turn ([] when carried as such)."""
    if parts.tool_calls and role != "assistant":
        for _, block in parts.tool_calls:
            cx.report(block, "Unsupported", f"a SparkTide {role} message cannot carry tool calls; dropped")
        return UNSET
    if parts.tool_calls:
        return [call for call, _ in parts.tool_calls]
    if role == "assistant" and cx.carried_index(carried, path):
        return []
    return UNSET


@reports("Degraded", "Invalid")
def emit_message(out: list[RemoteModelMessage], message: RemoteModelMessage, parts: MessageParts, path: str, cx: Cx) -> None:
    """Write the tool results of a Lux message, then the message unless it only held them."""
    for tool_message, origin in parts.tool_messages:
        out.append(tool_message)
        cx.origin[id(tool_message)] = origin
    own = bool(parts.texts or parts.tool_calls)
    if message.role == "tool":
        if own or not parts.tool_messages:
            cx.report(path, "Invalid", "a SparkTide tool message needs a tool_call_id, which only a tool_result block gives; the rest of this message is dropped")
        return
    if not own and parts.tool_messages:
        # a user / system / assistant message of tool results only: SparkTide says tool results
        # with tool messages, which have no other role, so the message's own role is not kept
        cx.report(
            f"{path}.role",
            "Degraded",
            f"the {message.role} message holds only tool results, written as SparkTide tool messages; its role is not kept",
        )
        return
    if not own and message.role != "assistant":
        cx.report(f"{path}.content", "Degraded", "no text block; written as an empty string")
    out.append(message)
    cx.origin[id(message)] = path


def append_tool_call(out: list[RemoteModelMessage], call: RemoteModelToolCall, path: str, cx: Cx) -> None:
    """A tool_call item joins the assistant turn right before it, or opens one (content null)."""
    last = out[-1] if out else None
    if last is not None and last.role == "assistant":
        if last.tool_calls is UNSET:
            last.tool_calls = [call]
        else:
            last.tool_calls.append(call)
        return
    message = unchecked(RemoteModelMessage)(role="assistant", content=None, tool_calls=[call])
    out.append(message)
    cx.origin[id(message)] = path


@reports("Degraded")
def settle_assistant_content(messages: list[RemoteModelMessage], cx: Cx) -> None:
    """An assistant turn left with neither text nor tool calls gets content "" (Degraded)."""
    for message in messages:
        if message.role == "assistant" and not isinstance(message.content, str) and not message.tool_calls:
            message.content = ""
            cx.report(
                cx.origin.get(id(message), "$"),
                "Degraded",
                'assistant turn left with neither text nor tool calls; written with content ""',
            )


@reports("Invalid")
def json_schema_object(schema: Any, path: str, cx: Cx, carried: str) -> dict[str, Any]:
    """{schema} plus the carried json_schema members (name, description, strict)."""
    members = cx.from_carried(carried, "object")
    result: dict[str, Any] = {} if members is UNSET else {k: v for k, v in members.items() if k != "schema"}
    result["schema"] = schema
    return result


# What SparkTide's schema allows in a tool call id, a tool message's tool_call_id and a function
# name: the limits read from schemas/sparktide-remote-1.0.json by codegen, in
# lucent.generated.sparktide_text_checks.


def _holds(text: str, length: tuple[int | None, int | None], pattern: re.Pattern[str] | None) -> bool:
    """Whether `text` keeps a check of lucent.generated.sparktide_text_checks: its least and most
    characters (None: no bound), and a match of its pattern somewhere in it (None: no pattern)."""
    low, high = length
    return (low is None or len(text) >= low) and (high is None or len(text) <= high) and (pattern is None or pattern.search(text) is not None)


def sparktide_call_id_fits(text: str) -> bool:
    """Whether SparkTide's RemoteModelToolCall.id can hold `text` (SPARKTIDE_CALL_ID_LIMITS)."""
    return _holds(text, SPARKTIDE_CALL_ID_LENGTH, SPARKTIDE_CALL_ID_PATTERN)


def sparktide_tool_call_id_fits(text: str) -> bool:
    """Whether SparkTide's RemoteModelMessage.tool_call_id can hold `text` (SPARKTIDE_TOOL_CALL_ID_LIMITS)."""
    return _holds(text, SPARKTIDE_TOOL_CALL_ID_LENGTH, SPARKTIDE_TOOL_CALL_ID_PATTERN)


def sparktide_function_name_fits(text: str) -> bool:
    """Whether SparkTide's RemoteModelToolCall.function.name can hold `text` (SPARKTIDE_FUNCTION_NAME_LIMITS)."""
    return _holds(text, SPARKTIDE_FUNCTION_NAME_LENGTH, SPARKTIDE_FUNCTION_NAME_PATTERN)


@reports("Degraded")
def settle_tool_ids(messages: list[RemoteModelMessage], cx: Cx) -> None:
    """Tool call ids and function names SparkTide cannot hold (empty, only white space, too long).

    An id is replaced by "lucent_call_<n>", the same in every tool call and every tool message
    that has it (so a result still answers its call); a function name by "lucent_tool_<n>", the
    same for every call with that name; <n> counts from 1 in order of appearance, skipping the
    ids and names the request already uses. Each replacement is reported Degraded at the source
    path of the value replaced, and every tool message that answers a renamed function at the
    message's source path (a format that names the function in its tool results loses that name).
    """

    def holds_id(text: str) -> bool:
        return sparktide_call_id_fits(text) and sparktide_tool_call_id_fits(text)

    calls = [call for m in messages if m.tool_calls is not UNSET for call in m.tool_calls]
    used_ids = {call.id for call in calls if holds_id(call.id)}
    used_ids |= {m.tool_call_id for m in messages if m.tool_call_id is not UNSET and holds_id(m.tool_call_id)}
    used_names = {call.function.name for call in calls if sparktide_function_name_fits(call.function.name)}
    ids: dict[str, str] = {}
    names: dict[str, str] = {}
    renamed: dict[str, str] = {}  # call id as written -> the function name written for it

    def fresh(taken: set[str], stem: str) -> str:
        n = 1
        while f"{stem}{n}" in taken:
            n += 1
        taken.add(f"{stem}{n}")
        return f"{stem}{n}"

    def replaced_id(old: str, value: Any, member: str) -> str:
        if old not in ids:
            ids[old] = fresh(used_ids, "lucent_call_")
        cx.report(
            f"{_source_path(value, cx)}.{member}",
            "Degraded",
            f"SparkTide cannot hold this tool call id, {shown(old)} ({SPARKTIDE_CALL_ID_LIMITS}); "
            f"written as {written(ids[old])}, as in every tool call and tool result with this id",
        )
        return ids[old]

    for message in messages:
        if message.tool_call_id is not UNSET and not holds_id(message.tool_call_id):
            message.tool_call_id = replaced_id(message.tool_call_id, message, "tool_use_id")
        if message.tool_calls is UNSET:
            continue
        for call in message.tool_calls:
            if not holds_id(call.id):
                call.id = replaced_id(call.id, call, "id")
            name = call.function.name
            if not sparktide_function_name_fits(name):
                if name not in names:
                    names[name] = fresh(used_names, "lucent_tool_")
                call.function.name = names[name]
                renamed[call.id] = names[name]
                cx.report(
                    f"{_source_path(call, cx)}.name",
                    "Degraded",
                    f"SparkTide cannot hold this function name, {shown(name)} ({SPARKTIDE_FUNCTION_NAME_LIMITS}); "
                    f"written as {written(names[name])}",
                )
    # A tool message names no function: it answers its call, whose name changed with it.
    for message in messages:
        if message.tool_call_id is not UNSET and message.tool_call_id in renamed:
            cx.report(
                _source_path(message, cx),
                "Degraded",
                f"answers a tool call whose function name SparkTide cannot hold; that call is written as {written(renamed[message.tool_call_id])}",
            )


def _source_path(value: Any, cx: Cx) -> str:
    """The source path a written value was built from (Cx.built), else its message's."""
    record = cx._built.get(id(value))
    if record is not None and record[0] is value:
        return record[1]
    return cx.origin.get(id(value), "$")



# --------------------------------------------------------- SparkTide responses and failures <-> Lux

_SPARKTIDE_NAME = re.compile(r"[^\t-\r \xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]")
"""One character that is not ECMA-262 white space: SparkTide ids and names need one (pattern \\S)."""

_SPARKTIDE_MAX_TOOL_CALLS = 16
_SPARKTIDE_MAX_TOKENS = 1_000_000_000
_USAGE_COUNTS = ("prompt_tokens", "completion_tokens", "total_tokens")


def empty_list_flag(value: list[Any] | UnsetType, path: str, cx: Cx) -> bool | UnsetType:
    """True when the source list is present and empty, else nothing."""
    return True if value is not UNSET and not value else UNSET


def derived_finish_reason(tool_calls: list[Any] | UnsetType, path: str, cx: Cx) -> LucentFinishReason:
    """tool_calls when the message has at least one tool call, else stop."""
    return "tool_calls" if tool_calls is not UNSET and tool_calls else "stop"


def usage_to_lux(usage: RemoteModelUsage, path: str, cx: Cx) -> LucentUsage | UnsetType:
    """A full receipt as LucentUsage; {} ("no provider receipt") and partial ones give none."""
    if usage.prompt_tokens is UNSET or usage.completion_tokens is UNSET or usage.total_tokens is UNSET:
        return UNSET
    return LucentUsage(
        prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens,
        total_tokens=usage.total_tokens,
    )


def partial_usage(usage: RemoteModelUsage, path: str, cx: Cx, status: Status, reason: str) -> dict[str, Any] | UnsetType:
    """The counts of a receipt that has some but not all three, reported; else nothing."""
    counts = {name: getattr(usage, name) for name in _USAGE_COUNTS if getattr(usage, name) is not UNSET}
    if not counts or len(counts) == len(_USAGE_COUNTS):
        return UNSET
    cx.report(path, status, reason)
    return counts


def _sparktide_name_problem(value: str) -> str | None:
    if not 1 <= len(value) <= 128:
        return f"{len(value)} characters, not 1 to 128"
    if not _SPARKTIDE_NAME.search(value):
        return "only white space"
    return None


def _accepted_calls(parts: MessageParts) -> list[tuple[RemoteModelToolCall, str, str | None]]:
    """Each collected tool call with its Lux path and why SparkTide rejects it (None: accepted)."""
    result: list[tuple[RemoteModelToolCall, str, str | None]] = []
    accepted = 0
    for call, block in parts.tool_calls:
        problem = None
        for name, value in (("id", call.id), ("name", call.function.name)):
            fault = _sparktide_name_problem(value)
            if fault is not None:
                problem = f"the tool call {name} has {fault}"
                break
        if problem is None and accepted == _SPARKTIDE_MAX_TOOL_CALLS:
            problem = f"SparkTide allows at most {_SPARKTIDE_MAX_TOOL_CALLS} tool calls"
        if problem is None:
            accepted += 1
        result.append((call, block, problem))
    return result


@reports("Degraded", "Invalid")
def response_content(parts: MessageParts, path: str, cx: Cx, carried: str) -> str | None | UnsetType:
    """The text of a response message; null (or no key) without text; "" with nothing at all."""
    if len(parts.texts) > 1:  # each block of the joined text (a stream names them so too)
        for _, block in parts.texts:
            cx.report(block, "Degraded", JOINED_TEXT)
    if parts.texts:
        return "\n".join(text for text, _ in parts.texts)
    if any(problem is None for _, _, problem in _accepted_calls(parts)):
        return UNSET if cx.from_carried(carried, "boolean") is True else None
    cx.report(f"{path}.message", "Degraded", 'neither text nor tool calls; written with content ""')
    return ""


@reports("Invalid")
def response_tool_calls(parts: MessageParts, path: str, cx: Cx, carried: str) -> list[RemoteModelToolCall] | UnsetType:
    """The tool calls SparkTide accepts; each one it rejects is reported Invalid and dropped."""
    calls = []
    for call, block, problem in _accepted_calls(parts):
        if problem is None:
            calls.append(call)
        else:
            cx.report(block, "Invalid", f"{problem}; dropped")
    if calls:
        return calls
    return [] if cx.from_carried(carried, "boolean") is True else UNSET


@reports("Invalid")
def empty_assistant_message(path: str, cx: Cx) -> RemoteModelMessage:
    """The message of a Lux response that has no choice: content "", reported Invalid."""
    cx.report(path, "Invalid", 'a Lux response needs a choice, and SparkTide a message: written as an assistant message with content ""')
    return RemoteModelMessage(role="assistant", content="")


def _token_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= _SPARKTIDE_MAX_TOKENS


@reports("Unsupported", "Invalid")
def usage_to_sparktide(usage: LucentUsage | UnsetType, path: str, cx: Cx, carried: str) -> RemoteModelUsage:
    """The three counts SparkTide has (0..10^9); without Lux usage the carried receipt, or {}."""
    receipt = cx.from_carried(carried, "object")
    if receipt is not UNSET and (not set(receipt) <= set(_USAGE_COUNTS) or not all(map(_token_count, receipt.values()))):
        cx.report(member(cx.carried_path, carried), "Invalid", "not a SparkTide usage receipt; ignored")
        receipt = UNSET
    if usage is UNSET:
        return RemoteModelUsage(**receipt) if receipt is not UNSET else RemoteModelUsage()
    if receipt is not UNSET:
        cx.report(member(cx.carried_path, carried), "Unsupported", "superseded by usage; ignored")
    counts = {}
    for name in _USAGE_COUNTS:
        value = getattr(usage, name)
        if _token_count(value):
            counts[name] = value
        else:
            cx.report(f"{path}.{name}", "Invalid", f"SparkTide token counts are integers from 0 to {_SPARKTIDE_MAX_TOKENS}; dropped")
    return RemoteModelUsage(**counts)


def choice_is_first(choice: LucentChoice, path: str, cx: Cx) -> bool:
    """The choice is the first (index 0): the one message a SparkTide response is, so its index
    is implied (a stream, too, names only a later choice)."""
    return choice.index == 0


def finish_reason_derivable(finish_reason: LucentFinishReason, choice: LucentChoice) -> bool:
    """The finish reason is the one a SparkTide reader derives from the message."""
    has_calls = any(isinstance(block, LucentContentToolUse) for block in choice.message.content)
    return finish_reason == ("tool_calls" if has_calls else "stop")


SPARKTIDE_FAILURES: dict[str, tuple[LucentErrorKind, str]] = {
    "MODEL_UNAVAILABLE": ("server_error", "The model is unavailable."),
    "MODEL_TIMED_OUT": ("server_error", "The model did not answer in time."),
    "MODEL_RATE_LIMITED": ("rate_limit", "The model provider is rate limiting requests."),
    "MODEL_AUTH_FAILED": ("authentication", "The platform could not authenticate with the model provider."),
    "MODEL_REQUEST_REJECTED": ("invalid_request", "The model provider rejected the request."),
    "MODEL_FEATURE_UNSUPPORTED": ("invalid_request", "The model does not support a feature the request uses."),
    "MODEL_PROTOCOL_ERROR": ("server_error", "The model provider broke the REMOTE protocol."),
}
"""SparkTide failure code -> (the Lux kind, the fixed message a Lux error gets for it).

A SparkTide failure carries only its code ("the error body never reaches user events"), and Lux
requires a message, so the message is this fixed description; the exact code is kept in
provider_code."""

_FAILURE_CODES: dict[str, str] = {
    "rate_limit": "MODEL_RATE_LIMITED",
    "invalid_request": "MODEL_REQUEST_REJECTED",
    "authentication": "MODEL_AUTH_FAILED",
    "server_error": "MODEL_UNAVAILABLE",
    "content_filter": "MODEL_REQUEST_REJECTED",
}
"""Lux error kind -> the SparkTide code written when provider_code is not a SparkTide code."""

_FailureCode = Literal[
    "MODEL_UNAVAILABLE", "MODEL_TIMED_OUT", "MODEL_RATE_LIMITED", "MODEL_AUTH_FAILED",
    "MODEL_REQUEST_REJECTED", "MODEL_FEATURE_UNSUPPORTED", "MODEL_PROTOCOL_ERROR",
]


def failure_message(code: str, path: str, cx: Cx) -> str:
    """The fixed description of a SparkTide failure code (SPARKTIDE_FAILURES)."""
    return SPARKTIDE_FAILURES[code][1]


def _sibling(path: str, name: str) -> str:
    return path.rsplit(".", 1)[0] + "." + name


def _failure_code(kind: str, provider_code: str | UnsetType) -> str:
    if provider_code is not UNSET and provider_code in SPARKTIDE_FAILURES:
        return provider_code
    return _FAILURE_CODES[kind]


@reports("Degraded", "Unsupported")
def failure_code(kind: LucentErrorKind, provider_code: str | UnsetType, path: str, cx: Cx) -> _FailureCode:
    """provider_code when it is a SparkTide code, else the code of the kind; losses reported."""
    code = _failure_code(kind, provider_code)
    if provider_code is not UNSET and provider_code != code:
        cx.report(_sibling(path, "provider_code"), "Unsupported", f"not a SparkTide failure code; written as {code}, the code of the kind")
    back = SPARKTIDE_FAILURES[code][0]
    if back != kind and code == provider_code:
        cx.report(path, "Degraded", f"provider_code {code} is written, and it reads back as {back}, not as this kind")
    elif back != kind:
        cx.report(path, "Degraded", f"SparkTide has no code for this kind; written as {code}, which reads back as {back}")
    return cast(_FailureCode, code)


def standard_failure_message(message: str, error: LucentError) -> bool:
    """The message is the fixed description of the SparkTide code the error is written as."""
    return message == SPARKTIDE_FAILURES[_failure_code(error.kind, error.provider_code)][1]
