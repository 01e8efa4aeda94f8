"""Compile the hand-written mapping specs in ``mappings/`` into converter modules and docs.

The specs are the source of truth (the sqlc model): each ``mappings/*.toml`` file describes one
conversion direction, and :func:`render_all` turns every spec into a straight-line Python module
in ``generated/`` (through the ``codegen/templates/converter*.jinja`` templates) and all of them
into ``docs/mappings.md``. Nothing reads a spec at run time.

Spec format
-----------
``[pair]``
    ``title``, ``source`` / ``target`` (format names: :data:`FORMATS`), ``kind`` (``request``,
    ``response``, ...), ``entry`` (the first mapping), ``function`` (the public function of the
    generated module), ``output`` (its file name in ``generated/``) and ``carried`` (the path,
    in the Lux document, of the object that keeps the values only the other format has, for
    example ``extra.sparktide``).

``[maps.NAME]``
    One mapping: ``source`` is a definition of the source schema, ``target`` a definition of the
    target schema, ``object`` (a free JSON object), ``json`` (any JSON value) or a collector of
    the format's transforms module (``MessageParts``, ``LlmSdkParts``: :data:`COLLECTORS`). A type may also be
    named by a path from a definition: ``Def.prop`` (a property's type, such as an inline union),
    ``Def.prop[]`` (its items) or ``Union.tag`` (one variant of a union). A mapping compiles to one
    function ``_NAME``; the value it builds is recorded with the source path it came from and the
    source member each of its fields copies (``Cx.built``: provenance, used by ``lucent.convert``
    to name a second hop's findings by source paths).

    ``[maps.NAME.rules]``: one rule per target field, keyed by its dotted target path
    (``options.max_output_tokens``, ``extra.sparktide.deadline``). A rule is one inline table:

    - ``const = V``: the constant ``V``; with ``from`` + ``status`` + ``reason``, a source value
      there that is not ``V`` is reported (it is not written; ``V`` is);
    - ``from = "a.b"``: the source value at that path, copied (``from`` may be a list when a
      transform reads several fields; ``"."`` is the source object itself; a path under
      ``carried`` reads the Lux side-car; in a Lux -> X spec, ``extra.<format>.<key>`` reads a member
      of another format's side-car that means the same in X, ``Cx.from_sibling``, and that
      member is then left out of the report of that side-car's unread members); ``null_is_absent = true`` drops a JSON null; with
      ``status`` + ``reason`` the copy is reported when present (carried, with a loss a reader
      of the target sees). Target bounds: when the target field is optional (not required, and
      no conditional rule of its object may require it) and its schema bounds the value
      (minimum / maximum / exclusiveMinimum / exclusiveMaximum, an integer ``format``,
      multipleOf, minLength / maxLength / pattern, minItems / maxItems, enum / const beyond the
      type), the generated code checks each bound, read from the target schema at codegen time
      (straight-line: one comparison per keyword), and a value outside is left out and reported
      Unsupported at its source path, naming the keyword and bound, and the value by its type
      only ("SparkTide temperature has maximum 2; the value (an integer) is left out"). A ``context`` rule checks its source value the same way (the
      field then stays missing: Invalid ``target:$.field``);
    - ``via = "T"``: the transform ``T`` (vocabulary: :data:`TRANSFORMS`; a function of
      lucent/formats/<format>/transforms.py or of lucent/_transforms.py)
      turns the ``from`` value(s) into the target value; ``with = [fields]`` also passes target
      fields computed before (without ``from``, the transform gets only those and the path of
      the source object); ``carried = "key"`` names the carried key the transform reads; a
      transform declared ``@skips_absent`` (lucent._conversion.skips_absent) that reads only
      optional source members is called, and its path built, only when one of them is present
      (UNSET otherwise);
    - ``each = "M"`` / ``map = "M"``: mapping ``M`` applied to every item / to the value;
      ``first = "M"`` with ``status`` + ``reason``: mapping ``M`` applied to the first item of a
      source list, every other item reported; ``empty = "T"`` gives the value (and reports) when
      the list has none, else that is reported Invalid as ``target:$.field``;
      ``emit = "M"``: mapping ``M`` appends zero or more items to the target list;
    - ``collect = "M"``: the union mapping ``M`` sorts the items of a source list into a
      ``MessageParts`` that the ``via`` transform reads;
    - ``parts = [{...}, ...]``: a target list built from several sources in order; a part may
      name a target union ``variant`` to wrap the value in, and a ``status`` + ``reason`` it is
      reported with when present; a part with ``via`` adds the items its transform returns;
    - ``values = {source = target}``: an enum mapped value by value (every source value must be
      listed); ``lossy_values = {value = status}`` with ``reason`` reports the lossy ones;
    - ``context = "key"``: the caller's context value (wins; a different ``from`` value is
      reported Degraded), else the ``from`` value; a target field that is still missing is
      reported Invalid as ``target:$.field``;
      ``only_when = {field = value}``: required when that holds, dropped otherwise;
    - ``check = "C"`` with ``status`` + ``reason``: a rule the value must keep; a value that
      breaks it is still carried and reported;
    - ``merge = "carried.path"`` / ``otherwise = "carried.path"``: put carried list items back at
      their index / use the carried value when the source has none (``map`` or a plain copy); a
      carried value that the source's own value overrides (and differs from what is written) is
      reported Unsupported at the carried path;
    - ``kept = "space"`` (Lux source): the member of the same name (or ``as``) that the other
      direction kept for the Lux object at this path (see ``keep``); with ``from`` (+ ``via``),
      what the source gives when nothing was kept;
    - ``then = "T"`` (or a list of them, run in order): a transform run over the finished list;
    - ``absent = "reason"``: the target field is never written;
    - ``spelling = true`` (an X -> Lux rule for ``extra.<format>.<key>`` or
      ``provider_payload.<format>.<key>``, without a status): the member only records how X
      spelled a value Lux holds (``stream_absent``, ``limit_field``, ``input_string``); a Lux ->
      Y conversion reports X's other side-car members one by one and leaves the spellings out
      (:func:`spellings`). A kept JSON null is a value, never a spelling.

    ``[pair]`` of a Lux -> X spec with ``carried``: ``carried_types = {key = type}``, the JSON
    type of each carried entry the Lux document keeps in its own form (a marker such as
    ``stream_absent``, a kept null, the ``members`` object): a JSON type name (``string``,
    ``integer``, ``number``, ``boolean``, ``object``, ``array``, ``null``), several joined with
    ``|`` (``integer|null``), ``any``, or a list of the strings allowed. The converter checks
    them before any rule reads the side-car (``Cx.load_carried``): an entry of another type is
    reported Invalid at its path and read as absent, so no rule meets it, in any branch.

    ``[pair]`` of an X -> Lux spec, for the members its transforms keep for a Lux object in the
    side-car's ``members`` (``cx.keep``): ``member_spellings = ["name:type"]``, the members that
    only record how X spelled a value Lux holds, with the JSON type the spelling has
    (``content_form:string``: a value of another type is no spelling and is reported); ``member_absences = [names]``,
    the members kept as null to record that X had none where Lux needs a value (a Gemini call
    without an id). A Lux -> Y conversion reports X's other kept members one by one.
    ``idle_values = ["key=false"]``: side-car entries whose value asks for what every target
    that does not read them does anyway (Responses ``store: false``: keep nothing, as every
    format but Responses does); a Lux -> Y conversion that does not read the entry leaves it
    out, and reports any other value of it.

    ``[maps.NAME.unreachable]`` (the entry mapping only): ``field = "reason"`` declares that some
    sources have no valid target document because of that target field's bounds (SparkTide's
    ``messages`` holds 1 to 256 messages: an empty conversation has no SparkTide image), or, for a
    required field without bounds, because the source may give no value for it (a Lux response
    without usage has no Anthropic image). The generated code checks the value written against
    the bounds (read from the target schema), or that it is there, and reports Invalid
    ``target:$.field`` with the reason; nothing is fabricated. The
    declarations are compiled into ``convert_registry.UNREACHABLE``, which the conversion
    conformance harness reads to count such outputs apart from valid ones.

    ``[maps.NAME.variants]`` (target is a union, picked by the source field ``select``): one rule
    per target variant, ``{when = [values], map = "M"}`` or ``{absent = "reason"}``.

    ``[maps.NAME.source_variants]`` (source is a union): one rule per source variant: ``const``,
    ``rules`` (a nested rules table), ``from`` with ``map`` / ``emit`` / ``via`` / ``into`` (a
    collector list) / ``each`` (every item, appended), ``map`` alone (the variant itself), or
    ``status`` + ``reason`` (reported at the variant's path, never a silent drop; with a mapping,
    reported and mapped). ``variant = "tag"`` builds or wraps the value as that variant of a
    union target. ``emit = true`` on the mapping makes it append to a list; ``collect = true``
    (``MessageParts``) or ``collect = "Class"`` makes it fill a collector. A mapping whose
    ``emit = "T"`` transform writes a union target itself has rules that only ``collect``.

    ``[maps.NAME.unmapped]``: every source field no rule reads, keyed by its dotted path
    (``options.top_k``, ``text.annotations`` for a variant's field): ``{status, reason}``
    (reported when present, or only when equal to ``when``), ``{implied = "reason"}`` (nothing is
    lost), ``{never = "reason"}`` (the schema forbids it here; reported Invalid if present) or
    ``{keep = "space"}`` (Lux target: kept in the Lux side-car ``space`` -- ``media`` or
    ``<carried key>.members`` under the side-car object, ``extra`` or ``provider_payload`` --
    under the Lux path of the deepest object built from this source object, as ``as`` or its own
    name; ``when = V`` keeps only that value). ``unless = "T"`` (a transform of kind ``unless``)
    skips the report or the keep when the rest of the source implies the value. A declaration on
    a free object (``extra``) covers the keys no rule reads. ``degraded_when = "T"`` (a
    transform of kind ``degraded_when``, given the value and the source object) reports the field
    Degraded instead of ``status`` when the rest of the source implies it (the target derives it
    back).

A schema whose root is an object (htmlp) names it by its ``title`` (``ModelRequest``); a property
that is a definition narrowed by ``allOf`` (SparkTide's response message) has that definition's
type.

Checks (codegen fails with a message naming the spec, mapping and field): every source field,
enum value and union variant is read or declared; every target field has a rule; required target
fields are written; every named mapping and transform exists; rule keys are from the vocabulary.
"""

from __future__ import annotations

import ast
import json
import keyword
import pathlib
import re
import tomllib
from dataclasses import dataclass, field, replace
from typing import Any

import jinja2

from codegen.bindings import INTEGER_FORMATS
from codegen.ecma_regex import translate
from lucent.formats import FORMATS as REGISTRY

__all__ = ["MappingSpecError", "TRANSFORMS", "load_specs", "render_all", "render_docs"]


class MappingSpecError(Exception):
    """A mapping spec is incomplete or malformed; the message names the spec and the field.

    ``problems`` holds one line per finding (``mappings/FILE: [maps.NAME]: MESSAGE``); an error
    of several (:meth:`of`) says how many and lists them, one a line."""

    def __init__(self, message: str, problems: list[str] | None = None) -> None:
        super().__init__(message)
        self.problems = [message] if problems is None else problems

    @classmethod
    def of(cls, problems: list[str]) -> MappingSpecError:
        """One error for every finding: every missing rule of every spec (the regeneration
        after a schema change lists them all at once)."""
        if len(problems) == 1:
            return cls(problems[0])
        files = len({p.split(":", 1)[0] for p in problems})
        head = f"{len(problems)} problems in {files} mapping spec{'s' if files != 1 else ''}:"
        return cls("\n  ".join([head, *problems]), list(problems))


@dataclass(frozen=True)
class Format:
    name: str
    schema_file: str
    module: str
    title: str
    label: str  # how a diagnostic names the format ("SparkTide temperature has maximum 2")


FORMATS: dict[str, Format] = {f.name: Format(f.name, f.schema_file, f.module, f.title, f.label) for f in REGISTRY.values()}
"""Format name -> what the mapping specs and docs need of it, from the format registry (lucent.formats)."""

