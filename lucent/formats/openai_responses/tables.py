"""The OpenAI Responses value tables, written once: the document transforms
(``converter_support_openai_responses``) and the stream converter
(``lucent.formats.openai_responses.stream``) both read them."""

from __future__ import annotations

from typing import Any, Final

STATUS_FROM_LUX: Final[dict[str, tuple[str, str | None]]] = {
    "stop": ("completed", None),
    "tool_calls": ("completed", None),
    "length": ("incomplete", "max_output_tokens"),
    "content_filter": ("incomplete", "content_filter"),
    "safety": ("incomplete", "content_filter"),
    "recitation": ("incomplete", "content_filter"),
    "malformed_tool_call": ("failed", None),
    "error": ("failed", None),
}
"""Lux ``finish_reason`` -> (Responses ``status``, ``incomplete_details.reason``); safety,
recitation and malformed_tool_call are Degraded (Responses has no such finish)."""

FAILURE_ERROR: Final[dict[str, dict[str, str]]] = {
    "error": {"code": "server_error", "message": "The model stopped before completing the response: the provider reported a failure finish reason."},
    "malformed_tool_call": {"code": "server_error", "message": "The model stopped on a malformed tool call."},
}
"""The Responses ``error`` (#/$defs/ResponseError: ``code`` of ResponseErrorCode and ``message``)
written for each Lux finish reason whose status is ``failed``: a failed response always states
its error, which clients read as ``response.error.message`` (``incomplete_details.reason`` has
only max_output_tokens and content_filter, so a failure such as Gemini's OTHER or NO_IMAGE is no
incomplete response). ResponseErrorCode has no code for either: ``server_error``, the one the API
gives for a failure of the model itself. Documents and streams (``response.failed``) write the
same object."""

RESTATED_DEFAULTS: Final[tuple[str, ...]] = ("tools", "metadata", "tool_choice", "parallel_tool_calls", "instructions")
"""The members of :data:`REQUEST_DEFAULTS` a Responses source's value of which, when it is that
default, is not kept in the Lux side-car but noted (``restated_defaults``, a spelling): the way
back writes it again, and another format loses nothing (temperature and top_p: a kept null is
a value, docs/semantics.md)."""

IMPLIED_STATUS: Final[frozenset[str]] = frozenset({"completed", "incomplete", "failed"})
"""The response statuses the Lux finish reason gives back exactly (:data:`STATUS_FROM_LUX`): a
Responses source's status of these is not kept (in_progress, queued, cancelled are)."""


DEGRADED_FINISH: Final[frozenset[str]] = frozenset({"safety", "recitation", "malformed_tool_call"})
"""The Lux finish reasons whose Responses status does not give them back."""

INCOMPLETE_REASON_TO_LUX: Final[dict[str, str]] = {"max_output_tokens": "length", "content_filter": "content_filter"}
"""``incomplete_details.reason`` of an incomplete response -> Lux ``finish_reason`` (any other,
or none, is ``length``)."""

ERROR_KIND: Final[dict[str, str]] = {
    "rate_limit_exceeded": "rate_limit",
    "invalid_prompt": "invalid_request",
    "server_error": "server_error",
    "vector_store_timeout": "server_error",
    "invalid_image": "invalid_request",
}
"""Responses error ``code`` -> Lux error kind (any other: server_error)."""

ERROR_CODE: Final[dict[str, str]] = {"rate_limit": "rate_limit_exceeded", "invalid_request": "invalid_prompt", "server_error": "server_error"}
"""A Lux error kind -> the Responses error code for it, where its provider_code is not one
(authentication and content_filter have none: server_error)."""

MADE_ID_PREFIX: Final[dict[str, str]] = {"reasoning": "rs", "message": "msg", "function_call": "fc"}
"""Output item type -> the prefix of the id lucent makes for it when Lux has none:
``<prefix>_lucent_<n>``, n counting that prefix's ids from 1, in output order."""

LOGPROBS_INCLUDE: Final[str] = "message.output_text.logprobs"
"""The ``include`` entry by which a Responses request asks for the log probabilities of the
output text (Chat Completions asks with ``logprobs: true``; both give ``top_logprobs`` as an
integer 0..20)."""


