"""The top-level kinds: the definitions a user decodes as a document root.

This table is the one place that names them; the runner, the tests and the
counts it prints all read it.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["KINDS", "MODULES", "SCHEMAS", "VENDOR_KINDS", "VENDOR_MODULES", "Kind", "kinds_of"]


@dataclass(frozen=True)
class Kind:
    """One top-level kind.

    Attributes
    ----------
    schema : str
        The schema's file stem in ``schemas/``.
    definition : str or None
        The name under ``definitions``/``$defs``; ``None`` is the schema root.
    """

    schema: str
    definition: str | None

    @property
    def label(self) -> str:
        """The definition name, or ``<root>``."""
        return self.definition or "<root>"


KINDS: tuple[Kind, ...] = (
    Kind("lux-ir-v1", "LucentRequest"),
    Kind("lux-ir-v1", "LucentResponse"),
    Kind("lux-ir-v1", "LucentStreamEvent"),
    Kind("lux-ir-v1", "ConversationSnapshot"),
    Kind("lux-ir-v1", "LucentDiscovery"),
    Kind("sparktide-remote-1.0", "RemoteModelRequest"),
    Kind("sparktide-remote-1.0", "RemoteModelResponse"),
    Kind("sparktide-remote-1.0", "RemoteModelStreamFrame"),
    Kind("sparktide-remote-1.0", "RemoteModelFailure"),
    Kind("llm-sdk", "LanguageModelInput"),
    Kind("llm-sdk", "ModelResponse"),
    Kind("llm-sdk", "PartialModelResponse"),
    Kind("htmlp-model-request", None),
    Kind("lucent-diagnostics-v1", "ConversionResult"),
    Kind("lucent-diagnostics-v1", "DiagnosticReport"),
)

MODULES: dict[str, str] = {
    "lux-ir-v1": "lux_ir_v1",
    "sparktide-remote-1.0": "sparktide_remote_1_0",
    "llm-sdk": "llm_sdk",
    "htmlp-model-request": "htmlp_model_request",
    "lucent-diagnostics-v1": "lucent_diagnostics_v1",
}
"""Schema file stem -> generated module name."""

SCHEMAS: tuple[str, ...] = tuple(MODULES)

VENDOR_KINDS: tuple[Kind, ...] = (
    Kind("openai-chat", "CreateChatCompletionRequest"),
    Kind("openai-chat", "CreateChatCompletionResponse"),
    Kind("openai-chat", "CreateChatCompletionStreamResponse"),
    Kind("openai-responses", "CreateResponse"),
    Kind("openai-responses", "Response"),
    Kind("openai-responses", "ResponseStreamEvent"),
    Kind("anthropic", "CreateMessageParams"),
    Kind("anthropic", "Message"),
    Kind("anthropic", "MessageStreamEvent"),
    Kind("gemini", "GenerateContentRequest"),
    Kind("gemini", "GenerateContentResponse"),
)
"""The vendor formats' documents (schemas/vendor/): run with ``--vendor`` or ``--schema NAME``;
not in the default session or the test suite's budget (their schemas are large)."""

VENDOR_MODULES: dict[str, str] = {
    "openai-chat": "openai_chat",
    "openai-responses": "openai_responses",
    "anthropic": "anthropic",
    "gemini": "gemini",
}


def kinds_of(schema: str) -> tuple[Kind, ...]:
    """The top-level kinds of one schema, in table order."""
    return tuple(kind for kind in KINDS + VENDOR_KINDS if kind.schema == schema)