# The closed vocabulary of transforms: name -> (where it may be used, what it does). Each one is a
# function of lucent/_transforms.py (shared) or of a format's lucent/formats/<format>/transforms.py.
TRANSFORMS: dict[str, tuple[str, str]] = {
    "function_tools": ("via", "Chat Completions function tools as LucentTool (absent parameters -> null); other shapes are left to verbatim_tools"),
    "verbatim_tools": ("via", "tools that are not the Chat Completions function shape, verbatim with their index"),
    "tool_choice_to_lux": ("via", "auto / none / required and {type: function, function: {name}} as LucentToolChoice"),
    "verbatim_tool_choice": ("via", "a tool_choice that tool_choice_to_lux cannot map, verbatim"),
    "structured_output": ("via", "response_format text / json_object / json_schema as LucentStructuredOutput"),
    "verbatim_response_format": ("via", "a response_format that structured_output cannot map, verbatim"),
    "json_schema_members": ("via", "json_schema name / description / strict (Lux keeps only the schema)"),
    "json_schema_object": ("via", "{schema} plus the carried name / description / strict"),
    "content_absent_indexes": ("via", "indexes of assistant messages without a content key"),
    "empty_tool_calls_indexes": ("via", "indexes of assistant messages with tool_calls: []"),
    "message_content": ("via", "text blocks joined with a newline; an assistant turn without text gets null (or no key, when carried)"),
    "message_tool_calls": ("via", "the collected tool calls of an assistant turn"),
    "joined_text": ("via", "text blocks joined with a newline"),
    "append_tool_call": ("via", "a tool call item added to the assistant turn before it, or to a new one"),
    "closed_json_object": ("check", "a complete, closed JSON object: no duplicate properties, no trailing JSON, not null"),
    "settle_assistant_content": ("then", "an assistant turn left with neither text nor tool calls gets content \"\""),
    "emit_message": ("emit", "tool results first, then the message unless it only carried tool results (then its role is reported Degraded)"),
    "settle_tool_ids": ("then", "tool call ids / function names SparkTide cannot hold replaced by lucent_call_<n> / lucent_tool_<n> (the same for every use), reported Degraded"),
    # SparkTide responses and failures <-> Lux (lucent/formats/sparktide/transforms.py)
    "absent_flag": ("via", "true when the source field is absent (a distinction only the source format makes)"),
    "empty_list_flag": ("via", "true when the source list is present and empty"),
    "derived_finish_reason": ("via", "tool_calls when the message has a tool call, else stop"),
    "usage_to_lux": ("via", "a full usage receipt (prompt, completion and total tokens) as LucentUsage; {} or a partial one: no usage"),
    "partial_usage": ("via", "a usage receipt with some but not all three counts, verbatim"),
    "response_content": ("via", "text (and refusal) blocks joined with a newline; without text null, or no key when carried; without text or tool calls \"\""),
    "response_tool_calls": ("via", "the tool calls SparkTide accepts (id and name of 1-128 characters, not only white space; at most 16); [] when carried"),
    "usage_to_sparktide": ("via", "prompt / completion / total tokens in 0..10^9; without Lux usage the carried partial receipt, else {}"),
    "choice_is_first": ("unless", "the choice is the first (index 0), the one message a SparkTide response is"),
    "finish_reason_derivable": ("degraded_when", "the finish reason is the one derived from the message (tool_calls when it has a tool call, else stop)"),
    "failure_message": ("via", "the fixed description of a SparkTide failure code"),
    "failure_code": ("via", "provider_code when it is a SparkTide code, else the code of the kind (content_filter -> MODEL_REQUEST_REJECTED)"),
    "standard_failure_message": ("degraded_when", "the message is the fixed description of the code written"),
    "empty_assistant_message": ("empty", "an assistant message with content \"\", reported Invalid: the Lux response has no choice and SparkTide requires a message"),
    # htmlp <-> Lux (lucent/formats/htmlp/transforms.py)
    "thinking_level_to_reasoning": ("via", "off -> no reasoning configuration; low / medium / high -> {enabled: true, effort}; xhigh / max -> effort high, reported"),
    "thinking_level_kept": ("via", "the thinking levels a Lux effort does not name (xhigh, max)"),
    "null_kept": ("via", "a JSON null kept as null (it differs from an absent member)"),
    "arguments_json_text": ("via", "any JSON value as its compact JSON text (separators \",\" and \":\", keys in order)"),
    "htmlp_media": ("via", "the base64 text of every image block, as extra.media {Lux path of the image: {data}}"),
    "attribution_members": ("via", "extra.htmlp.members {Lux path of the message: the source / byte_count that differ from the derived ones}"),
    "reasoning_to_thinking_level": ("via", "none -> off; enabled false -> off (reported); effort -> that level; enabled alone -> medium (reported); a carried xhigh / max with effort high"),
    "uint32_tokens": ("via", "a token limit in 0..2^32-1 (else reported and dropped); null when carried as null"),
    "empty_tool_list": ("via", "no items; an empty tool list is reported (it comes back as none)"),
    "description_or_empty": ("via", "a tool description; \"\" (reported) when there is none"),
    "json_arguments": ("via", "the JSON value of a JSON text (reported when not its compact text); other text reported and kept as a JSON string"),
    "tool_result_text": ("via", "the text blocks of a tool result joined with a newline; other blocks, or none, reported"),
    "fragment_source": ("via", "the ContentSource kept in extra.htmlp.members for the Lux object, else tool_output (tool results of a named call) or system_prompt / user_message / assistant_history by role"),
    "fragment_byte_count": ("via", "the byte_count kept in extra.htmlp.members for the Lux object, else the UTF-8 bytes of its text"),
    "instruction_fragments": ("via", "the text blocks of the instructions as one system fragment (source system_prompt); other blocks, or none, reported"),
    "tool_call_fragment": ("via", "a tool_call item as an assistant fragment with one tool_use block, reported"),
    "tool_result_fragment": ("via", "a tool_result item as a user fragment with one tool_result block, reported"),
    "reasoning_fragment": ("via", "a reasoning item as an assistant fragment with one reasoning block, reported; a redacted one is reported and dropped"),
    "reasoning_block": ("via", "a thinking block as a reasoning block; a redacted one is reported and dropped"),
    "inline_image": ("via", "an inline image whose base64 text is in extra.media as an htmlp image; any other image is reported and dropped"),
    "side_car_leftovers": ("via", "no items; after the conversation, reports the extra.htmlp.members entries no item read and empty or mistyped side-car objects"),
    # llm-sdk <-> Lux (lucent/formats/llm_sdk/transforms.py)
    "whole_number": ("via", "a number that is a whole number (|n| <= 2**53) as an integer"),
    "fraction": ("via", "a number whole_number does not take, reported"),
    "response_format_to_lux": ("via", "llm-sdk responseFormat: text -> text, json with a schema -> json_schema, json alone -> json_object"),
    "tool_message_starts": ("via", "Lux indexes where an llm-sdk tool message that follows another one begins"),
    "empty_tool_messages": ("via", "Lux indexes where an llm-sdk tool message with no parts stood"),
    "insert_empty_tool_messages": ("then", "the empty llm-sdk tool messages put back where extra.llm_sdk.empty_tool_messages says"),
    "audio_media_type": ("via", "audio/<container>, else the encoding's media type, else application/octet-stream"),
    "audio_container_implied": ("unless", "the audio container is given back by the Lux media type"),
    "audio_encoding_implied": ("unless", "the audio encoding is given back by the Lux media type"),
    "tool_call_name": ("via", "the tool name, remembered for the results that answer the call id"),
    "tool_name_implied": ("unless", "a tool result's toolName is the name of the latest tool call with its id"),
    "json_text": ("via", "a JSON value (tool call args) as its compact JSON text"),
    "json_text_block": ("via", "a JSON value (a tool result) as one text block of its compact JSON text"),
    "false_when_absent": ("via", "a flag llm-sdk may leave out: absent is false"),
    "system_prompt": ("via", "instructions' text blocks, then the leading system / developer messages', joined with a newline (Degraded when more than one, or folded)"),
    "emit_llm_sdk_message": ("emit", "a Lux message as llm-sdk messages: its tool results (a tool message), then the message by role; parts the role cannot hold are Unsupported"),
    "append_tool_call_part": ("via", "a tool_call item as a tool-call part of the assistant message before it, or of a new one (reported)"),
    "append_tool_result_part": ("via", "consecutive tool_result items as one llm-sdk tool message, unless extra.llm_sdk.tool_message_starts splits them"),
    "tool_name_for": ("via", "the name of the latest tool call with the id (Invalid, \"\", when there is none)"),
    "json_args": ("via", "arguments as llm-sdk args: the JSON object (\"null\" is null); re-serialized text Degraded, not an object reported and null"),
    "json_result": ("via", "a tool result's content: the one text block's JSON object or array, else text parts inside result (reported)"),
    "true_or_absent": ("via", "is_error true is isError true; false leaves it out"),
    "text_or_empty": ("via", "a text llm-sdk requires: absent is \"\" (reported)"),
    "object_or_null": ("via", "a JSON object, or null; anything else reported and null"),
    "object_or_absent": ("via", "a JSON object; anything else reported and left out"),
    "inline_media_data": ("via", "the base64 text of inline media from extra.media[<Lux path>].data; url / file_uri reported, missing bytes Invalid"),
    "audio_container": ("via", "the llm-sdk audio container a media type names (audio/wav -> wav)"),
    "audio_encoding": ("via", "the llm-sdk audio encoding a media type names (audio/mpeg -> mp3); a media type that names neither is reported"),
    "inferred_finish_reason": ("via", "tool_calls when the llm-sdk content has a tool call, else stop"),
    "sum_tokens": ("via", "the sum of two token counts (total = input + output)"),
    "cached_text_tokens": ("via", "inputTokensDetail.cachedTextTokens"),
    "input_detail_rest": ("via", "inputTokensDetail without cachedTextTokens, each member reported"),
    "output_detail": ("via", "outputTokensDetail, each member reported"),
    "tokens_detail": ("via", "a kept ModelTokensDetail object (Invalid when it is not one)"),
    "input_tokens_detail": ("via", "inputTokensDetail: the kept per-modality counts and cachedTextTokens from cached_tokens"),
    "total_is_sum": ("unless", "total_tokens is prompt_tokens + completion_tokens"),
    "emit_response_content": ("emit", "the first choice's parts as the llm-sdk response content; other choices, the finish reason (Degraded when the content gives it back), an index other than 0 and a role other than assistant are reported"),
}

# Format transforms. A generated converter calls `_s.NAME` while it is lowered; render_all binds each
# name to the module of the spec's format, lucent/formats/<package>/transforms.py (package: [pair]
# `support`, else the format of the pair that is not Lux, with "-" as "_"), when it defines NAME,
# else to the shared lucent/_transforms.py. The vocabulary of a format is
# codegen/vocabulary/X.toml: `[transforms]` then `NAME = { use = "via", does = "..." }`. Each
# format module is its own namespace: two vocabularies may both name a transform (with the same
# `use`), but none may shadow a shared one of TRANSFORMS.
VOCABULARY_DIR = pathlib.Path(__file__).parent / "vocabulary"


def _load_vocabulary() -> dict[str, list[str]]:
    """Add every codegen/vocabulary/X.toml to TRANSFORMS; return transform name -> the X naming it."""
    owners: dict[str, list[str]] = {}
    for path in sorted(VOCABULARY_DIR.glob("*.toml")):
        table = tomllib.loads(path.read_text(encoding="utf-8")).get("transforms", {})
        for name, entry in table.items():
            if not isinstance(entry, dict) or set(entry) != {"use", "does"}:
                raise MappingSpecError(f"codegen/vocabulary/{path.name}: {name} needs exactly use and does")
            if name in TRANSFORMS and name not in owners:
                raise MappingSpecError(f"codegen/vocabulary/{path.name}: transform {name!r} is a shared transform")
            if name in TRANSFORMS and TRANSFORMS[name][0] != entry["use"]:
                raise MappingSpecError(f"codegen/vocabulary/{path.name}: transform {name!r} is a {TRANSFORMS[name][0]} elsewhere")
            does = f"{path.stem}: {entry['does']}"
            TRANSFORMS[name] = (str(entry["use"]), f"{TRANSFORMS[name][1]}; {does}" if name in TRANSFORMS else does)
            owners.setdefault(name, []).append(path.stem)
    return owners


VOCABULARY_OWNERS = _load_vocabulary()

RULE_KEYS = {
    "const", "from", "via", "with", "carried", "each", "map", "emit", "collect", "parts", "values",
    "lossy_values", "reason", "status", "context", "only_when", "check", "merge", "otherwise",
    "then", "absent", "null_is_absent", "first", "empty", "kept", "as", "spelling",
}
PART_KEYS = {"from", "each", "emit", "map", "via", "variant", "status", "reason"}
VARIANT_RULE_KEYS = {"const", "rules", "from", "map", "emit", "via", "into", "status", "reason", "variant", "each"}
UNMAPPED_KEYS = {"status", "reason", "implied", "never", "when", "degraded_when", "keep", "as", "unless"}
STATUSES = ("Exact", "Degraded", "Unsupported", "Invalid")
PARTS_FIELDS = ("texts", "tool_calls", "tool_messages")
# The collectors a `collect` mapping may fill (classes of the format's transforms module) -> fields.
COLLECTORS: dict[str, tuple[str, ...]] = {"MessageParts": PARTS_FIELDS, "LlmSdkParts": ("parts", "results")}


def _pascal(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.replace("-", "_").split("_") if part)


def _ident(name: str) -> str:
    name = name.replace(".", "_")
    return name + "_" if keyword.iskeyword(name) or name in {"src", "path", "cx", "out", "item", "i", "parts"} else name


def _lit(value: Any) -> str:
    """A Python literal for a JSON constant, with double-quoted strings."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, tuple):
        return "(" + ", ".join(_lit(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, list):
        return "[" + ", ".join(_lit(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_lit(k)}: {_lit(v)}" for k, v in value.items()) + "}"
    return repr(value)


# --------------------------------------------------------------------------------------- schemas


def _nullable(node: Any) -> bool:
    """Whether a schema node accepts null (`type` lists it, or an anyOf / oneOf branch is null)."""
    if not isinstance(node, dict):
        return True
    types = node.get("type")
    branches = node.get("anyOf", []) + node.get("oneOf", [])
    return (isinstance(types, list) and "null" in types) or types == "null" or any(_nullable(b) for b in branches if isinstance(b, dict) and "type" in b)


def _tag_value(node: Any) -> Any:
    """A union tag: a property's `const`, or its one-value string `enum` (as the bindings read
    OpenAI's `"role": {"enum": ["system"]}`); None otherwise."""
    if not isinstance(node, dict):
        return None
    if "const" in node:
        return node["const"]
    enum = node.get("enum")
    return enum[0] if isinstance(enum, list) and len(enum) == 1 and isinstance(enum[0], str) else None


@dataclass
class Type:
    """What a schema node is, as the generated bindings spell it."""

    kind: str  # struct | dict | list | union | enum | scalar | any
    py: str
    node: dict[str, Any] = field(default_factory=dict)
    cls: str = ""  # struct class or union alias
    item: Type | None = None
    values: tuple[Any, ...] = ()
    nullable: bool = False
    variants: dict[str, Variant] = field(default_factory=dict)


@dataclass
class Variant:
    tag: str
    kind: str  # object | literal
    cls: str = ""
    node: dict[str, Any] = field(default_factory=dict)
    tag_field: str = ""


