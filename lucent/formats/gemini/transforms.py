"""Transforms of the Gemini generateContent mapping specs (Gemini <-> Lux, requests and responses).

Each public function is one transform a spec may name; codegen/vocabulary/gemini.toml lists them.
The decisions they carry out are written at the
top of each spec (mappings/gemini_lux_*.toml, mappings/lux_gemini_*.toml).

Side-car conventions (docs/semantics.md, section 0): values only Gemini has travel in
``extra.gemini`` (requests) / ``provider_payload.gemini`` (responses); members of single objects
in ``<side-car>.gemini.members[<Lux path>]``, where a kept ``null`` stands for a member the Gemini
object did not have (a function call without ``id``, a content without ``role``); media bytes and
URIs in ``<side-car>.media[<Lux path of the LucentMultimedia>]`` as ``{"data"}`` / ``{"file_uri"}``.
A Gemini value that Lux states in another form is kept verbatim only when the way back would not
give it again (``keep only what is not derivable``), so Gemini -> Lux -> Gemini is equal.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any, Literal, cast

import msgspec
from msgspec import UNSET, Struct, UnsetType

from lucent._conversion import Cx, reads, reports, Status
from lucent._transforms import convert_kept, shown
from lucent._forms import restructured
from lucent._validation import JsonTextError, convert_as, described, dump_json_text, load_json_text, member, same_json_value
from lucent.formats.gemini.tables import FINISH_REASON_FROM_LUX, FINISH_REASON_TO_LUX
from lucent.generated.gemini import (
    Blob,
    Candidate,
    Content,
    FileData,
    FunctionCall,
    FunctionDeclaration,
    FunctionResponse,
    GenerationConfig,
    Part,
    SafetyRating,
    ThinkingConfig,
    Tool,
    ToolConfig,
    UsageMetadata,
)
from lucent.generated.lux_ir_v1 import (
    LucentChoice,
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
    LucentOptions,
    LucentReasoningConfig,
    LucentRole,
    LucentSafetyRating,
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

MEMBERS = "gemini.members"
"""The side-car space of members of single Lux objects (under extra / provider_payload)."""

_INT32 = (-(2**31), 2**31 - 1)
_DATA_MEMBERS = (
    "text", "inlineData", "fileData", "functionCall", "functionResponse",
    "executableCode", "codeExecutionResult", "toolCall", "toolResponse",
)
_META_MEMBERS = ("partMetadata", "videoMetadata", "mediaResolution")
_MEDIA_KINDS = {"image/": "image", "audio/": "audio", "video/": "video"}
_JSON_MIME = "application/json"
_TEXT_MIME = "text/plain"


def _plain(value: Any) -> Any:
    """A generated Struct (or anything holding one) as plain JSON values."""
    return msgspec.to_builtins(value)


def _media_kind(mime: str | UnsetType) -> str | None:
    if not isinstance(mime, str):
        return None
    for prefix, kind in _MEDIA_KINDS.items():
        if mime.startswith(prefix):
            return kind
    return None


def _set(value: Any) -> bool:
    return value is not UNSET


# =========================================================================== Gemini Schema dialect
# Gemini's `Schema` (FunctionDeclaration.parameters, GenerationConfig.responseSchema) is an OpenAPI
# 3.0 subset whose `type` is upper case (OBJECT, STRING...). Lux holds JSON Schema: the only
# difference written is `type` in lower case, node by node (properties, items, anyOf), so the way
# back is exact; every other keyword (nullable, propertyOrdering, format...) is carried as is.

_SCHEMA_TYPES = {"STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"}


def _schema_case(node: Any, upper: bool, depth: int = 0) -> Any:
    if not isinstance(node, dict) or depth > 256:
        return node
    out = dict(node)
    kind = out.get("type")
    if isinstance(kind, str):
        if upper and kind.upper() in _SCHEMA_TYPES and kind == kind.lower():
            out["type"] = kind.upper()
        elif not upper and kind in _SCHEMA_TYPES:
            out["type"] = kind.lower()
    if isinstance(out.get("properties"), dict):
        out["properties"] = {k: _schema_case(v, upper, depth + 1) for k, v in out["properties"].items()}
    if isinstance(out.get("items"), dict):
        out["items"] = _schema_case(out["items"], upper, depth + 1)
    if isinstance(out.get("anyOf"), list):
        out["anyOf"] = [_schema_case(v, upper, depth + 1) for v in out["anyOf"]]
    return out


def schema_to_json_schema(schema: Any) -> Any:
    """A Gemini Schema (plain JSON) as JSON Schema: every `type` in lower case."""
    return _schema_case(schema, upper=False)


def json_schema_to_schema(schema: Any) -> Any:
    """The inverse of schema_to_json_schema: every lower-case `type` of a Schema node upper case."""
    return _schema_case(schema, upper=True)


def _is_schema_dialect(schema: Any) -> bool:
    """Whether a JSON Schema (from Lux) reads as a Gemini Schema once its types are upper case:
    every `type` a single name. Used only to check a kept choice of Gemini field."""
    if not isinstance(schema, dict):
        return False
    kind = schema.get("type")
    return kind is None or (isinstance(kind, str) and kind.upper() in _SCHEMA_TYPES)


# ================================================================================= call ids


class _CallIds:
    """Tool-call ids for one conversion: Gemini function calls often carry no `id`, and Lux pairs a
    call with its result by id. A call without one gets ``gemini-<name>-<8 hex of the SHA-256 of
    its compact args>`` (``-2``, ``-3``... for a repeat in the same document), stable across
    documents that hold the same call (a response and the next request). A function response
    without an id answers the earliest call of the same name that is not answered yet."""

    def __init__(self) -> None:
        self.used: set[str] = set()
        self.open: dict[str, list[str]] = {}

    def derive(self, name: str, args_text: str) -> str:
        digest = hashlib.sha256(args_text.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        stem = f"gemini-{name}-{digest}"
        found, n = stem, 1
        while found in self.used:
            n += 1
            found = f"{stem}-{n}"
        self.used.add(found)
        return found

    def called(self, name: str, call_id: str) -> None:
        self.open.setdefault(name, []).append(call_id)

    def answered(self, name: str, call_id: str) -> None:
        waiting = self.open.get(name, [])
        if call_id in waiting:
            waiting.remove(call_id)

    def answer(self, name: str) -> str | None:
        waiting = self.open.get(name)
        return waiting.pop(0) if waiting else None


def _ids(cx: Cx) -> _CallIds:
    ids = cx.memo.get("gemini_ids")
    if not isinstance(ids, _CallIds):
        ids = cx.memo["gemini_ids"] = _CallIds()
    return ids


# ============================================================================ Gemini parts -> Lux


def _args_text(args: Any, path: str, cx: Cx) -> str:
    try:
        return dump_json_text(args)
    except JsonTextError as exc:
        cx.report(path, "Invalid", f"the value has no JSON text: it {exc.predicate}; written as {{}}")
        return "{}"


_FILES_API_HOSTS = ("generativelanguage.googleapis.com",)
"""Hosts of Gemini Files API URIs (``https://generativelanguage.googleapis.com/v1beta/files/<id>``):
a file only the Gemini API can read with its key, a file_uri, not a URL."""


def is_web_url(uri: str) -> bool:
    """Whether a ``fileData.fileUri`` is a URL any reader can fetch (http or https, not a Gemini
    Files API URI); ``gs://`` and Files API URIs are provider file references."""
    scheme, _, rest = uri.partition("://")
    host = rest.split("/", 1)[0].rsplit("@", 1)[-1].split(":", 1)[0].lower()
    return scheme.lower() in ("http", "https") and bool(host) and host not in _FILES_API_HOSTS


def _keep(cx: Cx, path: str, key: str, value: Any, source: str) -> None:
    cx.keep(MEMBERS, path, key, value, source)


def _verbatim_reason(part: Part) -> str:
    present = [m for m in _DATA_MEMBERS if _set(getattr(part, m))]
    if len(present) > 1:
        return f"a part with {' and '.join(present)} (Gemini allows one)"
    if not present:
        return "a part without data"
    kind = present[0]
    if kind in ("inlineData", "fileData"):
        return f"{kind} of a MIME type Lux has no block for"
    return f"a {kind} part"


def _part_block(part: Part, pp: str, cx: Cx, keep_signature: bool = True) -> LucentContent | None:
    """One Gemini part as one Lux block (None: Lux has no block for it, kept verbatim by the caller).
    Members the block has no field for are kept in gemini.members for the block; the
    thoughtSignature of a part other than a thought part too, unless not `keep_signature` (the
    caller makes it a signature block: :func:`_signature_block`)."""
    present = [m for m in _DATA_MEMBERS if _set(getattr(part, m))]
    kind = present[0] if len(present) == 1 else None
    block: LucentContent | None = None
    signature_used = False
    if part.thought is True and kind in ("text", None) and not present[1:]:
        thinking = LucentThinking(text=part.text if isinstance(part.text, str) else "", redacted=False)
        if _set(part.thoughtSignature):
            thinking.signature = part.thoughtSignature
            signature_used = True
        if not _set(part.text):
            _keep(cx, pp, "text", None, f"{pp}.thought")
        block = cx.built(pp, LucentContentThinking(thinking=cx.built(pp, thinking, {"text": "text", "signature": "thoughtSignature"})))
    elif kind == "text":
        block = cx.built(pp, LucentContentText(text=cast(str, part.text)), {"text": "text"})
    elif kind in ("inlineData", "fileData"):
        media = getattr(part, kind)
        media_kind = _media_kind(media.mimeType)
        if media_kind is None:
            return None
        mp = f"{pp}.{kind}"
        web = kind == "fileData" and _set(media.fileUri) and is_web_url(media.fileUri)
        source: Literal["inline", "file_uri", "url"] = "inline" if kind == "inlineData" else "url" if web else "file_uri"
        multimedia = cx.built(mp, LucentMultimedia(media_type=media.mimeType, source=source), {"media_type": "mimeType"})
        if kind == "inlineData":
            if _set(media.data):
                cx.keep("media", mp, "data", media.data, f"{mp}.data")
        elif web:  # a URL any reader can fetch: a Lux url image (its mimeType is the media type)
            cx.keep("media", mp, "url", media.fileUri, f"{mp}.fileUri")
            _keep(cx, mp, "url_as_file_uri", True, f"{mp}.fileUri")
        elif _set(media.fileUri):
            cx.keep("media", mp, "file_uri", media.fileUri, f"{mp}.fileUri")
        if media_kind == "image":
            block = cx.built(pp, LucentContentImage(image=multimedia))
        elif media_kind == "audio":
            block = cx.built(pp, LucentContentAudio(audio=multimedia))
        else:
            block = cx.built(pp, LucentContentVideo(video=multimedia))
    elif kind == "functionCall" and isinstance(part.functionCall, FunctionCall):
        block = _function_call_block(part.functionCall, pp, cx)
    elif kind == "functionResponse" and isinstance(part.functionResponse, FunctionResponse):
        block = _function_response_block(part.functionResponse, pp, cx)
    else:
        return None
    if part.thought is not UNSET and not isinstance(block, LucentContentThinking):
        _keep(cx, pp, "thought", part.thought, f"{pp}.thought")
    if _set(part.thoughtSignature) and not signature_used and keep_signature:
        _keep(cx, pp, "thoughtSignature", part.thoughtSignature, f"{pp}.thoughtSignature")
    for name in _META_MEMBERS:
        value = getattr(part, name)
        if _set(value):
            _keep(cx, pp, name, _plain(value), f"{pp}.{name}")
    return block


def _function_call_block(call: FunctionCall, pp: str, cx: Cx) -> LucentContent:
    cp = f"{pp}.functionCall"
    name = call.name if isinstance(call.name, str) else ""
    if not _set(call.name):
        cx.report(f"{cp}.name", "Invalid", "a Gemini function call needs a name; written as \"\"")
    args_text = _args_text(call.args, f"{cp}.args", cx) if _set(call.args) else "{}"
    ids = _ids(cx)
    if isinstance(call.id, str):
        call_id = call.id
        ids.used.add(call_id)
    else:
        call_id = ids.derive(name, args_text)
        cx.report(cp, "Degraded", "the function call has no id and Lux pairs calls with results by id: given one derived from its name and arguments (the same for its response); it goes back to Gemini without one")
    ids.called(name, call_id)
    use = cx.built(cp, LucentToolUse(id=call_id, name=name, arguments=args_text), {"name": "name", "arguments": "args"})
    block = cx.built(pp, LucentContentToolUse(tool_use=use))
    if not _set(call.id):
        _keep(cx, cp, "id", None, f"{cp}.id")
    if not _set(call.args):
        _keep(cx, cp, "args", None, f"{cp}.args")
    return block


def _function_response_block(response: FunctionResponse, pp: str, cx: Cx) -> LucentContent:
    rp = f"{pp}.functionResponse"
    name = response.name if isinstance(response.name, str) else ""
    ids = _ids(cx)
    call_names: dict[str, str] = cx.memo.setdefault("gemini_call_names", {})
    if isinstance(response.id, str):
        call_id = response.id
        ids.answered(name, call_id)
    else:
        paired = ids.answer(name)
        if paired is None:
            call_id = ids.derive(name, "response")
            cx.report(rp, "Degraded", "the function response has no id and answers no earlier call of its name: given an id derived from the name; it goes back to Gemini without one")
        else:
            call_id = paired
        _keep(cx, rp, "id", None, f"{rp}.id")
    content: list[LucentContent] = []
    if _set(response.response):
        content.append(cx.built(f"{rp}.response", LucentContentText(text=_args_text(response.response, f"{rp}.response", cx))))
    else:
        _keep(cx, rp, "response", None, f"{rp}.response")
    result = cx.built(rp, LucentToolResult(tool_use_id=call_id, content=content, is_error=False))
    block = cx.built(pp, LucentContentToolResult(tool_result=result))
    if call_names.get(call_id) != name or not _set(response.name):
        _keep(cx, rp, "name", response.name if _set(response.name) else None, f"{rp}.name")
    for extra in ("parts", "scheduling", "willContinue"):
        value = getattr(response, extra)
        if _set(value):
            _keep(cx, rp, extra, _plain(value), f"{rp}.{extra}")
    return block


def _signature_block(signature: str, pp: str, cx: Cx) -> LucentContent:
    """The thoughtSignature of a part other than a thought part, as a response carries it: a
    thinking block with no text that holds only the signature, right after the part's block.
    A stream can say it no other way (a signature may come with the last chunk of a text, after
    the text went out), and the Gemini writers put it back on the part before it
    (:func:`_block_parts`; lucent.formats.gemini.stream)."""
    sp = f"{pp}.thoughtSignature"
    thinking = cx.built(sp, LucentThinking(text="", signature=signature, redacted=False), {"signature": ""})
    return cx.built(sp, LucentContentThinking(thinking=thinking))


def _parts_blocks(parts: list[Part], path: str, cx: Cx, verbatim: list[dict[str, Any]], signature_blocks: bool = False) -> list[LucentContent]:
    """The blocks of a content's parts; the parts Lux has no block for go to `verbatim` as
    {index, part}, each reported Degraded. With `signature_blocks` (a response), the
    thoughtSignature of a part other than a thought part is a block of its own after the part's
    (:func:`_signature_block`), else kept for the part's block."""
    blocks: list[LucentContent] = []
    for j, part in enumerate(parts):
        pp = f"{path}[{j}]"
        block = _part_block(part, pp, cx, keep_signature=not signature_blocks)
        if block is None:
            verbatim.append(cx.built(pp, {"index": j, "part": _plain(part)}, {"part": ""}))  # each at its own part
            cx.report(pp, "Degraded", f"Lux has no block for {_verbatim_reason(part)}; kept verbatim in the gemini side-car, a Lux reader does not see it")
            continue
        blocks.append(block)
        if isinstance(block, LucentContentToolUse):
            cx.memo.setdefault("gemini_call_names", {})[block.tool_use.id] = block.tool_use.name
        if signature_blocks and isinstance(part.thoughtSignature, str) and not isinstance(block, LucentContentThinking):
            blocks.append(_signature_block(part.thoughtSignature, pp, cx))
    return blocks


_ROLES: dict[str, LucentRole] = {"user": "user", "model": "assistant"}


@reports("Degraded", "Invalid")
def gemini_conversation(contents: list[Content] | UnsetType, path: str, cx: Cx) -> list[LucentConversationItem]:
    """Each Gemini content as one Lux message (in order): role user -> user, model -> assistant; any
    other role, or none, -> user with the role kept. Parts become blocks in order: text -> text,
    thought parts -> thinking (thoughtSignature its signature), inlineData / fileData of an image,
    audio or video MIME type -> that block (bytes / URI in the media side-car), functionCall ->
    tool_use (arguments: the compact JSON of args; a call without id gets a derived one, reported),
    functionResponse -> tool_result (one text block of the compact JSON of response). Other parts
    are kept verbatim for the message (Degraded)."""
    items: list[LucentConversationItem] = []
    if contents is UNSET:
        return items
    for i, content in enumerate(contents):
        cp = f"{path}[{i}]"
        role: LucentRole = _ROLES.get(content.role, "user") if isinstance(content.role, str) else "user"
        verbatim: list[dict[str, Any]] = []
        blocks = _parts_blocks(content.parts, f"{cp}.parts", cx, verbatim) if isinstance(content.parts, list) else []
        message = cx.built(cp, LucentMessage(role=role, content=blocks))
        items.append(cx.built(cp, LucentConversationItemMessage(message=message)))
        if not _set(content.role) or content.role not in _ROLES:
            _keep(cx, cp, "role", content.role if _set(content.role) else None, f"{cp}.role")
        if not _set(content.parts):
            _keep(cx, cp, "parts", None, f"{cp}.parts")
        if verbatim:
            _keep(cx, cp, "verbatim_parts", verbatim, f"{cp}.parts")
    return items


@reports("Degraded", "Invalid")
def gemini_instructions(system: Content | UnsetType, path: str, cx: Cx) -> list[LucentContent] | UnsetType:
    """systemInstruction's parts as the Lux instructions blocks (as gemini_conversation converts
    parts); its role and the parts Lux has no block for are kept by system_instruction_kept."""
    if system is UNSET or system.parts is UNSET:
        return UNSET
    return _parts_blocks(system.parts, f"{path}.parts", cx, [])


@reports("Degraded")
def system_instruction_kept(system: Content | UnsetType, path: str, cx: Cx) -> dict[str, Any] | UnsetType:
    """What Lux instructions do not give back of systemInstruction: its role (null when absent is
    not derivable: only kept when present), `parts` absent, and parts kept verbatim."""
    if system is UNSET:
        return UNSET
    kept: dict[str, Any] = {}
    if _set(system.role):
        kept["role"] = system.role
        cx.report(f"{path}.role", "Degraded", "Lux instructions have no role; kept in extra.gemini.systemInstruction")
    if not isinstance(system.parts, list):
        kept["parts"] = None
    else:
        verbatim = [{"index": j, "part": _plain(p)} for j, p in enumerate(system.parts) if _part_kind_unmapped(p)]
        if verbatim:
            kept["verbatim_parts"] = verbatim
    return kept or UNSET


def _part_kind_unmapped(part: Part) -> bool:
    present = [m for m in _DATA_MEMBERS if _set(getattr(part, m))]
    if part.thought is True and present in ([], ["text"]):
        return False
    if len(present) != 1:
        return True
    kind = present[0]
    if kind in ("inlineData", "fileData"):
        return _media_kind(getattr(part, kind).mimeType) is None
    return kind not in ("text", "functionCall", "functionResponse")


# =============================================================== generation config, tools -> Lux


def _int32(value: int | UnsetType, path: str, cx: Cx, what: str) -> int | UnsetType:
    if value is UNSET or _INT32[0] <= value <= _INT32[1]:
        return value
    cx.report(path, "Unsupported", f"Gemini {what} is an int32; a value outside -2^31..2^31-1 is left out")
    return UNSET


def _structured(config: GenerationConfig | UnsetType) -> LucentStructuredOutput | UnsetType:
    """responseMimeType + responseJsonSchema / responseSchema as a Lux structured output."""
    if config is UNSET:
        return UNSET
    mime = config.responseMimeType
    if mime == _JSON_MIME:
        if _set(config.responseJsonSchema) and not _set(config.responseSchema):
            return LucentStructuredOutputJsonSchema(schema=config.responseJsonSchema)
        if _set(config.responseSchema) and not _set(config.responseJsonSchema):
            return LucentStructuredOutputJsonSchema(schema=schema_to_json_schema(_plain(config.responseSchema)))
        if not _set(config.responseSchema) and not _set(config.responseJsonSchema):
            return "json_object"
    if mime == _TEXT_MIME and not _set(config.responseSchema) and not _set(config.responseJsonSchema):
        return "text"
    return UNSET


# GenerationConfig members the Lux options hold (the others are kept in extra.gemini.generationConfig)
_OPTION_MEMBERS = ("temperature", "topP", "topK", "maxOutputTokens", "stopSequences", "candidateCount", "seed")
_STRUCTURED_MEMBERS = ("responseMimeType", "responseSchema", "responseJsonSchema")


@reports("Invalid")
@reads("stream")
def gemini_options(config: GenerationConfig | UnsetType, path: str, cx: Cx) -> LucentOptions:
    """generationConfig temperature, topP, topK, maxOutputTokens, stopSequences, candidateCount,
    seed and the structured output (responseMimeType with responseJsonSchema or responseSchema) as
    Lux options; `stream` comes from context['stream'] (Gemini streams by the method,
    streamGenerateContent), Invalid target:$.options.stream when missing."""
    stream = cx.from_context("stream", "boolean", "$.options.stream")
    if stream is UNSET:
        cx.missing("$.options.stream", "stream", "Gemini streams by the method called, not by a field")
    options = LucentOptions(stream=cast(bool, stream))
    if config is UNSET:
        return options
    options.temperature = config.temperature
    options.top_p = config.topP
    options.top_k = config.topK
    options.max_output_tokens = config.maxOutputTokens
    options.stop = config.stopSequences
    options.candidate_count = config.candidateCount
    options.seed = config.seed
    options.structured_output = _structured(config)
    fields = {"temperature": "temperature", "top_p": "topP", "top_k": "topK", "max_output_tokens": "maxOutputTokens",
              "stop": "stopSequences", "candidate_count": "candidateCount", "seed": "seed"}
    return cx.built(path, options, fields)


@reports("Degraded")
def generation_config_kept(config: GenerationConfig | UnsetType, path: str, cx: Cx) -> dict[str, Any] | UnsetType:
    """The generationConfig members Lux options and reasoning do not give back, verbatim, each
    reported Degraded: every member but the option members, the structured output (when Lux
    states it), thinkingConfig (when reasoning gives it back); {} when generationConfig was an
    empty object."""
    if config is UNSET:
        return UNSET
    plain = _plain(config)
    kept: dict[str, Any] = {}
    structured = _structured(config)
    for key, value in plain.items():
        if key in _OPTION_MEMBERS:
            continue
        if key in _STRUCTURED_MEMBERS and structured is not UNSET:
            continue
        if key == "thinkingConfig" and not _thinking_kept(config.thinkingConfig):
            continue
        kept[key] = value
        reason = "Lux has no field for it" if key not in _STRUCTURED_MEMBERS else "Lux structured_output cannot state this combination"
        if key == "thinkingConfig":
            reason = "Lux reasoning does not give it back exactly"
        cx.report(member(path, key), "Degraded", f"{reason}; kept in extra.gemini.generationConfig, a Lux reader does not see it")
    if not plain:
        return {}
    if structured is not UNSET and isinstance(structured, LucentStructuredOutputJsonSchema) and _set(config.responseSchema):
        kept["responseSchemaField"] = "responseSchema"
    return kept or UNSET


_LEVELS = {"LOW": "low", "MEDIUM": "medium", "HIGH": "high", "MINIMAL": "low"}


def _reasoning_of(thinking: ThinkingConfig | UnsetType) -> LucentReasoningConfig | UnsetType:
    if thinking is UNSET:
        return UNSET
    if thinking.thinkingBudget == 0:
        reasoning = LucentReasoningConfig(enabled=False)
    else:
        reasoning = LucentReasoningConfig(enabled=True)
        if isinstance(thinking.thinkingBudget, int) and thinking.thinkingBudget > 0:
            reasoning.budget_tokens = thinking.thinkingBudget
    if _set(thinking.thinkingLevel) and thinking.thinkingLevel in _LEVELS:
        reasoning.effort = cast(Any, _LEVELS[thinking.thinkingLevel])
    if thinking.includeThoughts is True:
        reasoning.summary = "auto"
    return reasoning


def _thinking_of(reasoning: LucentReasoningConfig) -> dict[str, Any]:
    """Lux reasoning as a Gemini thinkingConfig (plain JSON)."""
    if not reasoning.enabled:
        return {"thinkingBudget": 0}
    out: dict[str, Any] = {}
    if reasoning.summary is not UNSET:
        out["includeThoughts"] = True
    if reasoning.budget_tokens is not UNSET:
        out["thinkingBudget"] = reasoning.budget_tokens
    if reasoning.effort is not UNSET:
        out["thinkingLevel"] = reasoning.effort.upper()
    if "thinkingBudget" not in out and "thinkingLevel" not in out and "includeThoughts" not in out:
        out["thinkingBudget"] = -1  # dynamic thinking: enabled, with no budget of its own
    return out


def _thinking_kept(thinking: ThinkingConfig | UnsetType) -> bool:
    """Whether thinkingConfig must be kept verbatim (Lux reasoning does not give it back)."""
    if thinking is UNSET:
        return False
    reasoning = _reasoning_of(thinking)
    return reasoning is UNSET or _thinking_of(reasoning) != _plain(thinking)


def gemini_reasoning(config: GenerationConfig | UnsetType, path: str, cx: Cx) -> LucentReasoningConfig | UnsetType:
    """generationConfig.thinkingConfig as Lux reasoning: thinkingBudget 0 -> enabled false, > 0 ->
    budget_tokens, -1 (dynamic) or none -> enabled alone; thinkingLevel LOW / MEDIUM / HIGH ->
    effort (MINIMAL -> low, kept); includeThoughts true -> summary auto."""
    if config is UNSET or config.thinkingConfig is UNSET:
        return UNSET
    reasoning = _reasoning_of(config.thinkingConfig)
    if reasoning is UNSET:
        return UNSET
    return cx.built(f"{path}.thinkingConfig", reasoning, {"budget_tokens": "thinkingBudget", "effort": "thinkingLevel", "summary": "includeThoughts"})


@reports("Degraded", "Invalid")
def gemini_tools(tools: list[Tool] | UnsetType, path: str, cx: Cx) -> list[LucentTool] | UnsetType:
    """Every functionDeclarations entry of every tool, in order, as a LucentTool: parameters from
    parametersJsonSchema, else parameters (a Gemini Schema, its types written in lower case: JSON
    Schema), else null. The other tool kinds are kept by tool_layout."""
    if tools is UNSET:
        return UNSET
    out: list[LucentTool] = []
    for i, tool in enumerate(tools):
        if tool.functionDeclarations is UNSET:
            continue
        for j, decl in enumerate(tool.functionDeclarations):
            dp = f"{path}[{i}].functionDeclarations[{j}]"
            out.append(_declaration(decl, dp, cx))
    return out


def _declaration(decl: FunctionDeclaration, dp: str, cx: Cx) -> LucentTool:
    parameters: Any = None
    origin = "parameters"
    if _set(decl.parametersJsonSchema):
        parameters = decl.parametersJsonSchema
        origin = "parametersJsonSchema"
        if _set(decl.parameters):
            _keep(cx, dp, "parameters", _plain(decl.parameters), f"{dp}.parameters")
            cx.report(f"{dp}.parameters", "Degraded", "both parameters and parametersJsonSchema: Lux keeps one schema (parametersJsonSchema); parameters kept in the gemini side-car")
    elif _set(decl.parameters):
        parameters = schema_to_json_schema(_plain(decl.parameters))
        _keep(cx, dp, "schemaField", "parameters", f"{dp}.parameters")
    if not _set(decl.name):
        cx.report(f"{dp}.name", "Invalid", "a Gemini function declaration needs a name; written as \"\"")
        _keep(cx, dp, "name", None, f"{dp}.name")
    tool = cx.built(dp, LucentTool(name=decl.name if isinstance(decl.name, str) else "", description=decl.description, parameters=parameters),
                    {"name": "name", "description": "description", "parameters": origin})
    for extra in ("behavior", "response", "responseJsonSchema"):
        value = getattr(decl, extra)
        if _set(value):
            _keep(cx, dp, extra, _plain(value), f"{dp}.{extra}")
    return tool


@reports("Degraded")
def tool_layout(tools: list[Tool] | UnsetType, path: str, cx: Cx) -> list[Any] | UnsetType:
    """How the Gemini tools list holds its function declarations, when it is not one tool with all
    of them: each tool with functionDeclarations replaced by their count, the other tool kinds
    (googleSearch, codeExecution...) verbatim, each reported Degraded."""
    if tools is UNSET:
        return UNSET
    layout: list[Any] = []
    for i, tool in enumerate(tools):
        plain = _plain(tool)
        if tool.functionDeclarations is not UNSET:
            plain["functionDeclarations"] = len(tool.functionDeclarations)
        others = [k for k in plain if k != "functionDeclarations"]
        for key in others:
            cx.report(member(f"{path}[{i}]", key), "Degraded", "Lux has no Gemini built-in tools; kept in extra.gemini.tools, a Lux reader does not see it")
        layout.append(plain)
    if len(layout) == 1 and set(layout[0]) == {"functionDeclarations"}:
        return UNSET
    return layout


# toolConfig.functionCallingConfig <-> Lux tool_choice
def _choice_of(config: ToolConfig | dict[str, Any] | UnsetType) -> LucentToolChoice | UnsetType:
    plain = _plain(config) if isinstance(config, Struct) else config
    if not isinstance(plain, dict):
        return UNSET
    calling = plain.get("functionCallingConfig")
    if not isinstance(calling, dict):
        return UNSET
    mode, names = calling.get("mode"), calling.get("allowedFunctionNames")
    if mode == "AUTO":
        return "auto"
    if mode == "NONE":
        return "none"
    if mode == "ANY":
        if isinstance(names, list) and len(names) == 1 and isinstance(names[0], str):
            return LucentToolChoiceSpecificTool(name=names[0])
        return "required"
    return UNSET


def _tool_config_of(choice: LucentToolChoice) -> dict[str, Any]:
    if isinstance(choice, LucentToolChoiceSpecificTool):
        return {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": [choice.name]}}
    return {"functionCallingConfig": {"mode": {"auto": "AUTO", "none": "NONE", "required": "ANY"}[choice]}}


def gemini_tool_choice(config: ToolConfig | UnsetType, path: str, cx: Cx) -> LucentToolChoice | UnsetType:
    """toolConfig.functionCallingConfig.mode AUTO -> auto, NONE -> none, ANY -> required, ANY with
    one allowedFunctionNames entry -> specific_tool; VALIDATED, MODE_UNSPECIFIED and no mode have
    no Lux choice (the toolConfig is kept by tool_config_kept)."""
    choice = _choice_of(config)
    if choice is UNSET:
        return UNSET
    return cx.built(f"{path}.functionCallingConfig", choice) if isinstance(choice, Struct) else choice


@reports("Degraded")
def tool_config_kept(config: ToolConfig | UnsetType, path: str, cx: Cx) -> dict[str, Any] | UnsetType:
    """toolConfig verbatim when Lux tool_choice does not give it back (another mode, several
    allowed names, retrievalConfig...), reported Degraded."""
    if config is UNSET:
        return UNSET
    choice = _choice_of(config)
    plain = _plain(config)
    if choice is not UNSET and _tool_config_of(choice) == plain:
        return UNSET
    cx.report(path, "Degraded", "Lux tool_choice does not state this toolConfig exactly; kept in extra.gemini.toolConfig, a Lux reader does not see it")
    return cast(dict[str, Any], plain)


def plain_json(value: Any, path: str, cx: Cx, status: Status, reason: str) -> Any:
    """A Gemini value kept verbatim in the side-car, as plain JSON, reported."""
    if value is UNSET:
        return UNSET
    cx.report(path, status, reason)
    return _plain(value)


def model_kept(model: str | UnsetType, path: str, cx: Cx) -> str | UnsetType:
    """The request body's `model` (most requests name the model in the URL only), so it is
    written back into the body."""
    return model


# ============================================================================ Lux -> Gemini parts


def _kept(cx: Cx, path: str, key: str) -> Any:
    return cx.kept(MEMBERS, path, key, "any")


def _kept_null(cx: Cx, path: str, key: str) -> bool:
    """Whether the member `key` kept for the Lux object at `path` is the null that records an
    absence (a kept value of another type is reported Invalid: only null is kept there)."""
    return _kept_has(cx, path, key) and cx.kept(MEMBERS, path, key, "null") is None


def _kept_has(cx: Cx, path: str, key: str) -> bool:
    entry = cx._space(MEMBERS).get(path)
    return isinstance(entry, dict) and key in entry


def _convert(value: Any, cls: type[Any], path: str, cx: Cx) -> Any:
    try:
        return convert_kept(value, cls, path, cx, f"a Gemini {cls.__name__}")
    except (msgspec.ValidationError, RecursionError) as exc:
        cx.report(path, "Invalid", f"not a Gemini {cls.__name__} ({described(exc)}); dropped")
        return None


def _part_meta(part: Part, lp: str, cx: Cx) -> Part:
    """Put back the members kept for the Lux block at `lp` (thought, thoughtSignature...)."""
    for key in ("thought", "thoughtSignature", *_META_MEMBERS):
        if _kept_has(cx, lp, key):
            value = _kept(cx, lp, key)
            if key == "thought" and not isinstance(value, bool):
                cx.report(member(member(f"{cx.sidecar_path}.{MEMBERS}", lp), "thought"), "Invalid", "not a JSON boolean; ignored")
                continue
            if key == "thoughtSignature" and not isinstance(value, str):
                cx.report(member(member(f"{cx.sidecar_path}.{MEMBERS}", lp), "thoughtSignature"), "Invalid", "not a JSON string; ignored")
                continue
            setattr(part, key, value)
    return part


def _call_names(items: Sequence[LucentConversationItem]) -> dict[str, str]:
    names: dict[str, str] = {}
    for item in items:
        if isinstance(item, LucentConversationItemToolCall):
            names[item.tool_call.id] = item.tool_call.name
        elif isinstance(item, LucentConversationItemMessage):
            for block in item.message.content:
                if isinstance(block, LucentContentToolUse):
                    names[block.tool_use.id] = block.tool_use.name
    return names


def _function_call_part(use: LucentToolUse, lp: str, up: str, cx: Cx) -> Part:
    """A Lux tool_use (block at `lp`, LucentToolUse at `up`) as a functionCall part."""
    call = FunctionCall(name=use.name)
    kept_id = _kept_null(cx, up, "id")
    if not kept_id:
        call.id = use.id
    if not (_kept_null(cx, up, "args") and use.arguments == "{}"):
        try:
            args = load_json_text(use.arguments)
        except JsonTextError as exc:
            args = UNSET
            cx.report(f"{up}.arguments", "Invalid", f"Gemini args are a JSON object; the arguments are not JSON ({exc.problem}); left out")
        if args is not UNSET and not isinstance(args, dict):
            cx.report(f"{up}.arguments", "Invalid", f"Gemini args are a JSON object; the arguments are JSON text of {shown(args)}; left out")
            args = UNSET
        elif args is not UNSET and not same_json_value(use.arguments, args):
            cx.report(f"{up}.arguments", "Degraded", "Gemini args are a JSON object: a number in the text is rounded")
        call.args = args
    part = cx.built(lp, Part(functionCall=cx.built(up, call, {"name": "name", "id": "id", "args": "arguments"})))
    return _part_meta(part, lp, cx)


def _function_response_part(result: LucentToolResult, lp: str, rp: str, names: dict[str, str], cx: Cx) -> Part:
    """A Lux tool_result (block or item at `lp`, LucentToolResult at `rp`) as a functionResponse."""
    response = FunctionResponse()
    if not (_kept_null(cx, rp, "id")):
        response.id = result.tool_use_id
    if _kept_has(cx, rp, "name"):
        kept = _kept(cx, rp, "name")
        if kept is not None:
            response.name = kept
    elif result.tool_use_id in names:
        response.name = names[result.tool_use_id]
    else:
        response.name = ""
        cx.report(f"{rp}.tool_use_id", "Invalid", "a Gemini function response names its function, and no tool call with this id precedes it; written as \"\"")
    if not (_kept_null(cx, rp, "response") and not result.content):
        response.response = _response_object(result, rp, cx)
    for extra, cls in (("parts", None), ("scheduling", None), ("willContinue", None)):
        if _kept_has(cx, rp, extra):
            setattr(response, extra, _kept(cx, rp, extra))
    if response.parts is not UNSET:
        from lucent.generated.gemini import FunctionResponsePart

        response.parts = _convert(response.parts, list[FunctionResponsePart], f"{rp}.parts", cx) or UNSET
    part = cx.built(lp, Part(functionResponse=cx.built(rp, response, {"id": "tool_use_id", "response": "content"})))
    return _part_meta(part, lp, cx)


def _response_object(result: LucentToolResult, rp: str, cx: Cx) -> dict[str, Any]:
    """A tool result's content as Gemini's response object: one text block holding the compact
    JSON of an object is that object; other text is {"result": text} (Degraded); other blocks
    are Unsupported; is_error true wraps the value as {"error": ...} (Degraded)."""
    texts: list[str] = []
    for k, block in enumerate(result.content):
        if isinstance(block, LucentContentText):
            texts.append(block.text)
        else:
            cx.report(f"{rp}.content[{k}]", "Unsupported", "a Gemini function response holds a JSON object; this block is dropped")
    value: dict[str, Any] | None = None
    if len(texts) == 1:
        try:
            parsed = load_json_text(texts[0])
        except JsonTextError:
            parsed = None
        if isinstance(parsed, dict):
            value = parsed
            if not same_json_value(texts[0], parsed):
                cx.report(f"{rp}.content", "Degraded", "Gemini response is a JSON object: a number in the text is rounded")
    if value is None:
        value = {"result": "\n".join(texts)}
        cx.report(f"{rp}.content", "Degraded", 'a Gemini function response is a JSON object; the text is written as {"result": text}')
    if result.is_error:
        cx.report(f"{rp}.is_error", "Degraded", 'Gemini has no error flag; the response is written as {"error": ...}')
        value = {"error": value}
    return value


def _media_part(block: LucentContent, lp: str, cx: Cx) -> Part | None:
    kind = "image" if isinstance(block, LucentContentImage) else "audio" if isinstance(block, LucentContentAudio) else "video"
    media: LucentMultimedia = getattr(block, kind)
    mp = f"{lp}.{kind}"
    if media.source == "inline":
        data = cx.kept("media", mp, "data", "string")
        if data is UNSET:
            cx.report(mp, "Invalid", "inline media without its base64 text in the media side-car; dropped")
            return None
        part = Part(inlineData=cx.built(mp, Blob(mimeType=media.media_type, data=data), {"mimeType": "media_type"}))
    else:
        key = "file_uri" if media.source == "file_uri" else "url"
        uri = cx.kept("media", mp, key, "string")
        if uri is UNSET:
            cx.report(mp, "Invalid", f"{media.source} media without its {key} in the media side-car; dropped")
            return None
        if media.source == "url" and _kept(cx, mp, "url_as_file_uri") is not True:
            cx.report(mp, "Degraded", "Gemini reads media by URI (fileData.fileUri); the URL is written there, and Gemini fetches only some URLs")
        part = Part(fileData=cx.built(mp, FileData(mimeType=media.media_type, fileUri=uri), {"mimeType": "media_type"}))
    return _part_meta(cx.built(lp, part), lp, cx)


def _signs_previous(block: LucentContent, previous: Part | None) -> bool:
    """Whether `block` is a thinking block with no text that holds only a signature, right after
    a block written as a part other than a thought part that has no signature: that part's
    thoughtSignature (as a Gemini response's is read: :func:`_signature_block`)."""
    return (
        isinstance(block, LucentContentThinking) and block.thinking.text == "" and isinstance(block.thinking.signature, str)
        and not block.thinking.redacted and block.thinking.summary is UNSET
        and previous is not None and previous.thought is not True and previous.thoughtSignature is UNSET
    )


def _block_parts(blocks: list[LucentContent], path: str, names: dict[str, str], cx: Cx) -> list[Part]:
    """The parts of a message's blocks, in order; a signature-only thinking block after a part's
    block signs that part (:func:`_signs_previous`)."""
    parts: list[Part] = []
    previous: Part | None = None  # the part of the block before, if it wrote one
    for k, block in enumerate(blocks):
        lp = f"{path}[{k}]"
        part: Part | None = None
        if _signs_previous(block, previous):
            assert previous is not None and isinstance(block, LucentContentThinking)
            previous.thoughtSignature = block.thinking.signature
            previous = None
            continue
        if isinstance(block, LucentContentText):
            part = _part_meta(cx.built(lp, Part(text=block.text), {"text": "text"}), lp, cx)
            if block.annotations is not UNSET:
                cx.report(f"{lp}.annotations", "Unsupported", "Gemini text parts have no annotations")
        elif isinstance(block, LucentContentThinking):
            part = _thought_part(block.thinking, lp, f"{lp}.thinking", cx)
        elif isinstance(block, LucentContentToolUse):
            part = _function_call_part(block.tool_use, lp, f"{lp}.tool_use", cx)
        elif isinstance(block, LucentContentToolResult):
            part = _function_response_part(block.tool_result, lp, f"{lp}.tool_result", names, cx)
        elif isinstance(block, LucentContentRefusal):
            cx.report(lp, "Degraded", "Gemini has no refusal part; written as a text part")
            part = cx.built(lp, Part(text=block.refusal))
        else:
            part = _media_part(block, lp, cx)
        if part is not None:
            parts.append(part)
        previous = part
    return parts


def _thought_part(thinking: LucentThinking, lp: str, tp: str, cx: Cx) -> Part | None:
    """A Lux thinking block or reasoning item as a Gemini thought part; None when there is
    nothing to write: redacted (Unsupported), or no text, no signature and no member a Gemini
    source kept for it (a Responses reasoning item with only a summary, which is reported
    Unsupported): an empty ``{"text": "", "thought": true}`` part would say nothing the source did."""
    if thinking.redacted:
        cx.report(lp, "Unsupported", "Gemini has no redacted thinking (its signature belongs to another provider); dropped")
        return None
    # the Gemini reader keeps the absence of a thought part's text for the thinking (tp)
    no_text = _kept_null(cx, tp, "text") or _kept_null(cx, lp, "text")
    if thinking.text == "" and thinking.signature is UNSET and not no_text and not any(_kept_has(cx, lp, key) for key in ("thought", "thoughtSignature", *_META_MEMBERS)):
        if thinking.summary is not UNSET:
            cx.report(f"{tp}.summary", "Unsupported", "Gemini thought parts have no separate summary")
        return None
    part = Part(thought=True)
    if not (no_text and thinking.text == ""):
        part.text = thinking.text
    if thinking.signature is not UNSET:
        part.thoughtSignature = thinking.signature
    if thinking.summary is not UNSET:
        cx.report(f"{tp}.summary", "Unsupported", "Gemini thought parts have no separate summary")
    return _part_meta(cx.built(lp, part, {"text": "thinking.text", "thoughtSignature": "thinking.signature"}), lp, cx)


def _insert_verbatim(parts: list[Part], kept: Any, where: str, cx: Cx) -> list[Part]:
    if not isinstance(kept, list):
        cx.report(where, "Invalid", "not a list of {index, part} entries; ignored")
        return parts
    out = list(parts)
    for n, entry in enumerate(kept):
        if not isinstance(entry, dict) or set(entry) != {"index", "part"} or not isinstance(entry["index"], int) or isinstance(entry["index"], bool):
            cx.report(f"{where}[{n}]", "Invalid", "not an {index, part} entry; ignored")
            continue
        part = _convert(entry["part"], Part, f"{where}[{n}].part", cx)
        if part is not None:
            out.insert(min(max(entry["index"], 0), len(out)), part)
    return out


_GEMINI_ROLES = {"user": "user", "assistant": "model", "model": "model", "tool": "user"}


@reports("Degraded", "Unsupported", "Invalid")
def gemini_contents(conversation: list[LucentConversationItem], kept: Any, path: str, cx: Cx) -> list[Content] | UnsetType:
    """The Lux conversation as Gemini contents, in order (the spec's last rule: it then reports the
    gemini.members entries no rule read). A message is one content: user and tool
    -> user, assistant and model -> model (a kept role wins); system and developer messages after
    the first other item -> user (Degraded; leading ones go to systemInstruction). Blocks become
    parts (see _block_parts). A tool_call or reasoning item joins the model content before it, or
    opens one; consecutive tool_result items form one user content (Degraded: they come back as
    blocks). agent_action items are Unsupported."""
    contents: list[Content] = []
    names = _call_names(conversation)
    leading = True
    joinable: Content | None = None  # the content a following tool item may join
    for i, item in enumerate(conversation):
        ip = f"{path}[{i}]"
        if isinstance(item, LucentConversationItemMessage):
            message = item.message
            mp = f"{ip}.message"
            if message.role in ("system", "developer") and leading:
                continue  # written into systemInstruction by gemini_system_instruction
            leading = False
            content = Content(parts=_block_parts(message.content, f"{mp}.content", names, cx))
            if _kept_has(cx, mp, "role"):
                kept = _kept(cx, mp, "role")
                if kept is not None:
                    content.role = kept
            elif message.role in _GEMINI_ROLES:
                content.role = _GEMINI_ROLES[message.role]
                if message.role == "tool":
                    cx.report(f"{mp}.role", "Degraded", "Gemini function responses are user contents; the tool role comes back as user")
            else:
                content.role = "user"
                cx.report(f"{mp}.role", "Degraded", f"Gemini has no {message.role} role inside contents; written as a user content at its position")
            if _kept_has(cx, mp, "verbatim_parts"):
                content.parts = _insert_verbatim(cast(list[Part], content.parts), _kept(cx, mp, "verbatim_parts"), member(f"{cx.sidecar_path}.{MEMBERS}", mp) + ".verbatim_parts", cx)
            if _kept_null(cx, mp, "parts") and not content.parts:
                content.parts = UNSET
            contents.append(cx.built(mp, content))
            joinable = None
            continue
        leading = False
        if isinstance(item, LucentConversationItemToolCall):
            part = _function_call_part(item.tool_call, ip, f"{ip}.tool_call", cx)
            joinable = _join(contents, joinable, "model", part, ip, cx, "a tool_call item is written as a functionCall part of the model content before it", "tool_call_place")
        elif isinstance(item, LucentConversationItemReasoning):
            thought = _thought_part(item.reasoning, ip, f"{ip}.reasoning", cx)
            if thought is not None:
                joinable = _join(contents, joinable, "model", thought, ip, cx, "a reasoning item is written as a thought part of the model content before it")
        elif isinstance(item, LucentConversationItemToolResult):
            part = _function_response_part(item.tool_result, ip, f"{ip}.tool_result", names, cx)
            joinable = _join(contents, joinable, "user", part, ip, cx, "a tool_result item is written as a functionResponse part of a user content")
        else:
            cx.report(ip, "Unsupported", "Gemini has no agent actions; dropped")
    cx.report_unread_entries(MEMBERS)
    return UNSET if kept is None and not contents else contents


def _join(contents: list[Content], joinable: Content | None, role: str, part: Part, ip: str, cx: Cx, reason: str, form: str | None = None) -> Content:
    if form is None:
        cx.report(ip, "Degraded", reason)
    else:  # a source format that has no item form gets it back in place (lucent._forms)
        restructured(cx, ip, form, reason)
    last = contents[-1] if contents else None
    if last is not None and last.role == role and (role == "model" or last is joinable) and last.parts is not UNSET:
        last.parts.append(part)
        return last
    content = cx.built(ip, Content(role=role, parts=[part]))
    contents.append(content)
    return content


@reports("Degraded", "Unsupported", "Invalid")
def gemini_system_instruction(
    instructions: list[LucentContent] | UnsetType, conversation: list[LucentConversationItem], kept: Any, path: str, cx: Cx
) -> Content | UnsetType:
    """systemInstruction: the instruction blocks as parts, then the blocks of the leading system
    and developer messages (Degraded: folded in); its kept role and verbatim parts put back."""
    parts: list[Part] = []
    names = _call_names(conversation)
    if instructions is not UNSET:
        parts.extend(_block_parts(instructions, path, names, cx))
    leading = 0
    while leading < len(conversation) and isinstance(item := conversation[leading], LucentConversationItemMessage) and item.message.role in ("system", "developer"):
        leading += 1
    for i, item in enumerate(conversation[:leading]):
        assert isinstance(item, LucentConversationItemMessage)
        mp = f"$.conversation[{i}].message"
        detail = f"Gemini has no {item.message.role} messages: a leading one is folded into systemInstruction"
        if instructions is UNSET and leading == 1 and item.message.role == "system":  # the one system text: back in place (lucent._forms)
            restructured(cx, mp, "system_place", detail)
        else:
            cx.report(mp, "Degraded", detail)
        parts.extend(_block_parts(item.message.content, f"{mp}.content", names, cx))
    if not isinstance(kept, dict):
        if kept is not UNSET:
            cx.report(f"{cx.carried_path}.systemInstruction", "Invalid", "not a JSON object; ignored")
        kept = {}
    for key in kept:
        if key not in ("verbatim_parts", "parts", "role"):
            cx.report(member(f"{cx.carried_path}.systemInstruction", key), "Unsupported", "not a systemInstruction member the side-car keeps (verbatim_parts, parts, role); ignored")
    if "role" in kept and not isinstance(kept["role"], str):
        cx.report(f"{cx.carried_path}.systemInstruction.role", "Invalid", f"{shown(kept['role'])}, not a string; ignored")
    if "parts" in kept and kept["parts"] is not None:
        cx.report(f"{cx.carried_path}.systemInstruction.parts", "Invalid", f"{shown(kept['parts'])}, not null (only a null is kept here); ignored")
    if "verbatim_parts" in kept:
        parts = _insert_verbatim(parts, kept["verbatim_parts"], f"{cx.carried_path}.systemInstruction.verbatim_parts", cx)
    if instructions is UNSET and not parts and "parts" not in kept and "role" not in kept:
        return UNSET
    content = Content(parts=parts)
    if kept.get("parts", 0) is None and not parts:
        content.parts = UNSET
    if isinstance(kept.get("role"), str):
        content.role = kept["role"]
    return content


# ====================================================================== Lux -> Gemini the rest


@reports("Degraded", "Unsupported", "Invalid")
def gemini_generation_config(
    options: LucentOptions, reasoning: LucentReasoningConfig | UnsetType, kept: Any, path: str, cx: Cx
) -> GenerationConfig | UnsetType:
    """generationConfig from the Lux options (temperature, top_p, top_k, max_output_tokens, stop,
    candidate_count, seed: int32 bounds checked), structured_output (json_schema ->
    responseMimeType application/json + responseJsonSchema, or responseSchema when kept so;
    json_object -> application/json; text -> text/plain), reasoning (thinkingConfig: enabled false
    -> thinkingBudget 0; budget_tokens -> thinkingBudget; effort -> thinkingLevel; summary ->
    includeThoughts; enabled alone -> thinkingBudget -1), and the members kept in
    extra.gemini.generationConfig."""
    present = isinstance(kept, dict)
    if not isinstance(kept, dict):
        if kept is not UNSET:
            cx.report(f"{cx.carried_path}.generationConfig", "Invalid", "not a JSON object; ignored")
        kept = {}
    out: dict[str, Any] = {}
    for lux, gemini, bounded in (
        ("temperature", "temperature", False), ("top_p", "topP", False), ("top_k", "topK", True),
        ("max_output_tokens", "maxOutputTokens", True), ("stop", "stopSequences", False),
        ("candidate_count", "candidateCount", True), ("seed", "seed", True),
    ):
        value = getattr(options, lux)
        if bounded:
            value = _int32(value, f"{path}.{lux}", cx, gemini)
        if value is not UNSET:
            out[gemini] = value
    structured = options.structured_output
    field = kept.get("responseSchemaField")
    if "responseSchemaField" in kept and field != "responseSchema":
        cx.report(f"{cx.carried_path}.generationConfig.responseSchemaField", "Invalid", f"{shown(field)}, not the string responseSchema; ignored")
        field = None
    if structured == "text":
        out["responseMimeType"] = _TEXT_MIME
    elif structured == "json_object":
        out["responseMimeType"] = _JSON_MIME
    elif isinstance(structured, LucentStructuredOutputJsonSchema):
        out["responseMimeType"] = _JSON_MIME
        if field == "responseSchema" and _is_schema_dialect(structured.schema):
            out["responseSchema"] = json_schema_to_schema(structured.schema)
        else:
            out["responseJsonSchema"] = structured.schema
    thinking: dict[str, Any] | None = None
    if reasoning is not UNSET:
        thinking = _thinking_of(reasoning)
        if not reasoning.enabled:
            for key in ("budget_tokens", "effort", "summary"):
                if getattr(reasoning, key) is not UNSET:
                    cx.report(f"$.reasoning.{key}", "Unsupported", "Gemini turns thinking off with thinkingBudget 0 and nothing else; dropped")
        if reasoning.enabled and reasoning.summary not in (UNSET, "auto"):
            cx.report("$.reasoning.summary", "Degraded", f"Gemini has no summary style; {reasoning.summary} is written as includeThoughts true")
        if reasoning.enabled and reasoning.budget_tokens is not UNSET and not (_INT32[0] <= reasoning.budget_tokens <= _INT32[1]):
            cx.report("$.reasoning.budget_tokens", "Unsupported", "Gemini thinkingBudget is an int32; left out")
            thinking.pop("thinkingBudget", None)
    for key, value in kept.items():
        if key == "responseSchemaField":
            continue
        if key == "thinkingConfig":
            if thinking is not None and _kept_thinking_matches(value, reasoning):
                thinking = value
            elif thinking is None:
                cx.report(f"{cx.carried_path}.generationConfig.thinkingConfig", "Unsupported", "kept thinkingConfig that Lux reasoning (absent) no longer states; dropped")
            continue
        if key in out:
            cx.report(f"{cx.carried_path}.generationConfig.{key}", "Unsupported", "the Lux options state this member; the kept value is dropped")
            continue
        # each kept member on its own, at its side-car path: one of the wrong type (or holding
        # members GenerationConfig drops) is named there, and the rest is still written
        if _convert({key: value}, GenerationConfig, f"{cx.carried_path}.generationConfig", cx) is not None:
            out[key] = value
    if thinking is not None:
        out["thinkingConfig"] = thinking
    if not out and not present:
        return UNSET
    try:  # the kept members were checked one by one above
        return cx.built(path, cast(GenerationConfig, convert_as(out, GenerationConfig)))  # recorded: its kept members come back to it
    except (msgspec.ValidationError, RecursionError) as exc:
        cx.report(path, "Invalid", f"not a Gemini GenerationConfig ({described(exc)}); dropped")
        return UNSET


def _kept_thinking_matches(value: Any, reasoning: LucentReasoningConfig | UnsetType) -> bool:
    if not isinstance(value, dict) or reasoning is UNSET:
        return False
    try:
        thinking = msgspec.convert(value, ThinkingConfig)
    except msgspec.ValidationError:
        return False
    return _reasoning_of(thinking) == reasoning


@reports("Unsupported", "Invalid")
def gemini_tools_out(tools: list[LucentTool] | UnsetType, layout: Any, path: str, cx: Cx) -> list[Tool] | UnsetType:
    """The Lux tools as Gemini function declarations (parameters: parametersJsonSchema, or the
    Gemini `parameters` Schema when kept so; null -> none), in one tool, or laid out as kept in
    extra.gemini.tools with its built-in tools."""
    decls: list[FunctionDeclaration] = []
    for k, tool in enumerate(tools if tools is not UNSET else []):
        tp = f"{path}[{k}]"
        decl = FunctionDeclaration(description=tool.description)
        if not (_kept_null(cx, tp, "name") and tool.name == ""):
            decl.name = tool.name
        if tool.strict is True:  # strict false is what Gemini does anyway: nothing is lost
            cx.report(f"{tp}.strict", "Unsupported", "Gemini function declarations have no strict flag")
        field = cx.kept(MEMBERS, tp, "schemaField", ("parameters",)) if _kept_has(cx, tp, "schemaField") else None
        if tool.parameters is not None:
            if field == "parameters" and _is_schema_dialect(tool.parameters):
                decl.parameters = _convert(json_schema_to_schema(tool.parameters), _schema_cls(), f"{tp}.parameters", cx) or UNSET
            else:
                decl.parametersJsonSchema = tool.parameters
        if _kept_has(cx, tp, "parameters"):
            decl.parameters = _convert(_kept(cx, tp, "parameters"), _schema_cls(), f"{tp}.parameters", cx) or UNSET
        for extra in ("behavior", "response", "responseJsonSchema"):
            if _kept_has(cx, tp, extra):
                value = _kept(cx, tp, extra)
                if extra == "response":
                    value = _convert(value, _schema_cls(), f"{tp}.response", cx) or UNSET
                setattr(decl, extra, value)
        decls.append(cx.built(tp, decl, {"name": "name", "description": "description"}))
    if layout is UNSET or layout is None:
        return [Tool(functionDeclarations=decls)] if decls else UNSET
    where = f"{cx.carried_path}.tools"
    if not isinstance(layout, list):
        cx.report(where, "Invalid", "not a list of Gemini tools; ignored")
        return [Tool(functionDeclarations=decls)] if decls else UNSET
    out: list[Tool] = []
    rest = list(decls)
    for n, entry in enumerate(layout):
        if not isinstance(entry, dict):
            cx.report(f"{where}[{n}]", "Invalid", "not a Gemini tool; ignored")
            continue
        count = entry.get("functionDeclarations")
        plain = {k: v for k, v in entry.items() if k != "functionDeclarations"}
        tool_value = _convert(plain, Tool, f"{where}[{n}]", cx)
        if tool_value is None:
            continue
        if isinstance(count, int) and not isinstance(count, bool):
            tool_value.functionDeclarations, rest = rest[:count], rest[count:]
        out.append(tool_value)
    if rest:
        out.append(Tool(functionDeclarations=rest))
    return out


def _schema_cls() -> Any:
    from lucent.generated.gemini import Schema

    return Schema


@reports("Unsupported", "Invalid")
def gemini_tool_config(choice: LucentToolChoice | UnsetType, kept: Any, path: str, cx: Cx) -> ToolConfig | UnsetType:
    """toolConfig from Lux tool_choice (auto -> AUTO, none -> NONE, required -> ANY, specific_tool
    -> ANY with allowedFunctionNames [name]); the kept toolConfig when it states the same choice."""
    if kept is not UNSET:
        if isinstance(kept, dict) and _choice_of(kept) == choice:
            config = _convert(kept, ToolConfig, f"{cx.carried_path}.toolConfig", cx)
            if isinstance(config, ToolConfig):
                return config
        else:
            cx.report(f"{cx.carried_path}.toolConfig", "Unsupported", "the kept toolConfig states another choice than Lux tool_choice; dropped")
    if choice is UNSET:
        return UNSET
    return msgspec.convert(_tool_config_of(choice), ToolConfig)


@reports("Degraded")
def gemini_model(model: str, kept: Any, path: str, cx: Cx) -> str | UnsetType:
    """The model is named in the URL (models/<model>:generateContent), not in the body: left out
    (Degraded), unless the Gemini request it came from had it in its body too."""
    if isinstance(kept, str):
        return kept if kept == model else model
    cx.report(path, "Degraded", "Gemini names the model in the request URL (models/<model>:generateContent), not in the body; give it to the call")
    return UNSET


# =============================================================================== responses


_FINISH = FINISH_REASON_TO_LUX
_FINISH_BACK: dict[str, Any] = FINISH_REASON_FROM_LUX


def _finish(reason: str | UnsetType, blocks: list[LucentContent]) -> LucentFinishReason:
    has_call = any(isinstance(b, LucentContentToolUse) for b in blocks)
    if reason is UNSET or reason == "STOP":
        return "tool_calls" if has_call else "stop"
    return cast(LucentFinishReason, _FINISH.get(reason, "error"))


_CANDIDATE_KEPT = ("avgLogprobs", "citationMetadata", "finishMessage", "groundingAttributions",
                   "groundingMetadata", "logprobsResult", "tokenCount", "urlContextMetadata")


@reports("Degraded", "Invalid")
def gemini_choices(candidates: list[Candidate] | UnsetType, path: str, cx: Cx) -> list[LucentChoice]:
    """Each candidate as a Lux choice: index (its position when absent, kept), the content as an
    assistant message (parts as in requests), finishReason STOP -> stop (tool_calls when the
    message has a function call), MAX_TOKENS -> length, SAFETY / IMAGE_SAFETY -> safety,
    RECITATION / IMAGE_RECITATION -> recitation, BLOCKLIST / PROHIBITED_CONTENT / SPII /
    IMAGE_PROHIBITED_CONTENT -> content_filter, MALFORMED_FUNCTION_CALL / UNEXPECTED_TOOL_CALL /
    TOO_MANY_TOOL_CALLS -> malformed_tool_call, the others -> error (kept, Degraded); no
    finishReason -> derived, kept as null; safetyRatings -> safety_ratings (blocked kept); the
    other candidate members kept (Degraded)."""
    choices: list[LucentChoice] = []
    if candidates is UNSET:
        return choices
    for n, cand in enumerate(candidates):
        cp = f"{path}[{n}]"
        content = cand.content
        verbatim: list[dict[str, Any]] = []
        blocks: list[LucentContent] = []
        if content is not UNSET and content.parts is not UNSET:
            blocks = _parts_blocks(content.parts, f"{cp}.content.parts", cx, verbatim, signature_blocks=True)
        message = cx.built(f"{cp}.content", LucentMessage(role="assistant", content=blocks))
        finish = _finish(cand.finishReason, blocks)
        choice = cx.built(cp, LucentChoice(index=cand.index if isinstance(cand.index, int) else n, message=message, finish_reason=finish),
                          {"index": "index", "finish_reason": "finishReason"})
        cx.built(f"{cp}.content", message)  # the message is the deepest Lux object of the content
        if not _set(cand.index):
            _keep(cx, cp, "index", None, f"{cp}.index")
        if content is UNSET:
            _keep(cx, cp, "content", None, f"{cp}.content")
        else:
            if content.role != "model":
                _keep(cx, f"{cp}.content", "role", content.role if _set(content.role) else None, f"{cp}.content.role")
            if content.parts is UNSET:
                _keep(cx, f"{cp}.content", "parts", None, f"{cp}.content.parts")
            if verbatim:
                _keep(cx, f"{cp}.content", "verbatim_parts", verbatim, f"{cp}.content.parts")
        if cand.finishReason is UNSET:
            _keep(cx, cp, "finishReason", None, f"{cp}.finishReason")
        elif _FINISH_BACK[finish] != cand.finishReason:
            _keep(cx, cp, "finishReason", cand.finishReason, f"{cp}.finishReason")
            if cand.finishReason not in _FINISH:
                cx.report(f"{cp}.finishReason", "Degraded", f"Lux has no finish reason for {cand.finishReason}; written as error, the Gemini value kept in the gemini side-car")
        if cand.safetyRatings is not UNSET:
            ratings = []
            for r, rating in enumerate(cand.safetyRatings):
                rp = f"{cp}.safetyRatings[{r}]"
                ratings.append(cx.built(rp, LucentSafetyRating(category=rating.category if isinstance(rating.category, str) else "",
                                                               probability=rating.probability if isinstance(rating.probability, str) else "")))
                for key in ("category", "probability", "blocked"):
                    if key == "blocked" and _set(rating.blocked):
                        _keep(cx, rp, "blocked", rating.blocked, f"{rp}.blocked")
                    elif key != "blocked" and not _set(getattr(rating, key)):
                        _keep(cx, rp, key, None, f"{rp}.{key}")
            choice.safety_ratings = ratings
        for key in _CANDIDATE_KEPT:
            value = getattr(cand, key)
            if _set(value):
                _keep(cx, cp, key, _plain(value), f"{cp}.{key}")
                cx.report(f"{cp}.{key}", "Degraded", "Lux has no field for it; kept in the gemini side-car, a Lux reader does not see it")
        choices.append(choice)
    return choices


def gemini_usage(usage: UsageMetadata | UnsetType, path: str, cx: Cx) -> LucentUsage | UnsetType:
    """usageMetadata as Lux usage. Gemini's promptTokenCount includes cachedContentTokenCount (as
    Lux prompt_tokens includes cached_tokens), and toolUsePromptTokenCount is input apart from it:
    prompt_tokens = promptTokenCount + toolUsePromptTokenCount; completion_tokens =
    candidatesTokenCount + thoughtsTokenCount (Lux reasoning is inside completion);
    reasoning_tokens = thoughtsTokenCount; cached_tokens = cachedContentTokenCount; total_tokens =
    totalTokenCount (else their sum). An absent count is 0 in the sum and kept as absent."""
    if usage is UNSET:
        return UNSET
    prompt = (usage.promptTokenCount or 0) + (usage.toolUsePromptTokenCount or 0)
    completion = (usage.candidatesTokenCount or 0) + (usage.thoughtsTokenCount or 0)
    out = LucentUsage(prompt_tokens=prompt, completion_tokens=completion,
                      total_tokens=usage.totalTokenCount if isinstance(usage.totalTokenCount, int) else prompt + completion)
    out.reasoning_tokens = usage.thoughtsTokenCount
    out.cached_tokens = usage.cachedContentTokenCount
    return cx.built(path, out, {"total_tokens": "totalTokenCount", "reasoning_tokens": "thoughtsTokenCount", "cached_tokens": "cachedContentTokenCount"})


_USAGE_COUNTS = ("promptTokenCount", "candidatesTokenCount", "totalTokenCount")


@reports("Degraded")
def usage_kept(usage: UsageMetadata | UnsetType, path: str, cx: Cx) -> dict[str, Any] | UnsetType:
    """The usageMetadata members Lux usage does not give back: per-modality details, serviceTier,
    toolUsePromptTokenCount (Degraded), and a count that was absent (null)."""
    if usage is UNSET:
        return UNSET
    plain = _plain(usage)
    kept: dict[str, Any] = {}
    for key, value in plain.items():
        if key in _USAGE_COUNTS or key in ("thoughtsTokenCount", "cachedContentTokenCount"):
            continue
        kept[key] = value
        if key not in ("toolUsePromptTokenCount",):
            cx.report(member(path, key), "Degraded", "Lux usage has no field for it; kept in provider_payload.gemini.usageMetadata, a Lux reader does not see it")
    for key in _USAGE_COUNTS:
        if key not in plain:
            kept[key] = None
    return kept or UNSET


@reports("Degraded", "Unsupported", "Invalid")
def gemini_candidates(choices: list[LucentChoice], kept: Any, path: str, cx: Cx) -> list[Candidate] | UnsetType:
    """Each Lux choice as a candidate: content role model with the message's blocks as parts;
    finish_reason stop / tool_calls -> STOP, length -> MAX_TOKENS, safety -> SAFETY, recitation ->
    RECITATION, content_filter -> PROHIBITED_CONTENT, malformed_tool_call ->
    MALFORMED_FUNCTION_CALL, error -> OTHER (a kept Gemini value wins); safety_ratings ->
    safetyRatings; the kept candidate members put back."""
    out: list[Candidate] = []
    names = _call_names([LucentConversationItemMessage(message=c.message) for c in choices])
    for n, choice in enumerate(choices):
        cp = f"{path}[{n}]"
        mp = f"{cp}.message"
        cand = Candidate()
        if not (_kept_null(cx, cp, "index")):
            cand.index = _int32(choice.index, f"{cp}.index", cx, "index")
        if not (_kept_null(cx, cp, "content") and not choice.message.content):
            parts = _block_parts(choice.message.content, f"{mp}.content", names, cx)
            content = Content(parts=parts, role="model")
            if choice.message.role not in ("assistant", "model"):
                cx.report(f"{mp}.role", "Degraded", "a Gemini candidate's content is the model's; written with role model")
            if _kept_has(cx, mp, "role"):
                content.role = cx.kept(MEMBERS, mp, "role", "string")
            if _kept_has(cx, mp, "verbatim_parts"):
                content.parts = _insert_verbatim(parts, _kept(cx, mp, "verbatim_parts"), member(f"{cx.sidecar_path}.{MEMBERS}", mp) + ".verbatim_parts", cx)
            if _kept_null(cx, mp, "parts") and not content.parts:
                content.parts = UNSET
            cand.content = cx.built(mp, content)
        if _kept_has(cx, cp, "finishReason"):
            cand.finishReason = cast(Any, cx.kept(MEMBERS, cp, "finishReason", "string"))
        else:
            cand.finishReason = _FINISH_BACK[choice.finish_reason]
            calls = any(isinstance(b, LucentContentToolUse) for b in choice.message.content)
            if choice.finish_reason == "tool_calls" and not calls:
                cx.report(f"{cp}.finish_reason", "Unsupported", "Gemini says STOP when the model calls functions; without a function call in the message, tool_calls is written as STOP and comes back as stop")
            elif choice.finish_reason == "stop" and calls:
                cx.report(f"{cp}.finish_reason", "Degraded", "Gemini says STOP when the model calls functions; it comes back as tool_calls")
        if choice.safety_ratings is not UNSET:
            ratings = []
            for r, rating in enumerate(choice.safety_ratings):
                rp = f"{cp}.safety_ratings[{r}]"
                value: dict[str, Any] = {"category": rating.category, "probability": rating.probability}
                for key in ("category", "probability"):
                    if _kept_null(cx, rp, key):
                        value.pop(key)
                if _kept_has(cx, rp, "blocked"):
                    value["blocked"] = _kept(cx, rp, "blocked")
                converted = _convert(value, SafetyRating, rp, cx)
                if converted is not None:
                    ratings.append(converted)
            cand.safetyRatings = ratings
        members = {key: _kept(cx, cp, key) for key in _CANDIDATE_KEPT if _kept_has(cx, cp, key)}
        if members:
            typed = _convert(members, Candidate, member(f"{cx.sidecar_path}.{MEMBERS}", cp), cx)
            for key in members if typed is not None else ():
                setattr(cand, key, getattr(typed, key))
        out.append(cx.built(cp, cand))
    cx.report_unread_entries(MEMBERS)
    return UNSET if kept is None and not out else out


@reports("Unsupported", "Invalid")
def gemini_usage_out(usage: LucentUsage | UnsetType, kept: Any, path: str, cx: Cx) -> UsageMetadata | UnsetType:
    """usageMetadata from Lux usage (the inverse of gemini_usage, with the kept members)."""
    if usage is UNSET:
        if kept is not UNSET:
            cx.report(f"{cx.carried_path}.usageMetadata", "Unsupported", "not written: the Lux response has no usage for these kept members to join")
        return UNSET
    if not isinstance(kept, dict):
        if kept is not UNSET:
            cx.report(f"{cx.carried_path}.usageMetadata", "Invalid", "not a JSON object; ignored")
        kept = {}
    reasoning = usage.reasoning_tokens if usage.reasoning_tokens is not UNSET else 0
    tool_use = kept.get("toolUsePromptTokenCount", 0) if isinstance(kept.get("toolUsePromptTokenCount", 0), int) else 0
    out: dict[str, Any] = {
        "promptTokenCount": usage.prompt_tokens - tool_use,
        "candidatesTokenCount": usage.completion_tokens - reasoning,
        "totalTokenCount": usage.total_tokens,
    }
    if usage.reasoning_tokens is not UNSET:
        out["thoughtsTokenCount"] = usage.reasoning_tokens
    if usage.cached_tokens is not UNSET:
        out["cachedContentTokenCount"] = usage.cached_tokens
    if usage.cache_creation_tokens is not UNSET and usage.cache_creation_tokens != 0:  # 0 writes: nothing to report
        cx.report(f"{path}.cache_creation_tokens", "Unsupported", "Gemini reports no cache writes (the tokens stay counted in promptTokenCount)")
    for key, value in kept.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = value
    for key in ("promptTokenCount", "candidatesTokenCount", "totalTokenCount", "thoughtsTokenCount", "cachedContentTokenCount"):
        if key in out and isinstance(out[key], int) and not (_INT32[0] <= out[key] <= _INT32[1]):
            cx.report(path, "Unsupported", f"Gemini {key} is an int32; a count outside -2^31..2^31-1 is left out")
            out.pop(key)
    converted = _convert(out, UsageMetadata, f"{cx.carried_path}.usageMetadata", cx)
    return cx.built(path, cast(UsageMetadata, converted)) if converted is not None else UNSET  # recorded: its kept members come back to it


def absent_marker(value: Any, path: str, cx: Cx) -> None | UnsetType:
    """null when the Gemini member is absent (the way back then leaves it out), else nothing."""
    return None if value is UNSET else UNSET


def unless_kept_absent(value: Any, kept: Any, path: str, cx: Cx) -> Any:
    """The Lux value, unless the side-car says the Gemini member was absent (kept null)."""
    return UNSET if kept is None else value
