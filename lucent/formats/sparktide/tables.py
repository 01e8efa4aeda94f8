"""SparkTide value tables that no document mapping holds (read by the stream reader and writer)."""

from __future__ import annotations

from typing import Literal

from lucent.generated.lux_ir_v1 import LucentFinishReason

SparkTideFinish = Literal["STOP", "TOOL_CALLS", "LENGTH"]

FINISH_FROM_SPARKTIDE: dict[SparkTideFinish, LucentFinishReason] = {"STOP": "stop", "TOOL_CALLS": "tool_calls", "LENGTH": "length"}
"""SparkTide ``model.completed.finishReason`` -> Lux finish reason. Only streams carry a SparkTide
finish reason (a RemoteModelResponse has none), so no document mapping holds this table."""

FINISH_TO_SPARKTIDE: dict[str, SparkTideFinish] = {lux: spark for spark, lux in FINISH_FROM_SPARKTIDE.items()}
"""Lux finish reason -> SparkTide (the inverse); any other Lux reason becomes the one a reader derives."""

NO_DOCUMENT_FINISH = "a SparkTide non-stream response has no finish reason; a reader derives tool_calls when there are tool calls, else stop"
"""The detail of the Lux -> SparkTide *response* diagnostic on a finish reason
(mappings/lux_sparktide_response.toml, ``choice_message.unmapped.finish_reason``): a
RemoteModelResponse has none, a stream states it (:func:`lucent.formats.sparktide.stream.stream_view`)."""

JOINED_TEXT = "a SparkTide message holds one text: the text blocks are joined with a newline"
"""The Degraded detail of each Lux text (or refusal) block of a message that has several, in a
SparkTide response (document) and a SparkTide stream alike."""