class Schema:
    def __init__(self, path: pathlib.Path) -> None:
        self._merges: dict[str, dict[str, Any]] = {}  # definition -> its allOf merged (one object each)
        self.file = path.name
        self.doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        self.defs: dict[str, Any] = self.doc.get("$defs") or self.doc.get("definitions") or {}
        # A root that is itself an object (htmlp's ModelRequest) is named by its title.
        title = self.doc.get("title")
        self.root = title if "properties" in self.doc and isinstance(title, str) and title.isidentifier() and title not in self.defs else None
        self.tags = self._tagged_definitions()
        self._props: dict[tuple[str, int], dict[str, tuple[Type, bool]]] = {}

    def _tagged_definitions(self) -> dict[str, str]:
        """Definitions a discriminated union names by $ref -> their tag field, which the bindings
        make the msgspec tag rather than a Struct field (as codegen.bindings does)."""
        tags: dict[str, str] = {}

        def walk(raw: Any) -> None:
            if isinstance(raw, list):
                for item in raw:
                    walk(item)
            elif isinstance(raw, dict):
                refs = [v["$ref"].rsplit("/", 1)[1] for v in raw.get("oneOf", []) if isinstance(v, dict) and set(v) == {"$ref"}]
                consts = [{p for p, n in self.defs.get(r, {}).get("properties", {}).items() if _tag_value(n) is not None} for r in refs]
                common = set.intersection(*consts) if len(consts) > 1 else set()
                for ref in refs if len(common) == 1 else []:
                    tags[ref] = next(iter(common))
                for value in raw.values():
                    walk(value)

        walk(self.doc)
        return tags

    def deref(self, node: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
        name = None
        while "$ref" in node:
            name = node["$ref"].rsplit("/", 1)[1]
            node = self.defs[name]
        if name is not None and "allOf" in node:
            if name not in self._merges:
                self._merges[name] = self._merged(node)
            node = self._merges[name]
        return name, node

    def _merged(self, node: dict[str, Any]) -> dict[str, Any]:
        """A definition that is an ``allOf`` of objects (OpenAI's ``CreateResponse``) as one object
        of their properties and ``required``, as the bindings build its Struct
        (codegen.bindings ``_merge_all_of``); any other ``allOf`` is returned as it is."""
        branches: list[dict[str, Any]] = []
        for branch in node["allOf"]:
            while isinstance(branch, dict) and "$ref" in branch:
                branch = self.defs[branch["$ref"].rsplit("/", 1)[1]]
            if isinstance(branch, dict) and "allOf" in branch:
                branch = self._merged(branch)
            if not isinstance(branch, dict) or not (branch.get("type") == "object" or "properties" in branch):
                return node
            branches.append(branch)
        properties: dict[str, Any] = {}
        required: list[str] = []
        for branch in [node, *branches]:
            for prop, pnode in branch.get("properties", {}).items():
                # a member in several branches must meet all of them: one that refuses null wins
                if prop not in properties or not _nullable(pnode) or _nullable(properties[prop]):
                    properties[prop] = pnode
            required.extend(r for r in branch.get("required", []) if r not in required)
        return {"type": "object", "properties": properties, "required": required}

    def has(self, name: str) -> bool:
        return name in self.defs or name == self.root or self.member(name) is not None

    def member(self, name: str) -> Type | None:
        """A type named by a path from a definition: ``Def.prop`` (a property's type), ``Def.prop[]``
        (the items of an array property) or ``Union.tag`` (one variant of a union, without its tag
        field); None when ``name`` is not such a path."""
        base, dot, rest = name.partition(".")
        if not dot or not (base in self.defs or base == self.root):
            return None
        items = rest.endswith("[]")
        rest = rest.removesuffix("[]")
        t = self.definition(base)
        if t.kind == "union" and rest in t.variants and not items:
            return _variant_type(t.variants[rest])
        props = self.props(t) if t.kind == "struct" else {}
        if rest not in props:
            return None
        t = props[rest][0]
        if items:
            return t.item if t.kind == "list" else None
        return t

    def type_of(self, node: dict[str, Any], hint: str) -> Type:
        if not isinstance(node, dict):  # a boolean schema (htmlp's `"arguments": true`): any JSON
            return Type("any", "Any", {})
        name, node = self.deref(node)
        if name is not None and any("properties" in b for b in node.get("allOf", []) if "$ref" not in b):
            node = self._merged(node)  # an allOf of objects: one Struct, as codegen.bindings merges it
        refs = [b for b in node.get("allOf", []) if "$ref" in b]
        if len(refs) == 1 and not {"type", "properties", "oneOf"} & set(node):
            return self.type_of(refs[0], hint)  # a definition narrowed by allOf: its own type
        cls = name or hint
        if "oneOf" in node:
            named = [self.deref(b) for b in node["oneOf"]]
            branches = [b for _n, b in named]
            if all(self._literals(b) for b in branches):
                values = tuple(v for b in branches for v in self._literals(b))
                return Type("enum", name or self._literal_py(values), node, cls, values=values)
            variants: dict[str, Variant] = {}
            for ref, b in named:
                lits = self._literals(b)
                if lits:
                    for v in lits:
                        variants[v] = Variant(v, "literal")
                    continue
                for prop, pnode in b.get("properties", {}).items():
                    if _tag_value(pnode) is not None:
                        tag = _tag_value(pnode)
                        # a branch that is a definition of its own keeps its class name (llm-sdk's
                        # Message is UserMessage | AssistantMessage | ToolMessage)
                        variants[tag] = Variant(tag, "object", ref or f"{cls}{_pascal(tag)}", b, prop)
                        break
                else:
                    # an untagged oneOf (llm-sdk's `object | null`) is an opaque JSON value
                    return Type("any", "Any", node)
            if name is None and all(ref for ref, _b in named):
                # an inline union of definitions (a property's oneOf) has no name of its own
                py = " | ".join(dict.fromkeys(v.cls for v in variants.values()))
                return Type("union", py, node, py, variants=variants)
            return Type("union", cls, node, cls, variants=variants)
        lits = self._literals(node)
        if lits:
            return Type("enum", name or self._literal_py(lits), node, cls, values=lits)
        types = node.get("type")
        nullable = isinstance(types, list) and "null" in types
        if isinstance(types, list):
            types = [t for t in types if t != "null"]
            types = types[0] if len(types) == 1 else None
        scalar = {"string": "str", "integer": "int", "number": "float", "boolean": "bool"}
        if types in scalar:
            py = scalar[types]
            return Type("scalar", py + (" | None" if nullable else ""), node, nullable=nullable)
        if types == "array":
            item = self.type_of(node.get("items", {}), cls + "Item")
            return Type("list", f"list[{item.py}]", node, item=item)
        if types == "object" or "properties" in node:
            if node.get("properties"):
                return Type("struct", cls, node, cls)
            extra = node.get("additionalProperties")
            inner = self.type_of(extra, cls + "Value").py if isinstance(extra, dict) else "Any"
            return Type("dict", f"dict[str, {inner}]", node)
        return Type("any", "Any", node)

    @staticmethod
    def _literals(node: dict[str, Any]) -> tuple[Any, ...]:
        if "const" in node and isinstance(node["const"], str):
            return (node["const"],)
        if "enum" in node and all(isinstance(v, str) for v in node["enum"]):
            return tuple(node["enum"])
        return ()

    @staticmethod
    def _literal_py(values: tuple[Any, ...]) -> str:
        return "Literal[" + ", ".join(json.dumps(v) for v in values) + "]"

    def definition(self, name: str) -> Type:
        if name == self.root:
            return self.type_of({k: v for k, v in self.doc.items() if k not in ("$defs", "definitions")}, name)
        if name not in self.defs:
            member = self.member(name)
            if member is None:
                raise MappingSpecError(f"{self.file}: no definition {name}")
            return member
        return self.type_of({"$ref": f"#/$defs/{name}"} if "$defs" in self.doc else {"$ref": f"#/definitions/{name}"}, name)

    def props(self, t: Type) -> dict[str, tuple[Type, bool]]:
        """Properties of a struct type: name -> (type, required); a tagged definition's tag is not one."""
        key = (t.cls, id(t.node))
        known = self._props.get(key)
        if known is None:
            required = set(t.node.get("required", []))
            tag = self.tags.get(t.cls)
            known = self._props[key] = {
                p: (self.type_of(pnode, f"{t.cls}{_pascal(p)}"), p in required)
                for p, pnode in t.node.get("properties", {}).items()
                if p != tag
            }
        return dict(known)

    def variant_props(self, v: Variant) -> dict[str, tuple[Type, bool]]:
        required = set(v.node.get("required", []))
        return {
            p: (self.type_of(pnode, f"{v.cls}{_pascal(p)}"), p in required)
            for p, pnode in v.node.get("properties", {}).items()
            if p != v.tag_field
        }


# ----------------------------------------------------------------------------------------- specs


@dataclass
class Spec:
    path: pathlib.Path
    data: dict[str, Any]
    source: Schema
    target: Schema
    source_format: Format
    target_format: Format

    @property
    def pair(self) -> dict[str, Any]:
        return dict(self.data["pair"])

    @property
    def maps(self) -> dict[str, dict[str, Any]]:
        return dict(self.data.get("maps", {}))

    @property
    def package(self) -> str:
        """The folder under lucent/formats/ of the spec's transforms: [pair] support, else the
        format of the pair that is not Lux (``openai-chat`` -> ``openai_chat``)."""
        other = self.target_format if self.source_format.name == "lux" else self.source_format
        return str(self.data["pair"].get("support", other.name.replace("-", "_")))

    def fail(self, where: str, message: str) -> MappingSpecError:
        return MappingSpecError(f"mappings/{self.path.name}: {where}: {message}")


_JSON_TYPES = frozenset({"string", "integer", "number", "boolean", "object", "array", "null"})


def _carried_type(expect: Any) -> bool:
    """Whether `expect` is a carried_types entry (see the module docstring)."""
    if isinstance(expect, list):
        return bool(expect) and all(isinstance(v, str) for v in expect)
    return isinstance(expect, str) and (expect == "any" or set(expect.split("|")) <= _JSON_TYPES)


def load_specs(repo_root: pathlib.Path) -> list[Spec]:
    """Read and check every spec in ``repo_root/mappings``."""
    specs = []
    problems: list[str] = []  # every spec's missing rules (Checker), reported together
    schemas: dict[str, Schema] = {}  # one per file: a Schema caches what it has read
    for path in sorted((repo_root / "mappings").glob("*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        pair = data.get("pair")
        if not isinstance(pair, dict):
            raise MappingSpecError(f"mappings/{path.name}: no [pair] table")
        for key in ("title", "source", "target", "kind", "entry", "function", "output"):
            if key not in pair:
                raise MappingSpecError(f"mappings/{path.name}: [pair] has no {key}")
        for key in ("member_spellings", "member_absences"):
            names = pair.get(key, [])
            if not (isinstance(names, list) and all(isinstance(n, str) and n for n in names)):
                raise MappingSpecError(f"mappings/{path.name}: [pair] {key} is a list of member names")
            for name in names:
                typed = name.partition(":")[2]
                if key == "member_spellings" and not (typed and _carried_type(typed)):
                    raise MappingSpecError(f"mappings/{path.name}: [pair] member_spellings names each member with its JSON type (name:type): {name}")
            if names and (pair["target"] != "lux" or len(str(pair.get("carried", "")).split(".")) != 2):
                raise MappingSpecError(f"mappings/{path.name}: [pair] {key} names members an X -> Lux spec keeps in its carried side-car")
        idle = pair.get("idle_values", [])
        if not (isinstance(idle, list) and all(isinstance(n, str) and n.partition("=")[2] in ("false", "true", "null") for n in idle)):
            raise MappingSpecError(f"mappings/{path.name}: [pair] idle_values is a list of key=false, key=true or key=null")
        if idle and (pair["target"] != "lux" or len(str(pair.get("carried", "")).split(".")) != 2):
            raise MappingSpecError(f"mappings/{path.name}: [pair] idle_values names entries an X -> Lux spec keeps in its carried side-car")
        types = pair.get("carried_types", {})
        if types and (pair["source"] != "lux" or not pair.get("carried")):
            raise MappingSpecError(f"mappings/{path.name}: [pair] carried_types types the side-car a Lux -> X spec names as carried")
        for key, expect in types.items():
            if not _carried_type(expect):
                raise MappingSpecError(f"mappings/{path.name}: [pair] carried_types.{key} is not a JSON type name, several joined by |, any, or a list of strings")
        try:
            sf, tf = FORMATS[pair["source"]], FORMATS[pair["target"]]
        except KeyError as exc:
            raise MappingSpecError(f"mappings/{path.name}: unknown format {exc}") from None
        for fmt in (sf, tf):
            if fmt.schema_file not in schemas:
                schemas[fmt.schema_file] = Schema(repo_root / "schemas" / fmt.schema_file)
        spec = Spec(path, data, schemas[sf.schema_file], schemas[tf.schema_file], sf, tf)
        if not (repo_root / "lucent" / "formats" / spec.package / "transforms.py").is_file():
            raise MappingSpecError(f"mappings/{path.name}: [pair] format package {spec.package!r} has no lucent/formats/{spec.package}/transforms.py")
        try:
            Checker(spec).run()
        except MappingSpecError as exc:  # go on: every spec's missing rules are reported at once
            problems += exc.problems
            continue
        specs.append(spec)
    if problems:
        raise MappingSpecError.of(problems)
    _check_kinds(specs)
    return specs


def _check_kinds(specs: list[Spec]) -> None:
    """Each format's specs convert exactly the kinds the registry (lucent.formats) declares, both
    ways through Lux; raises MappingSpecError naming the format and the kinds that differ."""
    for name, fmt in REGISTRY.items():
        ways = [{s.data["pair"]["kind"] for s in specs if s.data["pair"][end] == name} for end in ("source", "target")]
        for way, found in zip(("from", "to"), ways):
            if found != set(fmt.kinds):
                raise MappingSpecError(f"lucent/formats/__init__.py: {name} declares kinds {sorted(fmt.kinds)}, but mappings/ converts {sorted(found)} {way} it")


def spellings(specs: list[Spec]) -> dict[str, dict[str, tuple[str, ...]]]:
    """The side-car members that only record how a source spelled a value Lux holds (a JSON null
    instead of an absent member, a string instead of a one-item list, which of two aliases it
    used), as {kind: {side-car: names}}: the X -> Lux rules marked ``spelling = true`` (a member
    of the side-car), and from the spec's ``[pair]`` ``member_spellings`` (``members/<name>``: a
    member kept for a Lux object in the side-car's ``members``) and ``member_absences``
    (``members/<name>=null``: such a member kept as null, which records that the source had none).
    A Lux -> Y conversion loses nothing by leaving another format's spellings out, so it reports
    only that format's other members. A spelling the format's Lux -> X spec types
    (``carried_types``) is named ``key:type``: a value of another type is reported."""
    found: dict[str, dict[str, set[str]]] = {}
    # the JSON type the Lux -> X spec gives each carried entry: a spelling of another type is no
    # spelling (a Lux -> Y conversion reports it like any other member), named `key:type`
    types: dict[tuple[str, str], dict[str, Any]] = {}
    for spec in specs:
        if spec.pair["source"] == "lux" and "." in spec.pair.get("carried", ""):
            types[(spec.pair["kind"], spec.pair["carried"].split(".")[1])] = spec.pair.get("carried_types", {})
    for spec in specs:
        for m in spec.maps.values():
            for tpath, rule in m.get("rules", {}).items():
                if rule.get("spelling") is True:
                    _, car, key = tpath.split(".")
                    expect = types.get((spec.pair["kind"], car), {}).get(key)
                    if isinstance(expect, list):
                        expect = "string"
                    found.setdefault(spec.pair["kind"], {}).setdefault(car, set()).add(f"{key}:{expect}" if expect else key)
        carried = spec.pair.get("carried", "")
        for key, suffix in (("member_spellings", ""), ("member_absences", "=null")):
            for name in spec.pair.get(key, ()):
                car = carried.split(".")[1]
                found.setdefault(spec.pair["kind"], {}).setdefault(car, set()).add(f"members/{name}{suffix}")
        for entry in spec.pair.get("idle_values", ()):
            found.setdefault(spec.pair["kind"], {}).setdefault(carried.split(".")[1], set()).add(entry)
    return {kind: {car: tuple(sorted(keys)) for car, keys in sorted(cars.items())} for kind, cars in found.items()}


def _froms(rule: dict[str, Any]) -> list[str]:
    f = rule.get("from")
    if f is None:
        return []
    return [f] if isinstance(f, str) else list(f)


class Checker:
    """Every source field, enum value and variant is read or declared; every target field is set."""

    def __init__(self, spec: Spec) -> None:
        self.spec = spec
        self.carried = spec.pair.get("carried", "")
        self.domains: dict[tuple[str, str], tuple[Any, ...]] = {}
        self.gaps: list[str] = []  # the missing rules found so far: all are reported at once

    def _gap(self, where: str, message: str) -> None:
        """A missing rule: noted, and the check goes on to find the others."""
        self.gaps.append(str(self.spec.fail(where, message)))

    def run(self) -> None:
        """Check the spec; raises MappingSpecError listing every missing rule (``.problems``),
        or naming the first malformed entry (with the missing rules found before it)."""
        try:
            self._run()
        except MappingSpecError as exc:
            raise MappingSpecError.of(self.gaps + exc.problems) from None
        if self.gaps:
            raise MappingSpecError.of(self.gaps)

    def _run(self) -> None:
        maps = self.spec.maps
        entry = self.spec.pair["entry"]
        if entry not in maps:
            raise self.spec.fail("[pair]", f"entry mapping {entry!r} is not defined")
        for name, m in maps.items():
            if "variants" in m:
                self._select(name, m)
        for name, m in maps.items():
            where = f"[maps.{name}]"
            for key in m:
                if key not in {"source", "target", "rules", "variants", "source_variants", "unmapped", "unreachable", "select", "emit", "collect"}:
                    raise self.spec.fail(where, f"unknown key {key!r}")
            src = self._source_type(name, m)
            if src.kind == "union":
                self._union_source(name, m, src)
            elif "variants" not in m:
                self._object_source(name, m, src)
            for rule in self._all_rules(m):
                self._refs(where, rule)
            if "unreachable" in m:
                self._unreachable(name, m)

    # -- helpers
    def _source_type(self, name: str, m: dict[str, Any]) -> Type:
        if not self.spec.source.has(m.get("source", "")):
            raise self.spec.fail(f"[maps.{name}]", f"source {m.get('source')!r} is not a definition of {self.spec.source.file}")
        return self.spec.source.definition(m["source"])

    def _all_rules(self, m: dict[str, Any]) -> list[dict[str, Any]]:
        rules = list(m.get("rules", {}).values())
        for r in list(rules):
            rules.extend(r.get("parts", []))
        for v in m.get("source_variants", {}).values():
            rules.append(v)
            rules.extend(v.get("rules", {}).values())
        rules.extend(m.get("variants", {}).values())
        return rules

    def _refs(self, where: str, rule: dict[str, Any]) -> None:
        maps = self.spec.maps
        for key in ("each", "map", "collect", "first"):
            if isinstance(rule.get(key), str) and rule[key] not in maps:
                raise self.spec.fail(where, f"{key} names undefined mapping {rule[key]!r}")
        if isinstance(rule.get("emit"), str) and rule["emit"] not in maps:
            raise self.spec.fail(where, f"emit names undefined mapping {rule['emit']!r}")
        for key, kind in (("via", "via"), ("check", "check"), ("then", "then")):
            names = rule.get(key)
            for name in [names] if isinstance(names, str) or names is None else names:
                if name is not None and TRANSFORMS.get(name, ("",))[0] != kind:
                    raise self.spec.fail(where, f"{key} = {name!r} is not a {kind} transform of the vocabulary")
        if "status" in rule and rule["status"] not in STATUSES:
            raise self.spec.fail(where, f"status {rule['status']!r} is not one of {STATUSES}")
        if "status" in rule and "reason" not in rule:
            raise self.spec.fail(where, "a status needs a reason")
        if "first" in rule and "status" not in rule:
            raise self.spec.fail(where, "first needs the status + reason its other items are reported with")
        if "const" in rule and "from" in rule and "status" not in rule:
            raise self.spec.fail(where, "const with from needs the status + reason a different source value is reported with")
        if "empty" in rule and ("first" not in rule or TRANSFORMS.get(rule["empty"], ("",))[0] != "empty"):
            raise self.spec.fail(where, "empty names an empty transform of the vocabulary, for a first rule")

    def _unreachable(self, name: str, m: dict[str, Any]) -> None:
        """[maps.NAME.unreachable]: target fields of the entry mapping whose schema some sources
        cannot meet (no valid target document exists for them), each with the reason."""
        where = f"[maps.{name}.unreachable]"
        if name != self.spec.pair["entry"] or not self.spec.target.has(m["target"]):
            raise self.spec.fail(where, "only the entry mapping of a schema target declares unreachable fields")
        tgt = self.spec.target.definition(m["target"])
        for tpath, reason in m["unreachable"].items():
            props = self.spec.target.props(tgt) if tgt.kind == "struct" else {}
            if tpath not in props or tpath not in m.get("rules", {}) or "absent" in m["rules"][tpath]:
                raise self.spec.fail(where, f"{tpath} is not a target field a rule writes")
            if not isinstance(reason, str) or not reason:
                raise self.spec.fail(where, f"{tpath}: give the reason no valid value exists")

    def _select(self, name: str, m: dict[str, Any]) -> None:
        where = f"[maps.{name}]"
        src = self._source_type(name, m)
        sel = m.get("select")
        props = self.spec.source.props(src)
        if sel not in props or props[sel][0].kind != "enum":
            raise self.spec.fail(where, f"select = {sel!r} is not an enum field of {m['source']}")
        domain = props[sel][0].values
        tgt = self.spec.target.definition(m["target"])
        if tgt.kind != "union":
            raise self.spec.fail(where, f"variants need a union target; {m['target']} is not one")
        seen: list[Any] = []
        for tag in tgt.variants:
            if tag not in m["variants"]:
                self._gap(where, f"target variant {m['target']}.{tag} has no rule in [maps.{name}.variants]")
        for tag, rule in m["variants"].items():
            if tag not in tgt.variants:
                raise self.spec.fail(where, f"{m['target']} has no variant {tag!r}")
            if "absent" in rule:
                continue
            for key in rule:
                if key not in {"when", "map"}:
                    raise self.spec.fail(where, f"variant {tag}: unknown key {key!r}")
            seen.extend(rule["when"])
            self.domains[(rule["map"], sel)] = tuple(rule["when"])
        missing = [v for v in domain if v not in seen]
        if missing:
            raise self.spec.fail(where, f"{m['source']}.{sel} values {missing} select no variant")

    def _object_source(self, name: str, m: dict[str, Any], src: Type) -> None:
        where = f"[maps.{name}]"
        rules: dict[str, Any] = m.get("rules", {})
        used: set[str] = set()
        for tpath, rule in rules.items():
            for key in rule:
                if key not in RULE_KEYS:
                    raise self.spec.fail(where, f"rule {tpath}: unknown key {key!r}")
            if "spelling" in rule and (rule["spelling"] is not True or self.spec.target_format.name != "lux" or len(tpath.split(".")) != 3
                                       or tpath.split(".")[0] not in ("extra", "provider_payload") or "status" in rule):
                raise self.spec.fail(where, f"rule {tpath}: spelling = true marks a member of a Lux side-car (extra.<format>.<key>) that no diagnostic reports")
            for part in rule.get("parts", []):
                for key in part:
                    if key not in PART_KEYS:
                        raise self.spec.fail(where, f"rule {tpath}: unknown part key {key!r}")
                used.update(_froms(part))
            used.update(_froms(rule))
            for key in ("merge", "otherwise"):
                if key in rule:
                    used.add(rule[key])
            if "carried" in rule and self.carried:
                used.add(f"{self.carried}.{rule['carried']}")
            if "values" in rule:
                self._values(where, tpath, m, rule, src)
        declared = self._declared(where, m)
        self._cover(where, src, "", used, declared, m["source"])
        self._target(name, m)

    def _declared(self, where: str, m: dict[str, Any]) -> set[str]:
        declared = set()
        for path, decl in m.get("unmapped", {}).items():
            for key in decl:
                if key not in UNMAPPED_KEYS:
                    raise self.spec.fail(where, f"unmapped {path}: unknown key {key!r}")
            kinds = [k for k in ("status", "implied", "never", "keep") if k in decl]
            if len(kinds) != 1:
                raise self.spec.fail(where, f"unmapped {path}: give exactly one of status (+ reason), implied, never, keep")
            if "keep" in decl and (self.spec.target_format.name != "lux" or decl["keep"].split(".")[0] not in ("media", self.carried.split(".")[-1])):
                raise self.spec.fail(where, f"unmapped {path}: keep names a side-car of the Lux target: media or {self.carried.split('.')[-1]}.<key>")
            if "unless" in decl and TRANSFORMS.get(decl["unless"], ("",))[0] != "unless":
                raise self.spec.fail(where, f"unmapped {path}: unless = {decl['unless']!r} is not an unless transform of the vocabulary")
            if "status" in decl and (decl["status"] not in STATUSES or not decl.get("reason")):
                raise self.spec.fail(where, f"unmapped {path}: a lossy declaration needs a status of {STATUSES} and a reason")
            if "degraded_when" in decl and ("status" not in decl or TRANSFORMS.get(decl["degraded_when"], ("",))[0] != "degraded_when"):
                raise self.spec.fail(where, f"unmapped {path}: degraded_when = {decl['degraded_when']!r} needs a status and a degraded_when transform of the vocabulary")
            declared.add(path)
        return declared

    def _cover(self, where: str, t: Type, prefix: str, used: set[str], declared: set[str], owner: str) -> None:
        for prop, (ptype, _req) in self.spec.source.props(t).items():
            full = prefix + prop
            if full in used or full in declared:
                continue
            deeper = any(u.startswith(full + ".") for u in used | declared)
            if deeper and ptype.kind == "struct":
                self._cover(where, ptype, full + ".", used, declared, owner)
                continue
            if deeper and ptype.kind in ("dict", "any"):
                self._gap(where, f"source field {owner}.{full} is read in part; declare the rest in [unmapped] with a status and a reason")
                continue
            self._gap(where, f"source field {owner}.{full} is neither mapped nor declared lossy (add a rule reading it, or an [unmapped] entry with status + reason)")

    def _values(self, where: str, tpath: str, m: dict[str, Any], rule: dict[str, Any], src: Type) -> None:
        sfield = rule["from"]
        stype = src
        for seg in sfield.split("."):
            stype = self.spec.source.props(stype)[seg][0]
        domain = self.domains.get((self._name_of(m), sfield), stype.values)
        missing = [v for v in domain if v not in rule["values"]]
        if missing:
            raise self.spec.fail(where, f"rule {tpath}: source values {missing} of {m['source']}.{sfield} are not mapped")
        for k, status in rule.get("lossy_values", {}).items():
            if status not in STATUSES or "reason" not in rule:
                raise self.spec.fail(where, f"rule {tpath}: lossy value {k} needs a status and a reason")

    def _name_of(self, m: dict[str, Any]) -> str:
        for n, mm in self.spec.maps.items():
            if mm is m:
                return n
        return ""

    def _target(self, name: str, m: dict[str, Any]) -> None:
        where = f"[maps.{name}]"
        if m["target"] in ("object", "json", *COLLECTORS):
            return
        if not self.spec.target.has(m["target"]):
            raise self.spec.fail(where, f"target {m['target']!r} is not a definition of {self.spec.target.file}")
        tgt = self.spec.target.definition(m["target"])
        rules = m.get("rules", {})
        if tgt.kind == "union" and isinstance(m.get("emit"), str):
            # the emit transform writes the union's items; the rules only collect the source
            for tpath, rule in rules.items():
                if "collect" not in rule or "via" in rule:
                    raise self.spec.fail(where, f"rule {tpath}: a mapping whose emit transform writes {m['target']} only collects (collect, no via)")
            return
        self._target_cover(where, tgt, "", rules, m["target"])
        for tpath in rules:
            if not self._target_path_exists(tgt, tpath.split(".")):
                raise self.spec.fail(where, f"rule {tpath}: {m['target']} has no field {tpath}")

    def _target_cover(self, where: str, t: Type, prefix: str, rules: dict[str, Any], owner: str) -> None:
        for prop, (ptype, req) in self.spec.target.props(t).items():
            full = prefix + prop
            if full in rules:
                if req and "absent" in rules[full]:
                    raise self.spec.fail(where, f"target field {owner}.{full} is required; it cannot be absent")
                continue
            if any(r.startswith(full + ".") for r in rules):
                if ptype.kind == "struct":
                    self._target_cover(where, ptype, full + ".", rules, owner)
                continue
            self._gap(where, f"target field {owner}.{full} has no rule (map it, or give absent = reason)")

    def _target_path_exists(self, t: Type, segs: list[str]) -> bool:
        if t.kind in ("dict", "any"):
            return True
        if t.kind != "struct":
            return not segs
        if not segs:
            return True
        props = self.spec.target.props(t)
        return segs[0] in props and self._target_path_exists(props[segs[0]][0], segs[1:])

    def _union_source(self, name: str, m: dict[str, Any], src: Type) -> None:
        where = f"[maps.{name}]"
        sv: dict[str, Any] = m.get("source_variants", {})
        for tag in src.variants:
            if tag not in sv:
                raise self.spec.fail(where, f"source variant {m['source']}.{tag} is neither mapped nor declared lossy in [maps.{name}.source_variants]")
        declared = self._declared(where, m)
        for tag, rule in sv.items():
            if tag not in src.variants:
                raise self.spec.fail(where, f"{m['source']} has no variant {tag!r}")
            for key in rule:
                if key not in VARIANT_RULE_KEYS:
                    raise self.spec.fail(where, f"variant {tag}: unknown key {key!r}")
            v = src.variants[tag]
            if "status" in rule and not any(k in rule for k in ("from", "rules", "const", "map")):
                continue  # the whole variant is lossy
            if "variant" in rule:
                self._variant_target(where, tag, m, rule)
            if v.kind != "object" or ("map" in rule and "from" not in rule):
                continue  # a literal, or a variant mapped whole (its mapping covers its fields)
            used = set(_froms(rule))
            for r in rule.get("rules", {}).values():
                used.update(_froms(r))
                for part in r.get("parts", []):
                    used.update(_froms(part))
            mine = {d[len(tag) + 1:] for d in declared if d.startswith(tag + ".")}
            self._cover(where, _variant_type(v), "", used, mine, f"{v.cls} (variant {tag})")

    def _variant_target(self, where: str, tag: str, m: dict[str, Any], rule: dict[str, Any]) -> None:
        """A source variant built into the target union variant ``variant``: its fields are set."""
        tgt = self.spec.target.definition(m["target"]) if self.spec.target.has(m["target"]) else None
        if tgt is None or tgt.kind != "union" or rule["variant"] not in tgt.variants:
            raise self.spec.fail(where, f"variant {tag}: {m['target']} has no union variant {rule['variant']!r}")
        target = tgt.variants[rule["variant"]]
        if "rules" in rule:
            self._target_cover(where, _variant_type(target), "", rule["rules"], target.cls)
            for tpath in rule["rules"]:
                if not self._target_path_exists(_variant_type(target), tpath.split(".")):
                    raise self.spec.fail(where, f"variant {tag}: {target.cls} has no field {tpath}")
        elif not any(r for _t, r in self.spec.target.variant_props(target).values()):
            raise self.spec.fail(where, f"variant {tag}: {target.cls} has no required field to put the value in")


def _variant_type(v: Variant) -> Type:
    """A union variant as a struct type without its tag field."""
    node = dict(v.node)
    node["properties"] = {p: n for p, n in v.node.get("properties", {}).items() if p != v.tag_field}
    node["required"] = [p for p in v.node.get("required", []) if p != v.tag_field]
    return Type("struct", v.cls, node, v.cls)


# --------------------------------------------------------------------------------------- lowering


@dataclass
class Fn:
    """One generated function, in the shape the templates render."""

    name: str
    kind: str  # object | select | union
    src_type: str
    ret: str
    doc: str
    mode: str = "return"  # return | emit | collect
    body: list[dict[str, Any]] = field(default_factory=list)
    result: Any = ""
    branches: list[dict[str, Any]] = field(default_factory=list)
    emit_helper: str = ""
    collector: str = "MessageParts"  # the class a collect-mode function fills


class Lowering:
    """Turns one checked spec into the template context of its module."""

    def __init__(self, spec: Spec, spellings: dict[str, dict[str, tuple[str, ...]]] | None = None, skips: set[str] | None = None) -> None:
        self.spec = spec
        self.skips = skips or set()  # the transforms that do nothing for absent values (@skips_absent)
        self.spellings = (spellings or {}).get(spec.pair["kind"], {})
        self.src_names: set[str] = set()
        self.tgt_names: set[str] = set()
        self.constants: list[dict[str, str]] = []
        self.uses: set[str] = set()
        self.carried = spec.pair.get("carried", "")
        self.carried_in_source = bool(self.carried) and self._source_has_carried()
        self.patterns: dict[str, str] = {}  # translated target pattern -> its module constant
        self.context_keys: set[str] = set()  # the keys of its `context` rules (lucent._context)
        self.held = False  # the rule being lowered writes a field a conditional rule may require

    def _source_has_carried(self) -> bool:
        if self.spec.source_format.name != "lux":  # carried names a place in the Lux document
            return False
        entry = self.spec.maps[self.spec.pair["entry"]]
        root = self.spec.source.definition(entry["source"])
        return self.carried.split(".")[0] in self.spec.source.props(root)

    # -- names and types
    def sname(self, name: str) -> str:
        for one in name.split(" | "):  # an inline union of definitions names each of them
            if one and one[0].isupper() and not one.startswith(("Literal", "Any")):
                self.src_names.add(one)
        return name

    def tname(self, name: str) -> str:
        for one in name.split(" | "):
            if one and one[0].isupper() and not one.startswith(("Literal", "Any")):
                self.tgt_names.add(one)
        return name

    def tpy(self, t: Type) -> str:
        """The target type, importing the names it uses."""
        if t.kind == "list" and t.item is not None:
            return f"list[{self.tpy(t.item)}]"
        if t.kind in ("struct", "union") or (t.kind == "enum" and not t.py.startswith("Literal")):
            return self.tname(t.py)
        if "Literal" in t.py:
            self.uses.add("Literal")
        if "Any" in t.py:
            self.uses.add("Any")
        return t.py

    def map_ret(self, m: dict[str, Any]) -> str:
        target = m["target"]
        if target == "object":
            self.uses.add("Any")
            return "dict[str, Any]"
        if target == "json":
            self.uses.add("Any")
            return "Any"
        return self.tpy(self.spec.target.definition(target))

    def src_expr(self, base: str, src: Type, path: str, props_of: Any = None) -> tuple[str, Type, bool]:
        """`src.a.b`, the type at that path and whether it may be UNSET."""
        expr, t, optional = base, src, False
        for seg in path.split("."):
            props = self.spec.source.props(t) if props_of is None or t is not src else props_of
            if seg not in props:
                raise self.spec.fail("lowering", f"{src.cls} has no field {path}")
            if optional:
                raise self.spec.fail("lowering", f"{path}: reading through an optional object is not supported")
            t, req = props[seg]
            expr = f"{expr}.{seg}"
            optional = optional or not req
        return expr, t, optional

    # -- the module
    def module(self) -> dict[str, Any]:
        fns = [self.function(name, m) for name, m in self.spec.maps.items()]
        entry = self.spec.maps[self.spec.pair["entry"]]
        entry_src = self.sname(entry["source"])
        entry_ret = self.map_ret(entry)
        self.uses.add("Any")
        carried_key = self.carried.split(".", 1)[1] if "." in self.carried else ""
        return {
            "spec_file": f"mappings/{self.spec.path.name}",
            "pair": self.spec.pair,
            "package": self.spec.package,
            "source_format": self.spec.source_format,
            "target_format": self.spec.target_format,
            "source_module": self.spec.source_format.module,
            "target_module": self.spec.target_format.module,
            "source_imports": sorted(self.src_names - self.tgt_names) if self.spec.source_format.module != self.spec.target_format.module else [],
            "target_imports": sorted(self.tgt_names),
            "entry_source": entry_src,
            "entry_target": entry_ret,
            "entry": self.spec.pair["entry"],
            "carried_load": (
                {"attr": self.carried.split(".")[0], "key": carried_key, "path": f"$.{self.carried}",
                 "types": _lit({k: tuple(v) if isinstance(v, list) else v for k, v in sorted(self.spec.pair.get("carried_types", {}).items())})}
                if self.carried_in_source else None
            ),
            "functions": fns,
            "context_keys": _CONTEXT_PLACEHOLDER,  # the rules' keys and the transforms': render_all
            "siblings_read": _lit(tuple(sorted(f"$.{self.carried.split('.')[0]}.{car}.{key}" for car, keys in self._siblings_read().items() for key in keys))),
            "idle_values": _lit(tuple(
                (f"$.{self.spec.pair['carried']}.{key}", {"false": False, "true": True, "null": None}[value])
                for key, _, value in (entry.partition("=") for entry in self.spec.pair.get("idle_values", ()))
            )),
            "finish_args": self._finish_args(),
            "keeps_unknown": self._keeps_unknown(),
            "constants": self.constants,
            "uses": sorted(self.uses),
            "needs_parts": any(f.mode == "collect" or any(s["kind"] == "collect" for s in f.body) for f in fns),
            "collectors": sorted({f.collector for f in fns if f.mode == "collect"} | {s["collector"] for f in fns for s in f.body if s["kind"] == "collect"}),
        }

    def _keeps_unknown(self) -> str:
        """Where an X -> Lux converter keeps the source members its Structs do not hold
        (``extra.openai_chat.unknown``; lucent._unknown): "" for another target, "nowhere" for a
        spec without a side-car (each is then reported Unsupported)."""
        if self.spec.target_format.name != "lux":
            return ""
        root, _, key = self.carried.partition(".")
        return f"{root}.{key}.unknown" if root and key and "." not in key else "nowhere"

    def _finish_args(self) -> list[str]:
        """Cx.finish: a Lux target gets its side-car member (and the source members its Structs
        do not hold, kept in ``<carried key>.unknown``); a Lux source names the spaces read."""
        root = self.carried.split(".")[0]
        if self.spec.target_format.name == "lux" and root:
            return [f"sidecar={_lit(root)}", "unknown=unknown", f"unknown_space={_lit(self._keeps_unknown().split('.', 1)[1])}"]
        if self.spec.target_format.name == "lux":
            return ["unknown=unknown"]
        if not self.carried_in_source:
            return []
        spaces = {r["kept"] for m in self.spec.maps.values() for r in self._rules_of(m) if "kept" in r}
        spaces |= {u[len(root) + 1:] for u, d in self._all_unmapped()
                   if u.startswith(root + ".") and "." not in u[len(root) + 1:] and "implied" in d}
        return [f"spaces={_lit(tuple(sorted(spaces)))}"] if spaces else []

    @staticmethod
    def _rules_of(m: dict[str, Any]) -> list[dict[str, Any]]:
        rules = list(m.get("rules", {}).values())
        for v in m.get("source_variants", {}).values():
            rules.extend(v.get("rules", {}).values())
        return rules

    def function(self, name: str, m: dict[str, Any]) -> Fn:
        src = self.spec.source.definition(m["source"])
        src_py = self.sname(src.cls) if src.kind != "enum" else src.py
        ret = "None" if m["target"] in COLLECTORS else self.map_ret(m)
        mode = "collect" if m.get("collect") else ("emit" if m.get("emit") else "return")
        doc = f"[maps.{name}]: {m['source']} -> {m['target']}."
        fn = Fn(name=f"_{name}", kind="object", src_type=src_py, ret=ret, doc=doc, mode=mode)
        if isinstance(m.get("collect"), str):
            fn.collector = m["collect"]
        if "variants" in m:
            fn.kind = "select"
            self._select(fn, m, src)
        elif src.kind == "union":
            fn.kind = "union"
            self._union(fn, name, m, src)
        else:
            self._object(fn, name, m, src)
        return fn

    # -- target variants picked by a source enum
    def _select(self, fn: Fn, m: dict[str, Any], src: Type) -> None:
        tgt = self.spec.target.definition(m["target"])
        sel = m["select"]
        for tag, rule in m["variants"].items():
            if "absent" in rule:
                continue
            v = tgt.variants[tag]
            payload = next(iter(self.spec.target.variant_props(v)))
            fn.branches.append({
                "cond": " or ".join(f"src.{sel} == {_lit(w)}" for w in rule["when"]),
                "when": rule["when"],
                "expr": f"{self.tname(v.cls)}({payload}=_{rule['map']}(src, path, cx))",
            })

    # -- union sources
    def _union(self, fn: Fn, name: str, m: dict[str, Any], src: Type) -> None:
        unmapped = m.get("unmapped", {})
        objects = [(t, r) for t, r in m["source_variants"].items() if src.variants[t].kind == "object"]
        literals = [(t, r) for t, r in m["source_variants"].items() if src.variants[t].kind == "literal"]
        for tag, rule in objects + literals:
            v = src.variants[tag]
            b: dict[str, Any] = {"tag": tag, "body": [], "expr": None, "append": None}
            if v.kind == "object":
                b["cond"] = f"isinstance(src, {self.sname(v.cls)})"
                vprops = self.spec.source.variant_props(v)
            else:
                b["cond"] = f"src == {_lit(tag)}"
                vprops = {}
            vpath = "path"
            mapped = any(k in rule for k in ("from", "rules", "const", "map"))
            if "status" in rule and (not mapped or "via" not in rule):
                # a variant that is dropped, or mapped with a loss: reported at its path either way
                b["body"].append({"kind": "report_if", "cond": "True", "field": vpath, "status": rule["status"], "detail": rule["reason"], "comment": f"{tag}: {rule['status']}"})
            into = self._target_variant(m, rule)
            if not mapped:
                pass
            elif "const" in rule:
                b["expr"] = _lit(rule["const"])
            elif "rules" in rule:
                b["expr"] = self._build_target(m, rule["rules"], b["body"], v.cls, vprops, prefix="", into=into)
                self._record(b["expr"], f"{name}_{tag}", rule["rules"])
            else:
                sfield = rule.get("from")  # none: the variant itself
                sexpr = f"src.{sfield}" if sfield else "src"
                spath = f'f"{{path}}.{sfield}"' if sfield else "path"
                value: str | None
                if "each" in rule:
                    # every item of the source list, mapped (and wrapped in the target variant)
                    if fn.mode != "emit" or not sfield:
                        raise self.spec.fail(f"[maps.{name}]", f"variant {tag}: each needs from and an emit mapping")
                    item = f"_{rule['each']}(item, f\"{{path}}.{sfield}[{{i}}]\", cx)"
                    if into is not None:
                        payload = next(p for p, (_t, r) in self.spec.target.variant_props(into[1]).items() if r)
                        item = f"cx.built(f\"{{path}}.{sfield}[{{i}}]\", {self.tname(into[1].cls)}({payload}={item}))"
                    b["body"].append({"kind": "expr", "code": f"for i, item in enumerate({sexpr}):\n    out.append({item})", "comment": f"{tag}: each {rule['each']}"})
                    value = None
                elif "map" in rule:
                    value = f"_{rule['map']}({sexpr}, {spath}, cx)"
                elif "emit" in rule:
                    b["body"].append({"kind": "expr", "code": f"_{rule['emit']}({sexpr}, {spath}, out, cx)", "comment": f"{tag}: emit {rule['emit']}"})
                    value = None
                else:
                    value = sexpr
                if value is not None and into is not None:
                    payload = next(p for p, (_t, r) in self.spec.target.variant_props(into[1]).items() if r)
                    value = f"cx.built({spath}, {self.tname(into[1].cls)}({payload}={value}))"
                if value is not None:
                    if "via" in rule:
                        code = f"_s.{rule['via']}(out, {value}, path, cx)"
                        if "status" in rule:  # the transform decides when the loss happens
                            code = _call(f"_s.{rule['via']}", ["out", value, "path", "cx", _lit(rule["status"]), _lit(rule["reason"])])
                        b["body"].append({"kind": "expr", "code": code, "comment": f"{tag}: via {rule['via']}"})
                    elif "into" in rule:
                        if rule["into"] not in COLLECTORS[fn.collector]:
                            raise self.spec.fail(f"[maps.{name}]", f"into must be one of {COLLECTORS[fn.collector]}")
                        b["body"].append({"kind": "expr", "code": f"parts.{rule['into']}.append(({value}, path))", "comment": f"{tag} -> parts.{rule['into']}"})
                    elif fn.mode == "emit":
                        b["body"].append({"kind": "expr", "code": f"out.append({value})", "comment": f"{tag}"})
                    else:
                        b["expr"] = value
            for upath, decl in unmapped.items():
                if upath.startswith(tag + "."):
                    self._unmapped(b["body"], "src", upath[len(tag) + 1:], decl, vprops, v.cls)
            if fn.mode == "emit" and b["expr"] is not None:
                b["append"] = b["expr"]
                b["expr"] = None
            fn.branches.append(b)

    # -- object sources
    def _object(self, fn: Fn, name: str, m: dict[str, Any], src: Type) -> None:
        body = fn.body
        sprops = self.spec.source.props(src)
        if m.get("emit") and isinstance(m["emit"], str):
            fn.emit_helper = m["emit"]
        # hoisted collections
        collected: set[str] = set()
        for tpath, rule in m.get("rules", {}).items():
            if "collect" in rule and rule["collect"] not in collected:
                collected.add(rule["collect"])
                sexpr, _t, _o = self.src_expr("src", src, rule["from"])
                tm = self.spec.maps[rule["collect"]]
                body.append({
                    "kind": "collect", "list": sexpr, "path": rule["from"], "fn": f"_{rule['collect']}",
                    "collector": tm["collect"] if isinstance(tm.get("collect"), str) else "MessageParts",
                    "comment": f"{rule['from']}: each item sorted into parts by {rule['collect']} ({tm['source']})",
                })
        if fn.emit_helper and self.spec.target.definition(m["target"]).kind == "union":
            # the emit transform writes the target items itself, from the source and its parts
            for upath, decl in m.get("unmapped", {}).items():
                self._unmapped(body, "src", upath, decl, sprops, m["source"], src=src)
            fn.result = "src"
            return
        if m["target"] in ("object", "json"):
            value = self._build_target(m, m.get("rules", {}), body, m["source"], sprops, prefix="", free=True)
        else:
            value = self._build_target(m, m.get("rules", {}), body, m["source"], sprops, prefix="")
        for upath, decl in m.get("unmapped", {}).items():
            self._unmapped(body, "src", upath, decl, sprops, m["source"], src=src)
        self._record(value, name, m.get("rules", {}))
        fn.result = value

    def _record(self, node: dict[str, Any], name: str, rules: dict[str, Any]) -> None:
        """Provenance: the built value is recorded (Cx.built) with the source path it came from and
        the source member each of its members copies (a rule with one source field)."""
        fields: dict[str, str | tuple[str, ...]] = {}
        for tpath, rule in rules.items():
            if any(k in rule for k in ("absent", "const", "context", "kept")):
                continue
            froms = list(dict.fromkeys(f for p in rule["parts"] for f in _froms(p))) if "parts" in rule else list(dict.fromkeys(_froms(rule)))
            if len(froms) == 1 and froms[0] != ".":
                fields[tpath] = froms[0]
            elif len(froms) > 1 and "." not in froms:
                fields[tpath] = tuple(froms)  # the first the source has (Cx.built, given the source)
        node["record"] = "None"
        if fields:
            node["record"] = "_FROM_" + "".join(c if c.isalnum() else "_" for c in name).upper()
            several = any(isinstance(v, tuple) for v in fields.values())
            node["record_source"] = several
            self.constants.append({"name": node["record"], "ann": "dict[str, str | tuple[str, ...]]" if several else "dict[str, str]",
                                   "value": "{\n" + "".join(f"    {_lit(k)}: {_lit(v)},\n" for k, v in fields.items()) + "}"})

    def _target_variant(self, m: dict[str, Any], rule: dict[str, Any]) -> tuple[Type, Variant] | None:
        """The struct type of the target union variant a source variant rule names (``variant``)."""
        if "variant" not in rule:
            return None
        v = self.spec.target.definition(m["target"]).variants[rule["variant"]]
        return Type("struct", v.cls, v.node, v.cls), v

    def _build_target(self, m: dict[str, Any], rules: dict[str, Any], body: list[dict[str, Any]], owner: str,
                      sprops: dict[str, tuple[Type, bool]], prefix: str, free: bool = False,
                      into: tuple[Type, Variant] | None = None) -> dict[str, Any]:
        """Statements for each rule, and the expression that builds the target value."""
        target = m["target"]
        tgt = None if free or target in ("object", "json") else self.spec.target.definition(target)
        if into is not None:
            tgt = into[0]
        values: dict[str, Any] = {}
        for tpath, rule in rules.items():
            if "absent" in rule:
                continue
            ttype, treq = self._target_field(tgt, tpath)
            # a field the target's conditional rules may require is not left out for its bounds
            self.held = "." not in tpath and tpath in self._conditionally_required(tgt)
            values[tpath] = self._rule(m, tpath, rule, body, sprops, owner, ttype, treq)
            self.held = False
        for tpath, reason in m.get("unreachable", {}).items() if into is None else ():
            body.append(self._unreachable_check(tpath, reason, values[tpath], *self._target_field(tgt, tpath)))
        return self._assemble(tgt, values, "")

    @staticmethod
    def _conditionally_required(tgt: Type | None) -> set[str]:
        """The properties a conditional rule of the target definition (allOf / anyOf / oneOf /
        if / then / else / not / dependentRequired) may require: optional only in part."""
        found: set[str] = set()

        def walk(node: Any, top: bool) -> None:
            if isinstance(node, list):
                for item in node:
                    walk(item, top)
            elif isinstance(node, dict):
                if not top and isinstance(node.get("required"), list):
                    found.update(r for r in node["required"] if isinstance(r, str))
                for key in ("allOf", "anyOf", "oneOf", "if", "then", "else", "not"):
                    if key in node:
                        walk(node[key], False)
                for names in node.get("dependentRequired", {}).values() if top else ():
                    found.update(names)

        if tgt is not None:
            walk(tgt.node, True)
        return found

    def _unreachable_check(self, tpath: str, reason: str, value: str, ttype: Type | None, treq: bool) -> dict[str, Any]:
        """A target field declared unreachable: when the value written breaks its schema (the
        bounds read from the target schema), Invalid at target:$.<field> with the declared reason."""
        checks = self._bounds(ttype, tpath)
        if not (checks or treq) or not value.isidentifier():
            raise self.spec.fail(f"[maps.{self._map_name_of(tpath)}.unreachable]", f"{tpath}: its schema has no bounds to check and it is not required, or its value is not one name")
        if not checks:  # a required field without bounds: unreachable when the source gives none
            # isinstance, not `is UNSET`: the value has the field's type (a via returns it with present())
            code = f"if isinstance({value}, UnsetType):\n" + "\n".join("    " + line for line in _call("cx.report", [_lit(f"target:$.{tpath}"), '"Invalid"', _lit(reason)], 72).splitlines())
            return {"kind": "expr", "code": code, "comment": f"{tpath}: unreachable (required): no valid target document without it"}
        conds = " or ".join(f"({c.replace('{v}', value)})" for _k, c, _d in checks)
        if not treq:
            conds = f"{value} is not UNSET and ({conds})"
        code = f"if {conds}:\n" + "\n".join("    " + line for line in _call("cx.report", [_lit(f"target:$.{tpath}"), '"Invalid"', _lit(reason)], 72).splitlines())
        return {"kind": "expr", "code": code, "comment": f"{tpath}: unreachable ({self._bounds_text(checks)}): no valid target document without them"}

    def _map_name_of(self, tpath: str) -> str:
        return next((n for n, mm in self.spec.maps.items() if tpath in mm.get("unreachable", {})), "")

    def _target_field(self, tgt: Type | None, tpath: str) -> tuple[Type | None, bool]:
        if tgt is None:
            return None, False
        t: Type = tgt
        req = True
        for seg in tpath.split("."):
            if t.kind != "struct":
                return None, False
            props = self.spec.target.props(t)
            t, r = props[seg]
            req = req and r
        return t, req

    def _assemble(self, t: Type | None, values: dict[str, Any], prefix: str, optional: bool = False) -> dict[str, Any]:
        """The build tree of the target value: struct / dict nodes whose leaves are expressions.

        ``optional``: the free object being built is inside an optional one, so it is left out
        (UNSET) when it ends up empty, and so is the optional object when nothing else is in it.
        """
        groups: dict[str, dict[str, Any]] = {}
        for tpath, expr in values.items():
            head, _, rest = tpath.partition(".")
            groups.setdefault(head, {})[rest] = expr
        args: list[tuple[str, Any]] = []
        props = self.spec.target.props(t) if t is not None and t.kind == "struct" else {}
        for head, sub in groups.items():
            if "" in sub:
                args.append((head, sub[""]))
                continue
            ptype, req = props.get(head, (None, False))
            if ptype is not None and ptype.kind == "struct":
                args.append((head, self._assemble(ptype, sub, prefix + head + ".")))
            else:
                dropped = (t is not None and not req) or (t is None and optional)
                inner = self._assemble(None, sub, prefix + head + ".", optional=dropped)
                # an optional object of the target that ends up empty is left out (UNSET)
                inner["helper"] = "_s.compact" if dropped else "_s.obj"
                args.append((head, inner))
        if t is not None and t.kind == "struct":
            # A class whose schema has conditional rules checks them in __post_init__; a lossy
            # result may break them (reported), so it is built unchecked and checked whole later.
            rules = ("allOf", "anyOf", "oneOf", "if", "not")
            conditional = any(k in t.node for k in rules) or any(
                k in p for p in t.node.get("properties", {}).values() if isinstance(p, dict) for k in rules if k != "oneOf"
            )
            return {"kind": "struct", "cls": self.tname(t.cls), "args": args, "unchecked": conditional}
        return {"kind": "dict", "helper": "_s.obj", "args": args}

    def _rule(self, m: dict[str, Any], tpath: str, rule: dict[str, Any], body: list[dict[str, Any]],
              sprops: dict[str, tuple[Type, bool]], owner: str, ttype: Type | None, treq: bool) -> Any:
        local = _ident(tpath)
        comment = self._describe(tpath, rule)
        src_t = Type("struct", owner, cls=owner)

        def read(path: str) -> tuple[str, Type, bool]:
            if self.carried_in_source and path.startswith(self.carried + "."):
                # a value the other direction kept in the carried side-car of the Lux source
                key = self._carried_key(path)
                expect = self._expect(ttype) if "via" not in rule else "any"
                return f"cx.from_carried({_lit(key)}, {_lit(expect)})", Type("any", "Any"), True
            sibling = self._sibling(path)
            if sibling is not None:
                # a member of another format's side-car that means the same in the target
                expect = self._expect(ttype) if "via" not in rule else "any"
                return f"cx.from_sibling({_lit(sibling[0])}, {_lit(sibling[1])}, {_lit(expect)})", Type("any", "Any"), True
            if path == ".":  # the source object itself
                return "src", self.spec.source.definition(owner) if self.spec.source.has(owner) else src_t, False
            return self.src_expr("src", src_t, path, props_of=sprops) if "." not in path else self._deep(sprops, path)

        def spath(path: str) -> str:
            return f'f"{{path}}.{path}"'

        if "const" in rule:
            if "from" in rule:
                self._const_source(rule, body, read, local, comment)
            return _lit(rule["const"])
        if "context" in rule:
            return self._context(tpath, rule, body, read, ttype, treq, comment)
        if "parts" in rule:
            built = self._parts(tpath, rule, body, read, ttype, comment, m)
            if treq or ttype is None:
                return built
            self.uses.add("UNSET")
            return f"{built} or UNSET"  # an optional target list left empty is left out
        if "collect" in rule:
            withs = "".join(f", {_ident(w)}" for w in rule.get("with", []))
            carried = f", carried={_lit(rule['carried'])}" if "carried" in rule else ""
            ann = self.tpy(ttype) if ttype is not None else "Any"
            body.append({"kind": "assign", "name": local, "ann": f"{ann} | UnsetType" if ttype is not None and not treq else ann,
                         "expr": _call(f"_s.{rule['via']}", ["parts", *[_ident(w) for w in rule.get("with", [])], "path", "cx", *([f"carried={_lit(rule['carried'])}"] if "carried" in rule else [])]), "comment": comment})
            self.uses.add("UnsetType")
            return local
        if "kept" in rule:
            # a member the other direction kept for the Lux object at this path (Cx.keep)
            key = rule.get("as", tpath.rsplit(".", 1)[-1])
            kept = _call("cx.kept", [_lit(rule["kept"]), "path", _lit(key), _lit(self._expect(ttype))], 60)
            if "from" not in rule:
                return kept
            # else what the source gives (via the transform)
            body.append({"kind": "assign", "name": local, "ann": "", "expr": kept, "comment": comment})
            inner: list[dict[str, Any]] = []
            fallback = self._rule(m, tpath, {k: v for k, v in rule.items() if k not in ("kept", "as")}, inner, sprops, owner, ttype, treq)
            self.uses.add("UNSET")
            code = "\n".join(f"    {line}" for st in inner for line in (f"{st['name']} = {st['expr']}" if st["kind"] == "assign" else st["code"]).splitlines())
            if fallback != local:
                code = f"    {local} = {fallback}"
            body.append({"kind": "expr", "code": f"if {local} is UNSET:\n{code}", "comment": f"{tpath}: else from {rule['from']}"})
            return local
        froms = _froms(rule)
        reads = [read(f) for f in froms]
        if "via" in rule:
            args = ", ".join(e for e, _t, _o in reads)
            # the path of the first source field read, or of the source object when none is
            paths = spath(froms[0]) if froms else "path"
            withs = [_ident(w) for w in rule.get("with", [])]  # target fields computed before
            call_args = [e for e, _t, _o in reads] + withs + [paths, "cx"]
            if "status" in rule:
                call_args += [_lit(rule["status"]), _lit(rule["reason"])]
            if "carried" in rule:
                call_args.append(f"carried={_lit(rule['carried'])}")
            call = _call(f"_s.{rule['via']}", call_args)
            if rule["via"] in self.skips and reads and not withs and all(o and "(" not in e for e, _t, o in reads):
                # nothing to do for absent members: no call, and no path built, unless one is present
                self.uses.add("UNSET")
                present = " or ".join(f"{e} is not UNSET" for e, _t, _o in reads)
                if "\n" in call or len(call) + len(present) > 100:
                    call = "(\n" + "\n".join("    " + line for line in call.splitlines()) + f"\n    if {present}\n    else UNSET\n)"
                else:
                    call = f"{call} if {present} else UNSET"
            body.append({"kind": "assign", "name": local, "ann": "", "expr": call, "comment": comment})
            return local
        expr, stype, optional = reads[0]
        fpath = spath(froms[0])
        if "first" in rule:
            # the first item of a required source list; the others are reported (status + reason)
            ann = self.tpy(ttype) if ttype is not None else "Any"
            self.uses.update({"UNSET", "UnsetType"})
            body.append({"kind": "first", "name": local, "ann": f"{ann} | UnsetType", "list": expr, "path": froms[0],
                         "fn": f"_{rule['first']}", "status": rule.get("status"), "reason": rule.get("reason"),
                         "required": treq, "target": f"$.{tpath}", "empty": rule.get("empty"), "comment": comment})
            return f"_s.present({local})" if treq else local
        if "each" in rule:
            if optional:
                self.uses.add("UNSET")
            body.append({"kind": "each", "name": local, "list": expr, "optional": optional, "path": froms[0],
                         "fn": f"_{rule['each']}", "comment": comment})
            if "merge" in rule:
                key = self._carried_key(rule["merge"])
                body.append({"kind": "assign", "name": local, "ann": "", "expr": f"cx.merge_carried_list({local}, {_lit(key)}, {_lit('$.' + rule['merge'])})", "comment": f"{tpath}: merge {rule['merge']}"})
            return local
        if "map" in rule:
            ann = self.tpy(ttype) if ttype is not None else "Any"
            self.uses.update({"UNSET", "UnsetType"} if optional else set())
            otherwise = None
            if "otherwise" in rule:
                key = self._carried_key(rule["otherwise"])
                otherwise = f"cx.from_carried({_lit(key)}, {_lit(self._expect(ttype))})"
            body.append({"kind": "map", "name": local, "ann": ann + (" | UnsetType" if optional and ann != "Any" else ""), "value": expr,
                         "optional": optional, "call": f"_{rule['map']}({expr}, {fpath}, cx)", "otherwise": otherwise, "comment": comment})
            if "otherwise" in rule:
                body.append(self._overridden(expr, local, rule["otherwise"], froms[0]))
            return local
        # plain copy
        if "check" in rule:
            body.append({"kind": "check", "value": expr, "optional": optional,
                         "code": _call(f"_s.{rule['check']}", [expr, fpath, "cx", _lit(rule["status"]), _lit(rule["reason"])]), "comment": comment})
        if "values" in rule:
            return self._values(m, tpath, rule, body, expr, fpath, ttype, comment)
        if "status" in rule and "check" not in rule:
            # carried, but with a loss a reader of the target sees: reported when present
            cond = f"{expr} is not UNSET" if optional else "True"
            if optional:
                self.uses.add("UNSET")
            body.append({"kind": "report_if", "cond": cond, "field": fpath, "status": rule["status"], "detail": rule["reason"], "comment": comment})
        # an optional target field whose schema bounds the value (read from the target schema
        # here): a value outside the bounds is left out and reported at its source path
        checks = [] if treq or self.held else self._bounds(ttype, tpath)
        if checks:
            assert ttype is not None
            self.uses.update({"UNSET", "UnsetType"})
            value = f"_s.null_as_absent({expr})" if rule.get("null_is_absent") else expr
            body.append({"kind": "assign", "name": local, "ann": f"{self.tpy(ttype)} | UnsetType", "expr": value, "comment": comment})
            guarded = replace(stype, nullable=True) if stype is not None and ttype.nullable else stype  # the local may hold null
            body.append({"kind": "expr", "code": self._bounds_code(checks, local, fpath, guarded),
                         "comment": f"{self._bounds_text(checks)}; a value outside is left out (Unsupported)"})
        if "otherwise" in rule:
            key = self._carried_key(rule["otherwise"])
            self.uses.add("UNSET")
            carried = f"cx.from_carried({_lit(key)}, {_lit(self._expect(ttype))})"
            if checks:
                body.append({"kind": "expr", "code": f"if {expr} is UNSET:\n    {local} = {carried}", "comment": f"{tpath}: otherwise {rule['otherwise']}"})
            else:
                body.append({"kind": "assign", "name": local, "ann": "", "comment": comment,
                             "expr": f"{expr} if {expr} is not UNSET else {carried}"})
            body.append(self._overridden(expr, local, rule["otherwise"], froms[0]))
            return local
        if checks:
            return local
        if rule.get("null_is_absent"):
            return f"_s.null_as_absent({expr})"
        if optional and treq:
            return f"_s.need({expr}, {fpath}, cx)"
        return expr

    def _const_source(self, rule: dict[str, Any], body: list[dict[str, Any]], read: Any, local: str, comment: str) -> None:
        """const with from: the constant is written; a source value that differs is reported."""
        source = _froms(rule)[0]
        if self.carried_in_source and source.startswith(self.carried + "."):
            expr = f"cx.from_carried({_lit(self._carried_key(source))}, \"any\")"  # any value, reported as it is
        else:
            expr = read(source)[0]
        given = f"{local}_given"
        self.uses.add("UNSET")
        detail = f"{_lit(rule['reason'] + '; the value (')} + _s.shown({given}) + {_lit(') is not written, ' + json.dumps(rule['const']) + ' is')}"
        body.append({"kind": "assign", "name": given, "ann": "", "expr": expr, "comment": comment})
        body.append({"kind": "expr", "comment": f"{source}: {rule['status']} when it is not {json.dumps(rule['const'])}",
                     "code": f"if {given} is not UNSET and {given} != {_lit(rule['const'])}:\n"
                             + "\n".join("    " + line for line in _call("cx.report", [f'f"{{path}}.{source}"', _lit(rule["status"]), detail], 72).splitlines())})

    def _overridden(self, expr: str, local: str, carried: str, source: str) -> dict[str, Any]:
        """A carried value that the source's own value wins over is reported (Unsupported at the
        carried path: it is not written), unless it is the value written."""
        key = self._carried_key(carried)
        return {"kind": "report_if", "cond": f"{expr} is not UNSET and {_lit(key)} in cx.carried and cx.carried[{_lit(key)}] != {local}",
                "field": _lit(f"$.{carried}"), "status": "Unsupported",
                "detail": f"not written: {self.spec.source_format.label} $.{source} is set and wins over it",
                "comment": f"{carried}: Unsupported when {source} is set too and differs"}

    def _bounds(self, ttype: Type | None, tpath: str) -> list[tuple[str, str, str]]:
        """What the target field's schema allows beyond its type, read from the target schema:
        (the kind of value a keyword constrains, a condition on ``{v}`` that breaks it, what the
        target allows) per keyword -- numeric bounds, integer formats, string lengths and
        patterns, item counts, and enum / const where the type does not say them already."""
        if ttype is None:
            return []
        node = ttype.node
        either = node.get("anyOf", [])
        values = [b for b in either if not (isinstance(b, dict) and b.get("type") == "null")]
        nullable = len(either) == 2 and len(values) == 1 and isinstance(values[0], dict)
        if nullable:
            node = values[0]  # a nullable value written as anyOf [value, null] (OpenAI's temperature)
        found = self._value_bounds(ttype, node, f"{self.spec.target_format.label} {tpath}")
        return [(kind, f"{{v}} is not None and ({cond})", detail) for kind, cond, detail in found] if nullable else found

    def _value_bounds(self, ttype: Type, node: dict[str, Any], name: str) -> list[tuple[str, str, str]]:
        found: list[tuple[str, str, str]] = []
        ops = {"minimum": "<", "exclusiveMinimum": "<=", "maximum": ">", "exclusiveMaximum": ">="}
        for key, op in ops.items():
            bound = node.get(key)
            if isinstance(bound, (int, float)) and not isinstance(bound, bool):
                found.append(("number", f"{{v}} {op} {bound!r}", f"{name} has {key} {bound!r}"))
        fmt = node.get("format")
        if ttype.py.startswith("int") and fmt in INTEGER_FORMATS:
            lo, hi = INTEGER_FORMATS[fmt]
            found.append(("number", f"not {lo} <= {{v}} <= {hi}", f"{name} has format {fmt} ({lo} to {hi})"))
        multiple = node.get("multipleOf")
        if isinstance(multiple, int) and not isinstance(multiple, bool):
            found.append(("number", f"{{v}} % {multiple} != 0", f"{name} has multipleOf {multiple}"))
        for key, op, kind in (("minLength", "<", "string"), ("maxLength", ">", "string"), ("minItems", "<", "array"), ("maxItems", ">", "array")):
            bound = node.get(key)
            if isinstance(bound, int) and not isinstance(bound, bool):
                found.append((kind, f"len({{v}}) {op} {bound}", f"{name} has {key} {bound}"))
        pattern = node.get("pattern")
        if isinstance(pattern, str):
            python = translate(pattern)
            const = self.patterns.get(python)
            if const is None:
                const = self.patterns[python] = f"_TARGET_PATTERN_{len(self.patterns) + 1}"
                self.constants.append({"name": const, "ann": "re.Pattern[str]", "value": f"re.compile({_lit(python)})  # ECMA-262 /{pattern}/"})
                self.uses.add("re")
            found.append(("string", f"{const}.search({{v}}) is None", f"{name} has pattern /{pattern}/"))
        if ttype.kind != "enum" and isinstance(node.get("enum"), list):
            found.append(("any", f"{{v}} not in {_lit(tuple(node['enum']))}", f"{name} is one of {json.dumps(node['enum'])}"))
        if ttype.kind != "enum" and "const" in node:
            found.append(("any", f"{{v}} != {_lit(node['const'])}", f"{name} is {json.dumps(node['const'])}"))
        return found

    def _bounds_text(self, checks: list[tuple[str, str, str]]) -> str:
        """`SparkTide top_p: exclusiveMinimum 0, maximum 1`, for comments and the docs."""
        head = f"{self.spec.target_format.label} "
        field = checks[0][2][len(head):].split(" ")[0]
        rest = [detail[len(head) + len(field) + 1:] for _k, _c, detail in checks]
        return f"{head}{field}: " + ", ".join(r.removeprefix("has ").removeprefix("is ") for r in rest)

    @staticmethod
    def _bounds_code(checks: list[tuple[str, str, str]], local: str, fpath: str, stype: Type | None, optional: bool = True) -> str:
        """`if` the value is set (when `optional`) and not null, one branch per keyword: a value the
        target does not allow is reported Unsupported at `fpath` (_s.left_out) and left out."""
        guard = ([f"{local} is not UNSET"] if optional else []) + ([f"{local} is not None"] if stype is not None and stype.nullable else [])
        typed = {"number": f"isinstance({local}, (int, float)) and not isinstance({local}, bool) and ",
                 "string": f"isinstance({local}, str) and ", "array": f"isinstance({local}, list) and ", "any": ""}
        lines = [f"if {' and '.join(guard)}:"] if guard else []
        indent = "    " if guard else ""
        for n, (kind, cond, detail) in enumerate(checks):
            prefix = typed[kind] if stype is None or stype.kind == "any" else ""
            lines.append(f"{indent}{'if' if n == 0 else 'elif'} {prefix}{cond.replace('{v}', local)}:")
            call = _call("_s.left_out", [local, fpath, "cx", _lit(detail)], 64)
            lines.extend(f"{indent}    " + line for line in f"{local} = {call}".splitlines())
        return "\n".join(lines)

    def _deep(self, sprops: dict[str, tuple[Type, bool]], path: str) -> tuple[str, Type, bool]:
        head, _, rest = path.partition(".")
        t, req = sprops[head]
        if t.kind != "struct":
            raise self.spec.fail("lowering", f"{path}: {head} is not an object")
        expr, tt, opt = self.src_expr(f"src.{head}", t, rest)
        return expr, tt, opt or not req

    def _sibling(self, path: str) -> tuple[str, str] | None:
        """(side-car, key) when `path` names a member of another format's side-car of the Lux
        source (``extra.openai_chat.store`` in a Lux -> Responses spec), else None."""
        if not self.carried_in_source or path.startswith(self.carried + "."):
            return None
        parts = path.split(".")
        if len(parts) != 3 or parts[0] != self.carried.split(".")[0] or parts[1] == "media":
            return None
        return parts[1], parts[2]

    def _siblings_read(self) -> dict[str, set[str]]:
        """The members of other formats' side-cars the rules read ({side-car: keys})."""
        found: dict[str, set[str]] = {}
        for m in self.spec.maps.values():
            for rule in self._rules_of(m):
                for v in _froms(rule):
                    sibling = self._sibling(v)
                    if sibling is not None:
                        found.setdefault(sibling[0], set()).add(sibling[1])
        return found

    def _carried_key(self, path: str) -> str:
        if not self.carried or not path.startswith(self.carried + "."):
            raise self.spec.fail("lowering", f"{path} is not under carried = {self.carried!r}")
        return path[len(self.carried) + 1:]

    @staticmethod
    def _expect(t: Type | None) -> Any:
        if t is None:
            return "any"
        if t.kind == "enum":
            return t.values
        if t.kind == "dict":
            return "object"
        if t.kind == "list":
            return "array"
        return {"str": "string", "int": "integer", "float": "number", "bool": "boolean"}.get(t.py, "any")

    def _context(self, tpath: str, rule: dict[str, Any], body: list[dict[str, Any]], read: Any,
                 ttype: Type | None, treq: bool, comment: str) -> str:
        local = _ident(tpath)
        ann = self.tpy(ttype) if ttype is not None else "Any"
        self.uses.update({"UNSET", "UnsetType"})
        self.context_keys.add(rule["context"])
        expect = self._expect(ttype)
        treq_check = treq
        fallback = None
        fallback_optional = True
        src = rule.get("from")
        if src and self.carried and src.startswith(self.carried + "."):
            fallback = f"cx.from_carried({_lit(self._carried_key(src))}, {_lit(expect)})"
        elif src:
            # a source field the schema requires is still checked: a Lux document built by a first
            # hop (lucent.convert through Lux) may lack it, and the target must not go without
            expr, _t, fallback_optional = read(src)
            fallback = expr
        only = rule.get("only_when")
        cond = None
        if only:
            (fld, val), = only.items()
            cond = {"field": _ident(fld), "value": _lit(val), "text": f"{fld} is {val}"}
        # a source value the target's schema does not allow is left out (reported at its path), as
        # a plain copy's is; the context, when it has the value, wins over it anyway
        checks = self._bounds(ttype, tpath) if fallback else []
        source_path = f'f"{{path}}.{src}"' if src else ""
        body.append({
            "kind": "context", "name": local, "ann": f"{ann} | UnsetType", "key": rule["context"],
            "expect": _lit(expect), "fallback": fallback, "required": treq_check, "only_when": cond,
            "target": f"$.{tpath}", "comment": comment, "source_path": source_path,
            # the fallback has the target's type (from_carried checks a carried value's); a source
            # field typed as required may still be UNSET (see above): isinstance guards each check
            "bounds": self._bounds_code(checks, local, source_path, Type("scalar" if fallback_optional else "any", ann), fallback_optional) if checks else "",
            "bounds_text": self._bounds_text(checks) if checks else "",
        })
        if treq:
            return f"_s.present({local})"
        return local

    def _parts(self, tpath: str, rule: dict[str, Any], body: list[dict[str, Any]], read: Any,
               ttype: Type | None, comment: str, m: dict[str, Any]) -> str:
        local = _ident(tpath)
        item_t = ttype.item if ttype is not None and ttype.kind == "list" else None
        ann = self.tpy(ttype) if ttype is not None else "list[Any]"
        steps = []
        for part in rule["parts"]:
            expr, stype, optional = read(part["from"])
            nullable = stype.nullable
            wrap = "{}"
            if "variant" in part:
                if item_t is None or item_t.kind != "union":
                    raise self.spec.fail("lowering", f"{tpath}: variant needs a list of a union")
                v = item_t.variants[part["variant"]]
                vprops = self.spec.target.variant_props(v)
                payload = part.get("field") or next(p for p, (_t, r) in vprops.items() if r)
                wrap = f"{self.tname(v.cls)}({payload}={{}})"
            conds = ([f"{expr} is not UNSET"] if optional else []) + ([f"{expr} is not None"] if nullable else [])
            step: dict[str, Any] = {"value": expr, "optional": optional, "nullable": nullable, "path": part["from"],
                                    "status": part.get("status"), "reason": part.get("reason"), "guard": " and ".join(conds)}
            if "each" in part:
                step["kind"] = "each"
                step["var"] = _ident(part["each"])
                step["item"] = wrap.format(f"_{part['each']}({step['var']}, f\"{{path}}.{part['from']}[{{i}}]\", cx)")
            elif "emit" in part:
                step["kind"] = "emit"
                step["var"] = _ident(part["emit"])
                step["call"] = f"_{part['emit']}({step['var']}, f\"{{path}}.{part['from']}[{{i}}]\", {local}, cx)"
            elif "map" in part:
                step["kind"] = "one"
                sub = "path" if part["from"] == "." else f"f\"{{path}}.{part['from']}\""
                step["item"] = wrap.format(f"_{part['map']}({expr}, {sub}, cx)")
            elif "via" in part:
                # the transform returns the items (zero or more) the source value gives
                step["kind"] = "extend"
                step["item"] = f"_s.{part['via']}({expr}, f\"{{path}}.{part['from']}\", cx)"
            else:
                step["kind"] = "one"
                step["item"] = wrap.format(expr)
                if "variant" in part:  # provenance: the block holds the source value itself
                    step["item"] = f"cx.built(f\"{{path}}.{part['from']}\", {step['item']}, {{{_lit(payload)}: \"\"}})"
            steps.append(step)
        if optional or any(s["optional"] for s in steps):
            self.uses.add("UNSET")
        then = rule.get("then", [])
        body.append({"kind": "parts", "name": local, "ann": ann, "steps": steps, "then": [then] if isinstance(then, str) else then, "comment": comment})
        return local

    def _values(self, m: dict[str, Any], tpath: str, rule: dict[str, Any], body: list[dict[str, Any]], expr: str,
                fpath: str, ttype: Type | None, comment: str) -> str:
        if all(k == v for k, v in rule["values"].items()) and not rule.get("lossy_values"):
            return expr
        const = "_" + "".join(c if c.isalnum() else "_" for c in (self._map_name(m) + "_" + tpath)).upper()
        ann = self.tpy(ttype) if ttype is not None else "str"
        self.constants.append({"name": const, "ann": f"dict[str, {ann}]", "value": "{\n" + "".join(f"    {_lit(k)}: {_lit(v)},\n" for k, v in rule["values"].items()) + "}"})
        local = _ident(tpath)
        body.append({"kind": "assign", "name": local, "ann": "", "expr": f"{const}[{expr}]", "comment": comment})
        for value, status in rule.get("lossy_values", {}).items():
            body.append({"kind": "report_if", "cond": f"{expr} == {_lit(value)}", "field": fpath, "status": status,
                         "detail": f"{rule['reason']}: {value} -> {rule['values'][value]}", "comment": ""})
        return local

    def _map_name(self, m: dict[str, Any]) -> str:
        for n, mm in self.spec.maps.items():
            if mm is m:
                return n
        return "map"

    def _unmapped(self, body: list[dict[str, Any]], base: str, upath: str, decl: dict[str, Any],
                  sprops: dict[str, tuple[Type, bool]], owner: str, src: Type | None = None) -> None:
        if "implied" in decl:
            body.append({"kind": "comment", "text": f"{upath}: implied ({decl['implied']})"})
            return
        if "keep" in decl:
            self._keep(body, base, upath, decl, sprops)
            return
        status = decl.get("status", "Invalid")
        detail = decl.get("reason") or decl.get("never")
        field_path = f'f"{{path}}.{upath}"'
        if self.carried_in_source and upath == self.carried:
            read = self._carried_keys_read()
            body.append({"kind": "expr", "code": _call("cx.report_unread", ["cx.carried", field_path, _lit(tuple(sorted(read))), _lit(status), _lit(detail)]),
                         "comment": f"{upath}: keys no rule reads ({status})"})
            return
        head, _, rest = upath.partition(".")
        t, req = sprops[head]
        if rest:
            expr, t, opt = self._deep(sprops, upath)
        else:
            expr, opt = f"{base}.{head}", not req
        if t.kind in ("dict", "any") and self.carried_in_source and self.carried.startswith(upath + "."):
            keep = self.carried[len(upath) + 1:].split(".")[0]
            # the side-car keys other specs' values travel in, read here by a transform
            also = sorted(u[len(upath) + 1:] for u, d in self._all_unmapped() if u.startswith(upath + ".") and "." not in u[len(upath) + 1:] and "implied" in d)
            keys = (keep, *also)
            args = [expr, field_path, _lit(keys), _lit(status), _lit(detail)]
            foreign = {car: members for car, members in self.spellings.items() if car not in keys}
            for car, read in sorted(self._siblings_read().items()):  # read by a rule: not reported
                foreign[car] = tuple(sorted({*foreign.get(car, ()), *read}))
            if foreign:  # other formats' side-cars: each member, but their spellings lose nothing
                args.append(f"spelling={_lit(foreign)}")
            body.append({"kind": "expr", "code": _call("cx.report_unread", args),
                         "comment": f"{upath}: keys other than {', '.join(keys)} ({status})"})
            return
        # a field inside an optional object is only read when that object is present
        outer = f"{base}.{head} is not UNSET and " if rest and not req else ""
        if outer:
            self.uses.add("UNSET")
        if "when" in decl:
            cond = f"{expr} is {_lit(decl['when'])}" if isinstance(decl["when"], bool) else f"{expr} == {_lit(decl['when'])}"
        elif opt:
            self.uses.add("UNSET")
            cond = f"{expr} is not UNSET"
        else:
            cond = "True"
        cond = outer + cond if cond != "True" else (outer[:-5] if outer else cond)
        if "unless" in decl:  # reported unless the transform says the rest of the source implies it
            cond = f"not _s.{decl['unless']}({base}, path, cx)" if cond == "True" else f"{cond} and not _s.{decl['unless']}({base}, path, cx)"
        label = "never" if "never" in decl else status
        # degraded_when: the transform says the value is implied by the rest of the source
        status_code = f"\"Degraded\" if _s.{decl['degraded_when']}({expr}, {base}) else {_lit(status)}" if "degraded_when" in decl else ""
        if status_code:
            label += f", Degraded when {decl['degraded_when']}"
        body.append({"kind": "report_if", "cond": cond, "field": field_path, "status": status, "detail": detail,
                     "status_code": status_code, "comment": f"{upath}: {label}"})

    def _keep(self, body: list[dict[str, Any]], base: str, upath: str, decl: dict[str, Any],
              sprops: dict[str, tuple[Type, bool]]) -> None:
        """keep: the value goes to a side-car of the Lux target, keyed by the Lux path of the object
        built from this source object (Cx.keep; placed when the conversion finishes)."""
        head, _, rest = upath.partition(".")
        t, req = sprops[head]
        expr, opt = (self._deep(sprops, upath)[0], True) if rest else (f"{base}.{head}", not req)
        conds = []
        if opt:
            self.uses.add("UNSET")
            conds.append(f"{expr} is not UNSET")
        if "when" in decl:
            conds.append(f"{expr} is {_lit(decl['when'])}" if isinstance(decl["when"], bool) else f"{expr} == {_lit(decl['when'])}")
        if "unless" in decl:
            conds.append(f"not _s.{decl['unless']}({base}, path, cx)")
        key = decl.get("as", upath.rsplit(".", 1)[-1])
        call = _call("cx.keep", [_lit(decl["keep"]), "path", _lit(key), expr, f'f"{{path}}.{upath}"'], 72)
        code = f"if {' and '.join(conds)}:\n" + "\n".join("    " + line for line in call.splitlines()) if conds else call
        label = f"kept in {decl['keep']}[<Lux path>].{key}" + (f" unless {decl['unless']}" if "unless" in decl else "")
        body.append({"kind": "expr", "code": code, "comment": f"{upath}: {label}"})

    def _all_unmapped(self) -> list[tuple[str, dict[str, Any]]]:
        return [(u, d) for m in self.spec.maps.values() for u, d in m.get("unmapped", {}).items()]

    def _carried_keys_read(self) -> set[str]:
        keys = {"unknown"}  # the members X's Structs do not hold: Cx.finish writes them back (lucent._unknown)
        prefix = self.carried + "."
        own = self.carried.split(".")[-1] + "."
        for m in self.spec.maps.values():
            rules = list(m.get("rules", {}).values())
            for v in m.get("source_variants", {}).values():
                rules.extend(v.get("rules", {}).values())
            for rule in rules:
                if rule.get("kept", "").startswith(own):  # kept = "llm_sdk.members" reads members
                    keys.add(rule["kept"][len(own):].split(".")[0])
            for rule in m.get("rules", {}).values():
                for v in _froms(rule) + [rule.get("merge", ""), rule.get("otherwise", "")]:
                    if v.startswith(prefix):
                        keys.add(v[len(prefix):].split(".")[0])
                if "carried" in rule:
                    keys.add(rule["carried"])
            for v in m.get("source_variants", {}).values():
                for r in v.get("rules", {}).values():
                    if "carried" in r:
                        keys.add(r["carried"])
            for upath, decl in m.get("unmapped", {}).items():
                if upath.startswith(prefix) and "implied" in decl:
                    keys.add(upath[len(prefix):])
        return keys

    @staticmethod
    def _describe(tpath: str, rule: dict[str, Any]) -> str:
        return f"{tpath} <- " + _rule_text(rule)


def _call(fn: str, args: list[str], width: int = 76) -> str:
    """`fn(a, b)` on one line when short, else one argument per line."""
    one = f"{fn}({', '.join(args)})"
    if len(one) <= width:
        return one
    return f"{fn}(\n" + "".join(f"    {a},\n" for a in args) + ")"


def _rule_text(rule: dict[str, Any]) -> str:
    """A short description of a rule, used in comments and the docs table."""
    if "absent" in rule:
        return "not written"
    if "const" in rule:
        return f"const {json.dumps(rule['const'])}"
    if "parts" in rule:
        text = ", then ".join(_rule_text(p) for p in rule["parts"])
        then = rule.get("then", [])
        return text + (f"; then {', '.join([then] if isinstance(then, str) else then)}" if then else "")
    bits = []
    if "context" in rule:
        bits.append(f"context {rule['context']}")
    if "kept" in rule:
        bits.append(f"kept {rule['kept']}")
    froms = _froms(rule)
    if froms:
        bits.append(("else " if "context" in rule or "kept" in rule else "") + ", ".join(froms))
    for key in ("each", "first", "map", "emit", "collect", "via", "check", "variant"):
        if key in rule and isinstance(rule[key], str):
            bits.append(f"{key} {rule[key]}")
    if "values" in rule and any(k != v for k, v in rule["values"].items()):
        bits.append("values " + ", ".join(f"{k}→{v}" for k, v in rule["values"].items() if k != v))
    if "with" in rule:
        bits.append("with " + ", ".join(rule["with"]))
    if "merge" in rule:
        bits.append(f"merge {rule['merge']}")
    if "otherwise" in rule:
        bits.append(f"otherwise {rule['otherwise']}")
    if "only_when" in rule:
        bits.append("only when " + ", ".join(f"{k} = {v}" for k, v in rule["only_when"].items()))
    return " ".join(bits) if bits else "copy"


# -------------------------------------------------------------------------------------- rendering


def _environment(repo_root: pathlib.Path) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(repo_root / "codegen" / "templates")),
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
        autoescape=False,
    )
    env.filters["pyrepr"] = repr
    env.filters["lit"] = _lit
    env.filters["call"] = lambda fn, args, width=76: _call(fn, list(args), width)
    env.filters["format_then"] = lambda transform, name: f"_s.{transform}({name}, cx)"
    return env


def render_all(repo_root: pathlib.Path) -> dict[str, str]:
    """Render every converter module, the SparkTide text limits, the registry and the docs.

    Parameters
    ----------
    repo_root : pathlib.Path
        The repository root (holds ``mappings/``, ``schemas/`` and ``codegen/templates/``).

    Returns
    -------
    dict[str, str]
        Output file names relative to ``generated/`` (``convert_sparktide_lux.py``,
        ``sparktide_text_checks.py``; ``docs/mappings.md``, which has a slash, is relative to the
        repository root) mapped to their text.

    Raises
    ------
    MappingSpecError
        A spec leaves a source field, enum value or union variant unmapped and undeclared, or is
        malformed.
    """
    specs = load_specs(repo_root)
    env = _environment(repo_root)
    out: dict[str, str] = {}
    module = env.get_template("converter_module.py.jinja")
    spelled = spellings(specs)
    shared = set(_public_names((repo_root / "lucent" / "_transforms.py").read_text(encoding="utf-8")))
    own: dict[str, set[str]] = {}
    reads = transform_reads(repo_root)
    skips = transform_skips(repo_root)
    keys: dict[tuple[str, str, str], tuple[str, ...]] = {}
    for spec in specs:
        lowering = Lowering(spec, spelled, skips.get(spec.package, set()))
        ctx = lowering.module()
        if spec.package not in own:
            own[spec.package] = set(_public_names((repo_root / "lucent" / "formats" / spec.package / "transforms.py").read_text(encoding="utf-8")))
        text = module.render(**ctx)
        called = set(_TRANSFORM_CALL.findall(text))
        found = tuple(sorted(lowering.context_keys | {k for name in called for k in reads[spec.package].get(name, ())}))
        keys[(spec.pair["source"], spec.pair["target"], spec.pair["kind"])] = found
        text = text.replace(_lit(_CONTEXT_PLACEHOLDER), _lit(found))
        out[spec.pair["output"]] = _bind_transforms(text, spec, own[spec.package], shared)
    out["sparktide_text_checks.py"] = env.get_template("sparktide_text_checks.py.jinja").render(
        schema_file=FORMATS["sparktide"].schema_file, checks=text_checks(repo_root)
    )
    out["convert_registry.py"] = render_registry(env, specs, keys)
    out["docs/mappings.md"] = render_docs(repo_root, specs)
    return out


_CONTEXT_PLACEHOLDER = "@context keys@"
"""Stands for a converter's context keys in its first rendering (render_all puts them in)."""

_TRANSFORM_CALL = re.compile(r"(?<![\w.])_s\.([A-Za-z_]\w*)")


def _bind_transforms(text: str, spec: Spec, own: set[str], shared: set[str]) -> str:
    """A rendered converter module with each ``_s.NAME`` bound to the format's transforms module
    (``_<package>.NAME``, lucent/formats/<package>/transforms.py) when it defines NAME, else to
    ``_shared.NAME`` (lucent/_transforms.py); the import of a module no name is bound to is left
    out.

    Raises
    ------
    MappingSpecError
        NAME is defined by neither module.
    """
    alias = f"_{spec.package}"
    used: set[str] = set()

    def bind(match: re.Match[str]) -> str:
        name = match.group(1)
        if name in own:
            module = alias
        elif name in shared:
            module = "_shared"
        else:
            raise spec.fail("transforms", f"{name} is defined in neither lucent/formats/{spec.package}/transforms.py nor lucent/_transforms.py")
        used.add(module)
        return f"{module}.{name}"

    bound = _TRANSFORM_CALL.sub(bind, text)
    imports = {"_shared": "from lucent import _transforms as _shared\n", alias: f"from lucent.formats.{spec.package} import transforms as {alias}\n"}
    for module, line in imports.items():
        if module not in used:
            bound = bound.replace(line, "", 1)
    return bound


def _public_names(text: str) -> list[str]:
    """The top-level public functions, classes and constants a module's source defines."""
    names = []
    for node in ast.parse(text).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, ast.ImportFrom):  # an explicit re-export: `import x as x`
            names += [a.name for a in node.names if a.asname == a.name]
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names += [t.id for t in targets if isinstance(t, ast.Name)]
    return [n for n in names if not n.startswith("_")]


