"""Resource limits on untrusted input: how large a body or a stream, how deep a document.

Every limit is checked before the work it protects (the size before the body is parsed, the
depth before the parse recurses) and raises its own error code. The limits that a format's
schema states (``maxItems``, ``maxLength``...) are part of the generated bindings; these are the
limits around them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lucent.errors import UsageError

__all__ = ["DEFAULT_MAX_BODY_BYTES", "DEFAULT_MAX_DEPTH", "DEFAULT_MAX_STREAM_BYTES", "Limits"]

DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024
"""32 MiB: the body cap of a format whose protocol states none (SparkTide's is 1 MiB,
``codegen/protocols.toml``). As large as the largest request a vendor documents (Anthropic's
32 MB), so that inline media fits."""

DEFAULT_MAX_STREAM_BYTES = 64 * 1024 * 1024
"""64 MiB: the stream cap of a format whose protocol states none (SparkTide's is 4 MiB)."""

DEFAULT_MAX_DEPTH = 512
"""How deep arrays and objects may nest in one document or stream frame (``[]`` is depth 1).

Half of Python's default recursion limit (1,000), so that the code that walks a decoded value
(conversion, error selection, encoding) has room; the same bound as JSON text held in a string
(``lucent._validation.MAX_JSON_TEXT_DEPTH``)."""


@dataclass(frozen=True)
class Limits:
    """Limits on one document or stream; ``None`` takes the default of the format.

    Parameters
    ----------
    max_body_bytes : int, optional
        Largest JSON body, in bytes of UTF-8, checked before parsing. Default: the format's
        protocol cap (``sparktide-remote-1.0``: 1,048,576, "JSON 正文最大 1 MiB"), else
        :data:`DEFAULT_MAX_BODY_BYTES` (33,554,432). Error: ``ValidationError``, code
        ``max_body_bytes``.
    max_stream_bytes : int, optional
        Largest event stream, in bytes on the wire (an event given as an object counts as its
        ``data:`` frame), checked as each chunk arrives, before it is parsed. Default: the
        format's protocol cap (SparkTide: 4,194,304, "最大 4 MiB"), else
        :data:`DEFAULT_MAX_STREAM_BYTES` (67,108,864). Error: ``StreamError``, code
        ``stream_too_large``.
    max_depth : int, optional
        Deepest nesting of arrays and objects in a document or a stream frame, checked before
        parsing. Default :data:`DEFAULT_MAX_DEPTH` (512). Error: ``DecodeError``, code
        ``max_depth`` (``StreamError`` code ``max_depth`` in a stream).

    Raises
    ------
    UsageError
        ``invalid_limits``: a value that is not a positive ``int`` (nor ``None``).
    """

    max_body_bytes: int | None = None
    max_stream_bytes: int | None = None
    max_depth: int | None = None

    def __post_init__(self) -> None:
        for name in ("max_body_bytes", "max_stream_bytes", "max_depth"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
                wrong = "an int below 1" if isinstance(value, int) and not isinstance(value, bool) else f"a {type(value).__name__}"
                raise UsageError(f"{name} is a positive int or None, not {wrong}", code="invalid_limits")  # the value is not repeated

    def body_bytes(self, protocol: dict[str, Any]) -> int:
        """The body cap for a format whose generated module has ``PROTOCOL`` ``protocol``."""
        if self.max_body_bytes is not None:
            return self.max_body_bytes
        return int(protocol.get("max_body_bytes", DEFAULT_MAX_BODY_BYTES))

    def stream_bytes(self, protocol: dict[str, Any]) -> int:
        """The stream cap for a format whose generated module has ``PROTOCOL`` ``protocol``."""
        if self.max_stream_bytes is not None:
            return self.max_stream_bytes
        return int(protocol.get("max_stream_bytes", DEFAULT_MAX_STREAM_BYTES))

    def depth(self) -> int:
        """The nesting cap: at most 2**62, which no text can reach (the C prescan reads it as a
        C long long; a larger cap raised OverflowError)."""
        return DEFAULT_MAX_DEPTH if self.max_depth is None else min(self.max_depth, 2**62)


DEFAULT_LIMITS = Limits()


def limits_of(limits: Limits | None) -> Limits:
    """``limits`` checked: ``None`` is the defaults; raises UsageError(invalid_limits)."""
    if limits is None:
        return DEFAULT_LIMITS
    if not isinstance(limits, Limits):
        raise UsageError(f"limits is a lucent.Limits, not {type(limits).__name__}", code="invalid_limits")
    return limits
