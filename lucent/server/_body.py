"""The request body, read up to a cap before anything parses it, and the refusal of a client
document as a :class:`~lucent.server._upstream.Failure` with lucent's code and path."""

from __future__ import annotations

from typing import Any

from starlette.requests import ClientDisconnect, Request

from lucent.errors import LucentError
from lucent.server._upstream import Failure

__all__ = ["read_body", "refusal"]


async def read_body(request: Request, cap: int) -> bytes:
    """The body, or ``Failure(413, "max_body_bytes")`` as soon as it is over ``cap`` bytes (a
    ``Content-Length`` over it is refused before a byte is read)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > cap:
        raise Failure(413, "max_body_bytes", f"the request body is over {cap} bytes", "$")
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > cap:
                raise Failure(413, "max_body_bytes", f"the request body is over {cap} bytes", "$")
            chunks.append(chunk)
    except ClientDisconnect:
        raise Failure(499, "client_disconnected", "the client went away") from None
    return b"".join(chunks)


def refusal(error: LucentError, what: str = "request") -> Failure:
    """A lucent error about the client's document as a 400 answer with its code and path."""
    status = 413 if error.code == "max_body_bytes" else 400
    return Failure(status, error.code, f"the {what} was refused: {error.message}", error.path)


def json_object(body: bytes) -> dict[str, Any] | None:
    """``body`` parsed as a JSON object (for routing only: lucent validates it after), or None."""
    import msgspec

    try:
        value = msgspec.json.decode(body)
    except (msgspec.DecodeError, RecursionError):  # lucent.decode says why (its max_depth comes first)
        return None
    return value if isinstance(value, dict) else None
