"""The format registry: every format lucent decodes, converts and streams, declared once.

One :class:`Format` per format, in :data:`FORMATS`. Everything else that needs the list of
formats reads it here: decode (:data:`lucent.SCHEMAS`), convert (``lucent._convert.FORMATS``),
streams (:data:`lucent.streams.FORMATS`, the assemblers, the stream readers and converters), the
CLI's ``--format`` choices, snapshots, and codegen (``codegen.mappings.FORMATS``,
``codegen.vendor.VENDORS``, the docs). A test (tests/test_format_registry.py) fails when another
literal list of format names appears in ``lucent/`` or ``codegen/``.

Modules and classes are named here as strings (``"module:attribute"``, see :func:`resolve`) and
imported on first use: importing this module imports msgspec and nothing of lucent's bindings,
converters or streams, so codegen can read it and ``import lucent`` stays lazy.

Adding a format is one entry below (docs/adding-a-format.md lists the other steps).
"""

from __future__ import annotations

from typing import Any

import msgspec

__all__ = ["FORMATS", "Format", "Gateway", "Stream", "VendorSource", "resolve"]


class VendorSource(msgspec.Struct, frozen=True, kw_only=True):
    """Where ``python -m codegen vendor`` extracts a vendor format's schema from (codegen/vendor.py)."""

    spec: str
    """The published spec, relative to ../shared/specs (``openai/openapi.yml``)."""
    kind: str
    """``"openapi"`` or ``"discovery"`` (Google's API discovery document)."""
    roots: tuple[str, ...]
    """The definitions that are its documents (requests, responses, stream events), in the order
    the schema root's ``anyOf`` tries them."""


class Stream(msgspec.Struct, frozen=True, kw_only=True):
    """How a format streams a response (lucent.streams)."""

    definition: str
    """The schema definition one event decodes as."""
    assembler: str
    """``"module:Class"`` of its :class:`lucent.streams.Assembler`."""
    converter: str
    """``"module:Prefix"``: the module holding ``<Prefix>Reader`` (its events -> Lux stream events)
    and ``<Prefix>Writer`` (Lux stream events -> its events) of ``lucent.streams.convert_stream``."""
    one_object_per_line: bool = False
    """Each ``data:`` line is one complete JSON object."""
    tool_index_path: str | None = None
    """Where an event holds a tool call index; one above the schema maximum means too many tool calls."""
    done_terminator: bool = False
    """``data: [DONE]`` ends the SSE stream."""
    named_events: bool = False
    """Written as SSE, each event has an ``event:`` line naming its type."""
    side_events: tuple[tuple[str, str], ...] = ()
    """(type tag, ``"module:Struct"``) of events the format sends that its published schema lacks."""
    document_events: tuple[str, ...] = ()
    """The type tags of the events whose object the assembled document is (the Responses terminal
    event's ``response``): read holding the members their schema does not define, so that a
    conversion of the document names them as the stream conversion does (lucent._unknown)."""


class Gateway(msgspec.Struct, frozen=True, kw_only=True):
    """How ``lucent serve`` (lucent.server) uses a format it fronts: clients call it in this format."""

    upstream: bool = True
    """An upstream may speak it (SparkTide is a front only: a platform calls the gateway)."""
    created: str | None = None
    """The context key of its responses' creation time (Unix seconds), for a response converted
    from a format that carries none; None: its responses have no creation time."""
    keeps_conversation: bool = False
    """As an upstream it stores the conversation itself (``previous_response_id``); in front of
    any other, the gateway keeps it in the snapshot store."""


class Format(msgspec.Struct, frozen=True, kw_only=True):
    """One wire format."""

    name: str
    """The format name, as ``lucent.convert``, ``lucent.streams`` and the CLI take it."""
    schema: str
    """The schema file stem: ``schemas/<schema>.json``, or ``schemas/vendor/<schema>.json``."""
    module: str
    """Its generated bindings: ``lucent.generated.<module>`` (from generated/<module>.py)."""
    title: str
    """The format's name in documents (docs/mappings.md, the vendor schema's title)."""
    label: str
    """How a diagnostic names the format ("SparkTide temperature has maximum 2")."""
    kinds: tuple[str, ...]
    """The document kinds it converts (``request``, ``response``, ``error``); its mapping specs
    (mappings/*.toml) cover exactly these, checked by codegen."""
    vendor: VendorSource | None = None
    """For a vendor format, the published spec its schema is extracted from; None for a schema
    written in this repository."""
    stream: Stream | None = None
    """How it streams a response; None: it has no stream."""
    conversation: str | None = None
    """The request member holding the conversation items, for a format whose requests can name a
    previous response (lucent.snapshots); None: they cannot."""
    gateway: Gateway | None = None
    """How the gateway fronts it (lucent.server); None: no gateway front."""
    forms_alike: frozenset[str] = frozenset()
    """The pairs of Lux forms its documents write the same way (``lucent._forms``: for example
    ``tool_result_place``, a tool result as an item or as a block): a restructuring between
    them, composed from this format, comes back in place and is not reported."""

    @property
    def schema_file(self) -> str:
        """The schema's path under ``schemas/``."""
        return f"vendor/{self.schema}.json" if self.vendor is not None else f"{self.schema}.json"