# The SparkTide strings the Lux -> SparkTide transform settle_tool_ids makes fit: (the stem of the
# constants of generated/sparktide_text_checks.py, the schema field it checks).
TEXT_CHECKS = (
    ("SPARKTIDE_CALL_ID", "RemoteModelToolCall.id"),
    ("SPARKTIDE_TOOL_CALL_ID", "RemoteModelMessage.tool_call_id"),
    ("SPARKTIDE_FUNCTION_NAME", "RemoteModelToolCall.function.name"),
)


def text_checks(repo_root: pathlib.Path) -> list[dict[str, Any]]:
    """The limits of each field of TEXT_CHECKS read from the SparkTide schema: minLength and
    maxLength (None when absent), the pattern and its Python translation (ECMA-262 semantics), and
    the text a diagnostic names them by."""
    schema = Schema(repo_root / "schemas" / FORMATS["sparktide"].schema_file)
    found = []
    for stem, where in TEXT_CHECKS:
        definition, *segments = where.split(".")
        node = schema.defs[definition]
        for seg in segments:
            node = schema.deref(node["properties"][seg])[1]
        low, high = node.get("minLength"), node.get("maxLength")
        limits = ([f"minLength {low}"] if low is not None else []) + ([f"maxLength {high}"] if high is not None else [])
        pattern = node.get("pattern")
        if pattern is not None:
            limits.append(f"pattern /{pattern}/")
        found.append({"stem": stem, "where": where, "low": low, "high": high, "pattern": pattern,
                      "python": translate(pattern) if pattern is not None else None, "limits": ", ".join(limits) or "any string"})
    return found


