"""llm-sdk value tables, read by the assembler and the stream reader alike."""

from __future__ import annotations

from typing import Final

from lucent.generated.llm_sdk import AudioPartDelta, TextPartDelta, ToolCallPartDelta

PART_KIND: Final[dict[type, str]] = {TextPartDelta: "text", ToolCallPartDelta: "tool-call", AudioPartDelta: "audio"}
"""A ``PartialModelResponse.delta.part`` Struct type -> the ``type`` of the part it builds
(schemas/llm-sdk.json ``ContentPartDelta``)."""

AUDIO_FIELDS: Final[tuple[str, ...]] = ("container", "encoding", "sampleRate", "channels")
"""The members of an audio part delta that are set once and must not change (``AudioPartDelta``)."""