def resolve(reference: str) -> Any:
    """The object a ``"module:attribute"`` reference names, importing the module on first use."""
    from lucent._first_use import imported

    module, _, attribute = reference.partition(":")
    return getattr(imported(module), attribute)


_ANTHROPIC_SIDE_EVENTS = (("ping", "lucent.formats.anthropic.events:AnthropicPingEvent"), ("error", "lucent.formats.anthropic.events:AnthropicErrorEvent"))
"""The ``ping`` and ``error`` events anthropic sends that its MessageStreamEvent union lacks."""

FORMATS: dict[str, Format] = {f.name: f for f in (
    Format(
        name="lux", schema="lux-ir-v1", module="lux_ir_v1", title="Lux IR v1", label="Lux",
        kinds=("request", "response", "error"), conversation="conversation",
        stream=Stream(definition="LucentStreamEvent", assembler="lucent.formats.lux.assembler:LuxAssembler", converter="lucent.formats.lux.stream:Lux"),
    ),
    Format(
        name="sparktide", schema="sparktide-remote-1.0", module="sparktide_remote_1_0", title="SparkTide REMOTE 1.0", label="SparkTide",
        kinds=("request", "response", "error"),
        stream=Stream(
            definition="RemoteModelStreamFrame", assembler="lucent.formats.sparktide.assembler:SparkTideAssembler",
            converter="lucent.formats.sparktide.stream:SparkTide", one_object_per_line=True, tool_index_path="$.index",
        ),
        gateway=Gateway(upstream=False),
    ),
    Format(
        name="llm-sdk", schema="llm-sdk", module="llm_sdk", title="llm-sdk", label="llm-sdk", kinds=("request", "response"),
        stream=Stream(definition="PartialModelResponse", assembler="lucent.formats.llm_sdk.assembler:LlmSdkAssembler", converter="lucent.formats.llm_sdk.stream:LlmSdk"),
    ),
    Format(name="htmlp", schema="htmlp-model-request", module="htmlp_model_request", title="htmlp", label="htmlp", kinds=("request",)),
    Format(
        name="openai-chat", schema="openai-chat", module="openai_chat", title="OpenAI Chat Completions", label="Chat Completions",
        kinds=("request", "response"),
        vendor=VendorSource(
            spec="openai/openapi.yml", kind="openapi",
            roots=("CreateChatCompletionRequest", "CreateChatCompletionResponse", "CreateChatCompletionStreamResponse"),
        ),
        stream=Stream(
            definition="CreateChatCompletionStreamResponse", assembler="lucent.formats.openai_chat.assembler:OpenAIChatAssembler",
            converter="lucent.formats.openai_chat.stream:OpenAIChat", done_terminator=True,
        ),
        forms_alike=frozenset({"tool_result_place", "tool_call_place", "holder_role", "system_place"}),
        gateway=Gateway(created="created"),
    ),
    Format(
        name="openai-responses", schema="openai-responses", module="openai_responses", title="OpenAI Responses", label="Responses",
        kinds=("request", "response"), conversation="input",
        # CreateResponse last: it requires nothing, so as the first root it would take every
        # document (the root's anyOf is the same set in any order; the first match is the type).
        vendor=VendorSource(spec="openai/openapi.yml", kind="openapi", roots=("ResponseStreamEvent", "Response", "CreateResponse")),
        stream=Stream(
            definition="ResponseStreamEvent", assembler="lucent.formats.openai_responses.assembler:OpenAIResponsesAssembler",
            converter="lucent.formats.openai_responses.stream:OpenAIResponses", named_events=True,
            document_events=("response.completed", "response.incomplete"),
        ),
        forms_alike=frozenset({"tool_result_place", "tool_call_place", "holder_role"}),
        gateway=Gateway(created="created_at", keeps_conversation=True),
    ),
    Format(
        name="anthropic", schema="anthropic", module="anthropic", title="Anthropic Messages", label="Anthropic",
        kinds=("request", "response"),
        vendor=VendorSource(spec="anthropic/openapi.yml", kind="openapi", roots=("CreateMessageParams", "Message", "MessageStreamEvent")),
        stream=Stream(
            definition="MessageStreamEvent", assembler="lucent.formats.anthropic.assembler:AnthropicAssembler",
            converter="lucent.formats.anthropic.stream:Anthropic", named_events=True, side_events=_ANTHROPIC_SIDE_EVENTS,
        ),
        forms_alike=frozenset({"tool_result_place", "tool_call_place", "holder_role"}),
        gateway=Gateway(),
    ),
    Format(
        name="gemini", schema="gemini", module="gemini", title="Gemini generateContent", label="Gemini",
        kinds=("request", "response"),
        vendor=VendorSource(spec="google/discovery.json", kind="discovery", roots=("GenerateContentRequest", "GenerateContentResponse")),
        stream=Stream(definition="GenerateContentResponse", assembler="lucent.formats.gemini.assembler:GeminiAssembler", converter="lucent.formats.gemini.stream:Gemini"),
        forms_alike=frozenset({"tool_result_place", "tool_call_place", "holder_role", "system_place"}),
        gateway=Gateway(),
    ),
)}
"""Format name -> :class:`Format`, in the order lucent lists them (``lucent convert --help``)."""