def render_registry(env: jinja2.Environment, specs: list[Spec], keys: dict[tuple[str, str, str], tuple[str, ...]] | None = None) -> str:
    """generated/convert_registry.py: every converter by (source, target, kind), the context keys
    it reads (`keys`, from render_all), and the definition each (format, kind) decodes as."""
    entries, documents = [], {}
    for spec in sorted(specs, key=lambda s: (s.pair["source"], s.pair["target"], s.pair["kind"])):
        pair = spec.pair
        entry = spec.maps[pair["entry"]]
        entries.append({
            "source": pair["source"], "target": pair["target"], "kind": pair["kind"],
            "module": pair["output"].removesuffix(".py"), "function": pair["function"],
            "context": (keys or {}).get((pair["source"], pair["target"], pair["kind"]), ()),
            "unreachable": {f"$.{k}": v for k, v in entry.get("unreachable", {}).items()},
        })
        for fmt, definition in ((pair["source"], entry["source"]), (pair["target"], entry["target"])):
            stem = FORMATS[fmt].schema_file.removesuffix(".json").removeprefix("vendor/")
            known = documents.setdefault((fmt, pair["kind"]), (stem, definition))
            if known != (stem, definition):
                raise MappingSpecError(f"mappings/{spec.path.name}: {fmt} {pair['kind']} is {definition} here but {known[1]} elsewhere")
    return env.get_template("converter_registry.py.jinja").render(
        specs=[f"mappings/{s.path.name}" for s in specs], entries=entries, documents=sorted(documents.items())
    )


