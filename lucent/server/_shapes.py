"""Errors in each front's own shape: the JSON body of a non-2xx answer, and the event that ends a
stream which failed after it started.

Document errors (``error_body``), by front:

* openai-chat, openai-responses: ``{"error": {"message", "type", "param", "code"}}`` (the OpenAI
  error object: ``param`` is lucent's JSON path, ``code`` lucent's code);
* anthropic: ``{"type": "error", "error": {"type", "message", "code", "path"}}`` (Anthropic's
  error types: ``invalid_request_error``, ``authentication_error``, ``not_found_error``,
  ``request_too_large``, ``rate_limit_error``, ``api_error``, ``overloaded_error``);
* gemini: ``{"error": {"code": <HTTP status>, "message", "status", "details": [ErrorInfo
  {reason: lucent's code, domain: "lucent", metadata: {path}}]}}`` (google.rpc.Status);
* sparktide: ``{"error": {"code": <RemoteModelFailure code>}}`` and nothing else
  (``#/$defs/RemoteModelFailure``: additionalProperties false).

Stream errors (``stream_error``): Chat a ``data: {"error": {...}}`` event and no ``[DONE]``;
Responses a ``response.failed`` event (the stream's ``response.created`` response, status
``failed``, ``sequence_number`` the next; a stream that failed before its first event gets a
``response.created`` first, as the SDKs require); Anthropic an ``error`` event; Gemini a
``data: {"error": {...}}`` chunk (google-genai raises it); SparkTide a ``model.error`` frame.

Messages name lucent's code and path, never a value of the request and never an upstream key.
"""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

__all__ = ["error_body", "sparktide_code", "stream_error"]

_OPENAI_TYPES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error", 404: "not_found_error",
                 409: "conflict_error", 413: "invalid_request_error", 429: "rate_limit_error"}
_ANTHROPIC_TYPES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error", 404: "not_found_error",
                    409: "invalid_request_error", 413: "request_too_large", 429: "rate_limit_error", 529: "overloaded_error"}
_GOOGLE_STATUS = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND", 409: "ABORTED",
                  413: "INVALID_ARGUMENT", 429: "RESOURCE_EXHAUSTED", 499: "CANCELLED", 500: "INTERNAL", 501: "UNIMPLEMENTED",
                  502: "UNAVAILABLE", 503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED"}


def sparktide_code(status: int, code: str) -> str:
    """The RemoteModelFailure code for an HTTP status and a gateway code."""
    if code in ("MODEL_UNAVAILABLE", "MODEL_TIMED_OUT", "MODEL_RATE_LIMITED", "MODEL_AUTH_FAILED",
                "MODEL_REQUEST_REJECTED", "MODEL_FEATURE_UNSUPPORTED", "MODEL_PROTOCOL_ERROR"):
        return code
    if code in ("upstream_timeout", "deadline_exceeded"):
        return "MODEL_TIMED_OUT"
    if code in ("upstream_auth_failed", "unauthorized"):
        return "MODEL_AUTH_FAILED"
    if status == 429:
        return "MODEL_RATE_LIMITED"
    if code in ("unsupported_conversion", "conversion_lossy"):
        return "MODEL_FEATURE_UNSUPPORTED"
    if code in ("upstream_protocol_error", "output_too_large"):
        return "MODEL_PROTOCOL_ERROR"
    if status >= 500:
        return "MODEL_UNAVAILABLE"
    return "MODEL_REQUEST_REJECTED"


def error_body(front: str, status: int, code: str, message: str, path: str | None = None) -> dict[str, Any]:
    """The JSON body of a non-2xx answer of ``front``."""
    if front == "sparktide":
        return {"error": {"code": sparktide_code(status, code)}}
    if front == "anthropic":
        kind = _ANTHROPIC_TYPES.get(status, "overloaded_error" if status == 503 else "api_error")
        error: dict[str, Any] = {"type": kind, "message": message, "code": code}
        if path is not None:
            error["path"] = path
        return {"type": "error", "error": error}
    if front == "gemini":
        info: dict[str, Any] = {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": code, "domain": "lucent"}
        if path is not None:
            info["metadata"] = {"path": path}
        return {"error": {"code": status, "message": message, "status": _GOOGLE_STATUS.get(status, "UNKNOWN"), "details": [info]}}
    kind = _OPENAI_TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")
    return {"error": {"message": message, "type": kind, "param": path, "code": code}}


def stream_error(front: str, status: int, code: str, message: str, state: dict[str, Any]) -> bytes:
    """The SSE bytes that end ``front``'s stream after a failure.

    ``state`` is what the relay saw of the stream: ``response`` (the Responses
    ``response.created`` response, as JSON), ``sequence`` (the last ``sequence_number``).
    """
    if front == "sparktide":
        frame = {"protocolVersion": "1.0", "type": "model.error", "code": sparktide_code(status, code)}
        return b"data: " + _json(frame) + b"\n\n"
    if front == "anthropic":
        body = error_body(front, status, code, message)
        return b"event: error\ndata: " + _json(body) + b"\n\n"
    if front == "openai-responses":
        out = b""
        sequence = state.get("sequence", -1) + 1
        response = state.get("response")
        if response is None:  # nothing was sent yet: the SDKs need the response created first
            response = _created(state)
            out += _named("response.created", {"type": "response.created", "sequence_number": sequence, "response": response})
            sequence += 1
        failed = dict(response, status="failed", error={"code": "server_error", "message": f"{message} [{code}]"})
        return out + _named("response.failed", {"type": "response.failed", "sequence_number": sequence, "response": failed})
    return b"data: " + _json(error_body(front, status, code, message)) + b"\n\n"  # Chat (no [DONE]) and Gemini


def _named(name: str, event: Any) -> bytes:
    return b"event: " + name.encode() + b"\ndata: " + _json(event) + b"\n\n"


def _created(state: dict[str, Any]) -> dict[str, Any]:
    """A Responses ``Response`` in progress, for a stream that failed before its first event."""
    return {"id": f"resp_{uuid.uuid4().hex}", "object": "response", "created_at": int(time.time()), "status": "in_progress",
            "model": state.get("model", ""), "output": [], "error": None, "incomplete_details": None, "instructions": None,
            "metadata": {}, "parallel_tool_calls": True, "temperature": None, "tool_choice": "auto", "tools": [], "top_p": None}


def _json(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