def lux_annotation(note: dict[str, Any], text: str) -> dict[str, Any] | None:
    """A Responses output_text annotation as the members of a Lux annotation (None: Lux has no
    kind for it: container_file_citation, file_path): url_citation -> ``url`` (ref: url, start /
    end: its indexes, text: the span of ``text`` they cite), file_citation -> ``file_citation``
    (ref: file_id). The title and filename have no Lux member."""
    kind = note.get("type")
    if kind == "url_citation":
        start, end, url = note.get("start_index"), note.get("end_index"), note.get("url")
        if not (_index(start) and _index(end) and isinstance(url, str)):
            return None  # the schema check names it; here it is no Lux annotation
        return {"kind": "url", "ref": url, "start": start, "end": end, "text": text[start:end] if isinstance(text, str) else ""}
    if kind == "file_citation" and isinstance(note.get("file_id"), str):
        return {"kind": "file_citation", "ref": note["file_id"]}
    return None


SIGNATURE_WRITTEN: Final[str] = "written as encrypted_content; Responses decrypts only the encrypted_content it issued, and this block has no Responses record (it may hold another provider's signature)"
"""The Degraded detail of a Lux thinking signature written as a reasoning item's
``encrypted_content`` without the Responses record of the item: the document converter's, and
the stream writer's for every signature (a Lux stream has no side-car, so no record)."""

ANNOTATION_LOST: Final[str] = "a Lux annotation has no title or filename"
"""What a Lux annotation does not hold of a Responses one (:func:`annotation_lost`)."""


def annotation_lost(note: dict[str, Any]) -> str | None:
    """The member of a Responses annotation that Lux has no place for: its ``title`` (a
    url_citation) or ``filename``, when it has one (not empty); None otherwise."""
    if note.get("title"):
        return "title"
    if note.get("filename"):
        return "filename"
    return None


def _index(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


ANNOTATION_TYPES: Final[tuple[str, ...]] = ("url_citation", "file_citation", "container_file_citation", "file_path")
"""The ``type`` of a Responses output_text annotation (#/$defs/Annotation): a diagnostic names
one of these, never another string it was given."""


ITEM_CARRIED: Final[dict[str, tuple[str, ...]]] = {
    "reasoning": ("type", "summary", "content", "encrypted_content"),
    "message": ("type", "content", "role"),
    "function_call": ("type", "arguments", "call_id", "name"),
}
"""The members of an output item that its Lux block carries or implies (the type and an output
message's role give the block kind), per item type."""


def item_status(kind: Any, last: bool, response_status: Any) -> str:
    """The status Lux -> Responses writes on an output item of type `kind`, documents and
    streams alike: ``incomplete`` for a message that is the last item of an incomplete response
    (its text was cut off, as the API says), else ``completed`` (the block ended). `last`: no
    item a Lux block carries (:data:`ITEM_CARRIED`) comes after it. A Responses source's item of
    that status loses nothing where Lux has no place for it: the Lux finish reason gives it back."""
    return "incomplete" if last and kind == "message" and response_status == "incomplete" else "completed"


def item_members_lost(item: dict[str, Any], status: str = "completed") -> list[str]:
    """The members of an output item (a JSON object) that a Lux block has no place for, which a
    target with no Responses items therefore drops: all but :data:`ITEM_CARRIED`, a null or
    empty member, and the `status` :func:`item_status` gives back (``completed`` unless it says
    otherwise). The document converter (``responses_output``, which keeps them in
    provider_payload.openai_responses.output) and the stream reader name the same ones."""
    carried = ITEM_CARRIED.get(item.get("type", ""), ("type",))
    return [k for k, v in item.items() if k not in carried and v not in (None, []) and not (k == "status" and v == status)]


STREAM_PADDING: Final[frozenset[str]] = frozenset({"obfuscation"})
"""The member the API adds to stream events to pad their size (``stream_options.include_obfuscation``,
random characters): it holds no value of the response, which has no place for it."""


OUTPUT_TEXT_DEFAULTS: Final[tuple[str, ...]] = ("annotations", "logprobs")
"""The members of an ``output_text`` part that Lux -> Responses writes as ``[]`` when Lux has
none: a source part's ``[]`` there is that default, kept nowhere and lost by no target."""


REQUEST_DEFAULTS: Final[dict[str, Any]] = {
    "tools": [], "metadata": {}, "tool_choice": "auto", "parallel_tool_calls": True,
    "error": None, "instructions": None, "temperature": None, "top_p": None,
}
"""The members a Response requires that restate the request (and its error), as an empty
request gives them: what Lux -> Responses writes, document or stream, when Lux has none
(reported Degraded at ``target:$``: the target needs them, the source has no such value)."""