def _declared_reports(text: str) -> dict[str, tuple[str, ...]]:
    """The statuses each top-level function of a transforms module declares with
    ``@reports("Degraded", ...)`` (lucent._conversion.reports), read from its source; a name
    re-exported from lucent/_transforms.py (``import x as x``) maps to None: the shared module's
    declaration holds."""
    found: dict[str, tuple[str, ...]] = {}
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef):
            for deco in node.decorator_list:
                if isinstance(deco, ast.Call) and isinstance(deco.func, ast.Name) and deco.func.id == "reports":
                    statuses = tuple(a.value for a in deco.args if isinstance(a, ast.Constant))
                    if len(statuses) != len(deco.args) or not set(statuses) <= set(STATUSES[1:]):
                        raise MappingSpecError(f"@reports on {node.name} takes the literal statuses {', '.join(STATUSES[1:])}")
                    found[node.name] = statuses
    return found


def _declared_reads(text: str) -> dict[str, tuple[str, ...]]:
    """The context keys each top-level function of a transforms module declares with
    ``@reads("key", ...)`` (lucent._conversion.reads), read from its source."""
    found: dict[str, tuple[str, ...]] = {}
    for node in ast.parse(text).body:
        if isinstance(node, ast.FunctionDef):
            for deco in node.decorator_list:
                if isinstance(deco, ast.Call) and isinstance(deco.func, ast.Name) and deco.func.id == "reads":
                    keys = tuple(a.value for a in deco.args if isinstance(a, ast.Constant) and isinstance(a.value, str))
                    if len(keys) != len(deco.args) or not keys:
                        raise MappingSpecError(f"@reads on {node.name} takes the literal context keys it reads")
                    found[node.name] = keys
    return found


def _declared_skips(text: str) -> set[str]:
    """The top-level functions of a transforms module declared ``@skips_absent``
    (lucent._conversion.skips_absent), read from its source."""
    return {
        node.name
        for node in ast.parse(text).body
        if isinstance(node, ast.FunctionDef) and any(isinstance(d, ast.Name) and d.id == "skips_absent" for d in node.decorator_list)
    }


def transform_skips(repo_root: pathlib.Path) -> dict[str, set[str]]:
    """Format package -> the transforms, as the generated converters bind the names (see
    :func:`transform_reports`), that do nothing for absent source values (``@skips_absent``): a
    converter calls them only when a value they read is present."""
    shared_text = (repo_root / "lucent" / "_transforms.py").read_text(encoding="utf-8")
    shared = _declared_skips(shared_text)
    out: dict[str, set[str]] = {}
    for path in sorted((repo_root / "lucent" / "formats").glob("*/transforms.py")):
        text = path.read_text(encoding="utf-8")
        defined = set(_public_names(text))
        out[path.parent.name] = {name for name in shared if name not in defined} | _declared_skips(text)
    return out


def transform_reads(repo_root: pathlib.Path) -> dict[str, dict[str, tuple[str, ...]]]:
    """Format package -> transform name -> the context keys it declares it reads (``@reads``), as
    the generated converters bind the name (see :func:`transform_reports`)."""
    shared_text = (repo_root / "lucent" / "_transforms.py").read_text(encoding="utf-8")
    shared = _declared_reads(shared_text)
    out: dict[str, dict[str, tuple[str, ...]]] = {}
    for path in sorted((repo_root / "lucent" / "formats").glob("*/transforms.py")):
        text = path.read_text(encoding="utf-8")
        defined = set(_public_names(text))
        out[path.parent.name] = {**{k: v for k, v in shared.items() if k not in defined}, **_declared_reads(text)}
    return out


def transform_reports(repo_root: pathlib.Path) -> dict[str, dict[str, tuple[str, ...]]]:
    """Format package (``openai_chat``...) -> transform name -> the statuses it declares it can
    report (``@reports``), as the generated converters bind the name: the format's module when it
    defines the name, else lucent/_transforms.py. A name neither declares reports nothing of its own."""
    shared_text = (repo_root / "lucent" / "_transforms.py").read_text(encoding="utf-8")
    shared = _declared_reports(shared_text)
    out: dict[str, dict[str, tuple[str, ...]]] = {}
    for path in sorted((repo_root / "lucent" / "formats").glob("*/transforms.py")):
        text = path.read_text(encoding="utf-8")
        own = _declared_reports(text)
        defined = set(_public_names(text))
        out[path.parent.name] = {**{k: v for k, v in shared.items() if k not in defined}, **own}
    return out


def _rule_transforms(rule: dict[str, Any]) -> list[str]:
    """The transforms a rule (or a source variant's rule) names, in spec order."""
    names: list[str] = []
    for key in ("via", "check", "empty", "then", "emit"):
        value = rule.get(key)
        for name in [value] if isinstance(value, str) else value if isinstance(value, list) else []:
            if name in TRANSFORMS and name not in names:
                names.append(name)
    for part in rule.get("parts", []):
        names += [n for n in _rule_transforms(part) if n not in names]
    for sub in rule.get("rules", {}).values() if isinstance(rule.get("rules"), dict) else []:
        names += [n for n in _rule_transforms(sub) if n not in names]
    return names


def _reports_text(rule: dict[str, Any], declared: dict[str, tuple[str, ...]]) -> str:
    """``; chat_user_content may report Degraded`` for each transform of the rule that declares
    statuses, for the Status column."""
    return "".join(f"; {name} may report {' or '.join(declared[name])}" for name in _rule_transforms(rule) if declared.get(name))


def render_docs(repo_root: pathlib.Path, specs: list[Spec] | None = None) -> str:
    """docs/mappings.md: one table per pair, one row per rule and per declared source field.

    A rule's Status lists what the generated code reports for it and, for each transform it
    names, the statuses the transform declares with ``@reports`` (:func:`transform_reports`)."""
    specs = load_specs(repo_root) if specs is None else specs
    reported = transform_reports(repo_root)
    pairs = []
    for spec in specs:
        declared = reported.get(spec.package, {})
        rows = []
        lowering = Lowering(spec)  # reads the target schema's bounds for the docs
        for name, m in spec.maps.items():
            tgt = m["target"]
            if isinstance(m.get("emit"), str) and m["emit"] in TRANSFORMS:
                rows.append({"map": name, "source": m["source"], "target": f"{tgt}[]", "rule": f"emit {m['emit']}",
                             "status": "Exact" + _reports_text({"emit": m["emit"]}, declared), "note": TRANSFORMS[m["emit"]][1]})
            for tpath, rule in m.get("rules", {}).items():
                status = _rule_status(rule) if "const" not in rule else "Exact"
                bounds = _doc_bounds(lowering, m, tpath, rule)
                if bounds:
                    status += f", Unsupported when outside the target's bounds ({bounds})"
                if "const" in rule and "from" in rule:
                    status += f", {rule['status']} when {rule['from']} is another value"
                notes = [rule.get("reason") or rule.get("absent") or ""] + [p["reason"] for p in rule.get("parts", []) if "reason" in p]
                if "otherwise" in rule:
                    notes.append(f"{rule['otherwise']} is Unsupported when {rule['from']} is set too (and differs)")
                status += _reports_text(rule, declared)
                rows.append({
                    "map": name, "source": _doc_sources(m["source"], rule), "target": f"{tgt}.{tpath}",
                    "rule": _rule_text(rule), "status": status, "note": "; ".join(n for n in notes if n),
                })
            for tpath, reason in m.get("unreachable", {}).items():
                rows.append({
                    "map": name, "source": "—", "target": f"{tgt}.{tpath}", "rule": "unreachable",
                    "status": f"Invalid `target:$.{tpath}` when the value written is outside ({_doc_bounds(lowering, m, tpath, {}, unreachable=True)})",
                    "note": reason,
                })
            for tag, rule in m.get("variants", {}).items():
                rows.append({
                    "map": name, "source": f"{m['source']} ({m['select']} = {', '.join(rule['when'])})" if "when" in rule else "—",
                    "target": f"{tgt} variant {tag}", "rule": f"map {rule['map']}" if "map" in rule else "not written",
                    "status": "Exact" if "map" in rule else "—", "note": rule.get("absent", ""),
                })
            for tag, rule in m.get("source_variants", {}).items():
                lossy = "status" in rule and not any(k in rule for k in ("from", "rules", "const", "map"))
                if lossy:
                    text, status = "dropped", rule["status"]
                elif "const" in rule:
                    text, status = f"const {json.dumps(rule['const'])}", "Exact"
                elif "rules" in rule:
                    text = "; ".join(f"{k} ← {_rule_text(r)}" for k, r in rule["rules"].items())
                    text = (f"variant {rule['variant']}: " if "variant" in rule else "") + text
                    status = "Exact"
                else:
                    text = _rule_text(rule) + (f" into {rule['into']}" if "into" in rule else "")
                    status = "Exact"
                if "status" in rule and not lossy:
                    # mapped with a loss: always reported, or when the transform finds one
                    status = f"Exact ({rule['status']} when {rule['via']} finds a loss)" if "via" in rule else rule["status"]
                status += _reports_text(rule, declared)
                rows.append({"map": name, "source": f"{m['source']} variant {tag}", "target": tgt if not lossy else "—",
                             "rule": text, "status": status, "note": rule.get("reason", "")})
            for upath, decl in m.get("unmapped", {}).items():
                if "keep" in decl:
                    key = decl.get("as", upath.rsplit(".", 1)[-1])
                    where = f"{spec.pair.get('carried', '').split('.')[0]}.{decl['keep']}[<Lux path>].{key}"
                    rows.append({"map": name, "source": f"{m['source']}.{upath}", "target": where,
                                 "rule": "kept" + (f" when {json.dumps(decl['when'])}" if "when" in decl else "") + (f" unless {decl['unless']}" if "unless" in decl else ""),
                                 "status": "Exact", "note": "kept for the Lux object built from its object, keyed by that object's Lux path"})
                    continue
                if "implied" in decl:
                    status, note = "Exact (implied)", decl["implied"]
                elif "never" in decl:
                    status, note = "Invalid if present", decl["never"]
                elif "when" in decl:
                    status, note = f"{decl['status']} when {json.dumps(decl['when'])}", decl["reason"]
                elif "degraded_when" in decl:
                    status, note = f"{decl['status']} when present; Degraded when {decl['degraded_when']}", decl["reason"]
                elif any(u.startswith(upath + ".") for u in m.get("unmapped", {})) or any(
                    f.startswith(upath + ".") for r in m.get("rules", {}).values() for f in _froms(r) + [r.get("merge", ""), r.get("otherwise", "")]
                ):
                    status, note = f"{decl['status']} for each key no rule reads", decl["reason"]
                else:
                    status, note = f"{decl['status']} when present", decl["reason"]
                rows.append({"map": name, "source": f"{m['source']}.{upath}", "target": "—", "rule": "not carried" if "implied" not in decl else "implied",
                             "status": status, "note": note})
        pairs.append({"spec": spec, "pair": spec.pair, "file": f"mappings/{spec.path.name}", "rows": rows})
    reports = {name: " or ".join(s for s in STATUSES[1:] if any(s in by.get(name, ()) for by in reported.values())) or "—" for name in TRANSFORMS}
    return _environment(repo_root).get_template("converter_docs.md.jinja").render(pairs=pairs, transforms=TRANSFORMS, reports=reports)


def _doc_bounds(lowering: Lowering, m: dict[str, Any], tpath: str, rule: dict[str, Any], unreachable: bool = False) -> str:
    """The target bounds a plain copy or a context rule checks (as Lowering does), for the docs."""
    target = m["target"]
    if target in ("object", "json", *COLLECTORS) or not lowering.spec.target.has(target):
        return ""
    tgt = lowering.spec.target.definition(target)
    if tgt.kind != "struct":
        return ""
    ttype, treq = lowering._target_field(tgt, tpath)
    lowered = ("const", "parts", "collect", "kept", "via", "each", "map", "first", "values", "absent", "check")
    if not unreachable:
        if "context" in rule:
            if "from" not in rule:
                return ""
        elif any(k in rule for k in lowered) or "from" not in rule or treq or ("." not in tpath and tpath in lowering._conditionally_required(tgt)):
            return ""
    checks = lowering._bounds(ttype, tpath)
    return lowering._bounds_text(checks).split(": ", 1)[-1] if checks else ""


def _rule_status(rule: dict[str, Any]) -> str:
    if "absent" in rule:
        return "—"
    statuses = []
    if "first" in rule:
        none = f"{rule['empty']} when there is none" if "empty" in rule else "Invalid when there is none"
        return f"Exact for the first item, {rule['status']} for the others, {none}"
    if "check" in rule:
        statuses.append(f"Exact ({rule['status']} when the check fails)")
    elif "status" in rule and "via" in rule:
        statuses.append(f"{rule['status']} when {rule['via']} finds a loss")
    elif "status" in rule:
        statuses.append(f"{rule['status']} when present")
    if "context" in rule:
        statuses.append("Invalid when missing" if "only_when" not in rule else "Invalid when missing or misplaced")
        if "from" in rule:
            statuses.append("Degraded when the context replaces a different source value")
    if "lossy_values" in rule:
        statuses.append("; ".join(f"{s} for {v}" for v, s in rule["lossy_values"].items()))
    for part in rule.get("parts", []):
        if "status" in part:
            statuses.append(f"{part['status']} for {part['from']}")
    return "Exact" + (", " + ", ".join(statuses) if statuses else "") if not (statuses and statuses[0].startswith(("Degraded", "Invalid", "Unsupported"))) else ", ".join(statuses)


def _doc_sources(owner: str, rule: dict[str, Any]) -> str:
    froms = _froms(rule)
    for part in rule.get("parts", []):
        froms.extend(_froms(part))
    if "context" in rule:
        froms.insert(0, f"context.{rule['context']}")
    if "kept" in rule:
        froms.insert(0, f"kept {rule['kept']}")
    if not froms:
        return "—"
    return ", ".join(f if f.startswith(("context.", "kept ")) else owner if f == "." else f"{owner}.{f}" for f in froms)
