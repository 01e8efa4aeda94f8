"""Reading a stream: SSE bytes, byte chunks or event objects -> validated event Structs.

This layer applies the rules that concern one frame at a time (UTF-8, ``[DONE]``, JSON, the
schema, the byte cap). Rules across frames belong to the assemblers (``_stream_<format>.py``).
The facts about each format (schema definition, where its type tag is and which values it
takes) are read from the generated bindings.
"""

from __future__ import annotations

import json
import math
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

import msgspec

from lucent._decode import SCHEMAS, _decode_as, _decoder, _no_key_lost, _structs, too_deep
from lucent._first_use import LOCK, imported
from lucent._limits import DEFAULT_MAX_STREAM_BYTES, Limits, limits_of
from lucent._stream_sse import SSEParser, chunk_bytes
from lucent.formats import FORMATS as _REGISTRY
from lucent.formats import resolve
from lucent.errors import (
    DecodeError,
    LucentError,
    StreamError,
    UsageError,
    ValidationError,
)
from lucent._validation import JsonTextError, described, load_json_text, member

_SSE_FRAMING = len(b"data: \n\n")
_MISSING = object()


@dataclass(frozen=True)
class FormatSpec:
    """What the reader needs to know about one stream format."""

    name: str
    schema: str  # schema file stem
    definition: str  # the definition one event decodes as
    tag_path: tuple[str, ...]  # where the event's type tag is
    tags: frozenset[str]  # the tag values the schema defines
    max_bytes: int | None  # the protocol's cap on the whole stream (SSE bytes); None: lucent's default
    one_object_per_line: bool  # each data: line is one complete JSON object
    tool_index_path: str | None  # a tool index above the schema maximum means too many tool calls
    open_objects: bool  # some object of an event takes members it does not define (and drops them)
    done_terminator: bool = False  # (openai-chat) `data: [DONE]` ends the SSE stream
    side_events: tuple[tuple[str, Any], ...] = ()  # (anthropic) (type tag, Struct) the schema lacks
    document_events: frozenset[str] = frozenset()  # (openai-responses) tags of the events the assembled document is


def _generated(schema: str) -> Any:
    return imported(f"lucent.generated.{SCHEMAS[schema]}")


def _tag_site(tp: Any) -> tuple[tuple[str, ...], frozenset[str]]:
    """The path to the first tagged union under ``tp`` (through required Struct fields) and its tags."""
    queue: list[tuple[tuple[str, ...], msgspec.inspect.Type]] = [((), msgspec.inspect.type_info(tp))]
    while queue:
        path, info = queue.pop(0)
        if isinstance(info, msgspec.inspect.UnionType):
            structs = [t for t in info.types if isinstance(t, msgspec.inspect.StructType) and t.tag_field]
            if structs:
                tag_field = structs[0].tag_field
                assert tag_field is not None
                return path + (tag_field,), frozenset(str(t.tag) for t in structs if not str(t.tag).startswith("\0"))
        elif isinstance(info, msgspec.inspect.StructType):
            queue.extend((path + (f.encode_name,), f.type) for f in info.fields if f.required)
    raise AssertionError(f"no tagged union under {tp!r}")  # pragma: no cover - a codegen change


def _has_open_struct(tp: Any) -> bool:
    """Some Struct under ``tp`` ignores unknown members (its schema object is open): Lux."""
    return any(isinstance(info, msgspec.inspect.StructType) and not info.forbid_unknown_fields and not info.cls.__name__.startswith("_") for info in _structs(tp))


def _spec(
    name: str, schema: str, definition: str, *, max_bytes: int | None, one_per_line: bool, tool_index: str | None,
    done_terminator: bool = False, side_events: tuple[tuple[str, Any], ...] = (), document_events: tuple[str, ...] = (),
) -> FormatSpec:
    tp = _generated(schema).DECODE_TYPES[definition]
    try:
        tag_path, tags = _tag_site(tp)
    except AssertionError:  # no type tag: each event is one document (openai-chat chunks, gemini)
        tag_path, tags = (), frozenset()
    tags = tags | {tag for tag, _ in side_events}
    return FormatSpec(name, schema, definition, tag_path, tags, max_bytes, one_per_line, tool_index, _has_open_struct(tp), done_terminator, side_events, frozenset(document_events))


def _registered(name: str) -> FormatSpec:
    """The FormatSpec of a format of the registry (lucent.formats), from its bindings."""
    fmt = _REGISTRY[name]
    stream = fmt.stream
    assert stream is not None
    # codegen/protocols.toml: SparkTide's RemoteModelStreamFrame description "最大 4 MiB"; the
    # other formats state no cap on the whole stream.
    max_bytes = _generated(fmt.schema).PROTOCOL.get("max_stream_bytes")
    return _spec(
        name, fmt.schema, stream.definition, max_bytes=None if max_bytes is None else int(max_bytes),
        one_per_line=stream.one_object_per_line, tool_index=stream.tool_index_path, done_terminator=stream.done_terminator,
        side_events=tuple((tag, resolve(struct)) for tag, struct in stream.side_events), document_events=stream.document_events,
    )


class _Specs(Mapping[str, FormatSpec]):
    """Format name -> FormatSpec, each read from its format's bindings (imported) on first use."""

    def __init__(self, makers: dict[str, Callable[[], FormatSpec]]) -> None:
        self._makers = makers
        self._made: dict[str, FormatSpec] = {}

    def __getitem__(self, format: str) -> FormatSpec:
        made = self._made.get(format)
        if made is None:
            with LOCK:
                made = self._made.get(format)
                if made is None:
                    made = self._made[format] = self._makers[format]()
        return made

    def __iter__(self) -> Iterator[str]:
        return iter(self._makers)

    def __len__(self) -> int:
        return len(self._makers)


VENDOR_SPECS: dict[str, Callable[[], FormatSpec]] = {
    name: partial(_registered, name) for name, f in _REGISTRY.items() if f.stream is not None and f.vendor is not None
}
"""The vendor formats' (schemas/vendor/) FormatSpec makers: each builds its spec when first used,
so that `import lucent` loads no vendor binding."""


SPECS: Mapping[str, FormatSpec] = _Specs({name: partial(_registered, name) for name, f in _REGISTRY.items() if f.stream is not None})
"""Format name -> its FormatSpec."""


def spec(format: str) -> FormatSpec:
    """The FormatSpec of a format name; raises UsageError(code=unknown_format)."""
    try:
        return SPECS[format]
    except (KeyError, TypeError, ValueError):  # ValueError: a released memoryview cannot be hashed
        raise UsageError(f"unknown stream format; known: {', '.join(SPECS)}", code="unknown_format") from None


class FrameReader:
    """Turns one stream's input into validated event Structs, counting frames for error paths.

    ``count`` is the number of frames read so far, so ``$[count]`` names the frame being read.
    ``unknown``, when given, is called with the path (``$[3].meta.x``) of each member of an event
    that its schema object does not define and the event Struct therefore drops (Lux objects are
    open), so that a conversion can report it. ``keep``: such an event of a type the assembled
    document is (``document_events`` of the format's registry entry: the Responses terminal
    event) is given as a Struct that holds those members (lucent._unknown.holding), as
    ``lucent.decode`` drops them but
    ``lucent.convert`` finds them beside it: an assembled document keeps what the API sent, and
    its conversion names what the target cannot hold, as the stream conversion does.
    ``limits`` (:class:`lucent.Limits`) caps the stream's bytes (``stream_too_large``) and each
    frame's nesting (``max_depth``).
    """

    def __init__(self, spec: FormatSpec, unknown: Callable[[str], None] | None = None, limits: Limits | None = None, keep: bool = False) -> None:
        self.spec = spec
        bounds = limits_of(limits)
        self.max_bytes: int = bounds.max_stream_bytes or spec.max_bytes or DEFAULT_MAX_STREAM_BYTES
        self.max_depth = bounds.depth()
        self._on_unknown = unknown if spec.open_objects else None
        self._keep = spec.document_events if keep and spec.open_objects else frozenset()
        self.count = 0
        self.size = 0
        self.mode: str | None = None  # "sse" or "events", set by the first item
        self.done: int | None = None  # the frame that was `[DONE]` (openai-chat)
        self._parser = SSEParser(errors="strict")
        module = _generated(spec.schema)
        protocol: dict[str, Any] = module.PROTOCOL
        # max_body_bytes is the 1 MiB cap on a request or response body, not on one frame.
        self._protocol = {k: v for k, v in protocol.items() if k != "max_body_bytes"}
        self._decoder: msgspec.json.Decoder[Any] = _decoder(spec.schema, spec.definition)  # built once, shared
        self._unique_keys = bool(self._protocol.get("reject_duplicate_keys"))
        self._check = module.PROTOCOL_CHECKS.get(spec.definition)

    # ------------------------------------------------------------------ input kinds

    def take(self, item: Any) -> Iterator[Any]:
        """The events that one item of a source completes (a byte chunk, or one event object)."""
        if isinstance(item, (bytes, bytearray, memoryview)):
            self._set_mode("sse")
            return self.feed(item)
        if isinstance(item, (msgspec.Struct, dict)):
            self._set_mode("events")
            return iter((self.event(item),))
        raise UsageError(
            f"a stream item is a bytes chunk or an event (a generated Struct or a JSON object), not {type(item).__name__}",
            code="invalid_input_type",
        )

    def _set_mode(self, mode: str) -> None:
        if self.mode is None:
            self.mode = mode
        elif self.mode != mode:
            raise UsageError("a stream source holds either byte chunks or events, not both", code="invalid_input_type")

    def feed(self, chunk: bytes | bytearray | memoryview) -> Iterator[Any]:
        """Parse SSE bytes; yields each completed frame's event, one at a time."""
        data = chunk_bytes(chunk)  # UsageError for a released memoryview
        limit = self.max_bytes
        over = self.size + len(data) > limit
        if over:
            data = data[: max(limit - self.size, 0)]
        self.size += len(data)
        try:
            events = self._parser.feed(data)
        except StreamError as exc:
            raise self._at_frame(exc) from None
        for event in events:
            frame = self._frame(event.data)
            if frame is not _MISSING:
                yield frame
        if over:
            try:
                self._parser.feed(b"")  # a fault found before the limit comes first
            except StreamError as exc:
                raise self._at_frame(exc) from None
            raise StreamError(
                f"the stream is larger than {limit} bytes, the {self.spec.name} limit",
                code="stream_too_large",
                path=f"$[{self.count}]",
            )

    def event(self, obj: Any) -> Any:
        """Validate one event object (a generated Struct or a JSON object) as the parser would."""
        where = f"$[{self.count}]"
        try:
            buf = msgspec.json.encode(obj)
        except RecursionError:
            raise StreamError(f"event {self.count} nests too deeply to read", code="malformed_frame", path=where) from None
        except MemoryError:
            raise StreamError(f"event {self.count} does not fit in memory", code="malformed_frame", path=where) from None
        except (TypeError, ValueError, OverflowError, msgspec.EncodeError) as exc:
            raise UsageError(f"an event cannot be written as JSON: {exc}", code="invalid_input_type") from None
        if b"null" in buf:  # msgspec writes NaN and infinity as null: never take that silently
            found = non_finite_path(obj)
            if found is not None:
                raise StreamError(
                    f"event {self.count} holds NaN or an infinite number, which JSON cannot carry [number_out_of_range]",
                    code="invalid_frame",
                    path=where + found,
                )
        limit = self.max_bytes
        if self.size + len(buf) + _SSE_FRAMING > limit:
            raise StreamError(
                f"the stream is larger than {limit} bytes, the {self.spec.name} limit",
                code="stream_too_large",
                path=f"$[{self.count}]",
            )
        self.size += len(buf) + _SSE_FRAMING
        index = self.count
        self.count += 1
        return self._validate(buf, index)

    def close(self) -> None:
        """The source is exhausted: an unfinished SSE frame is an interruption."""
        if self.mode == "events":
            return
        try:
            self._parser.close()
        except StreamError as exc:
            raise self._at_frame(exc) from None
        if self._parser.truncated:
            raise StreamError(
                f"the stream ended inside frame {self.count}, before its closing blank line",
                code="interrupted",
                path=f"$[{self.count}]",
            )
        if self.spec.done_terminator and self.done is None:
            raise StreamError(
                f"the stream ended after {self.count} frames without its [DONE] frame",
                code="missing_terminal",
                path=f"$[{self.count}]",
            )

    def interrupted(self, cause: BaseException) -> StreamError:
        """The source itself failed (a network error, a timeout): the stream is interrupted."""
        return StreamError(
            f"the stream was interrupted while reading frame {self.count}: {type(cause).__name__}",
            code="interrupted",
            path=f"$[{self.count}]",
        )

    # ------------------------------------------------------------------ one frame

    def _at_frame(self, exc: StreamError) -> StreamError:
        return StreamError(exc.message, code=exc.code, path=f"$[{self.count}]", offset=exc.offset)

    def _frame(self, data: str) -> Any:
        index = self.count
        self.count += 1
        if self.done is not None:
            code = "duplicate_terminal" if data.strip() == "[DONE]" else "data_after_terminal"
            raise StreamError(f"frame {index} comes after the [DONE] frame {self.done}", code=code, path=f"$[{index}]")
        if data.strip() == "[DONE]" and self.spec.done_terminator:
            self.done = index
            return _MISSING
        if data.strip() == "[DONE]":
            raise StreamError(
                f"frame {index} is the [DONE] sentinel, which {self.spec.name} streams do not use",
                code="done_sentinel",
                path=f"$[{index}]",
            )
        if self.spec.one_object_per_line and "\n" in data:
            raise StreamError(
                f"frame {index} spans several data: lines; each data: line is one complete JSON object",
                code="malformed_frame",
                path=f"$[{index}]",
            )
        return self._validate(data.encode("utf-8"), index)

    def _validate(self, buf: bytes, index: int) -> Any:
        # The common case in a few microseconds: the typed parse, the duplicate-key and protocol
        # checks. Any failure is decoded again by lucent.decode's path for its exact error.
        if too_deep(buf, self.max_depth):
            raise StreamError(f"frame {index} nests deeper than {self.max_depth} levels, the limit", code="max_depth", path=f"$[{index}]")
        value = _MISSING
        try:
            value = self._decoder.decode(buf)
            if self._unique_keys and not _no_key_lost(buf, value, self._decoder.type):
                json.loads(buf, object_pairs_hook=_unique)  # a ':' count cannot clear the frame
            if self._check is not None:
                self._check(value)
        except (msgspec.DecodeError, msgspec.ValidationError, ValueError, RecursionError):
            value = _MISSING
        if value is not _MISSING:
            if _holds_nothing(value):
                self._refuse_foreign(buf, index)
            if self._on_unknown is not None or (self._keep and _tag(value) in self._keep):
                value = self._unknown(buf, value, index)
            return value
        where = f"$[{index}]"
        side = self._side_event(buf, index)
        if side is not _MISSING:
            return side
        try:
            value = _decode_as(buf, self.spec.schema, self.spec.definition, self._protocol)
        except RecursionError:
            raise StreamError(f"frame {index} nests too deeply to parse", code="malformed_frame", path=where) from None
        except MemoryError:
            raise StreamError(f"frame {index} does not fit in memory", code="malformed_frame", path=where) from None
        except DecodeError as exc:
            raise StreamError(
                f"frame {index} is not one JSON value: {exc.message} [{exc.code}]", code="malformed_frame", path=where
            ) from exc
        except ValidationError as exc:
            raise self._invalid(buf, index, exc) from exc
        if self._on_unknown is not None or (self._keep and _tag(value) in self._keep):
            value = self._unknown(buf, value, index)
        return value

    def _refuse_foreign(self, buf: bytes, index: int) -> None:
        """A frame that decodes as an event with every member absent (every Gemini member is
        optional, and unknown members are allowed) but has members: none of them is the
        format's, so it is another format's event (an Anthropic stream given as Gemini)."""
        try:
            tree = msgspec.json.decode(buf)
        except (msgspec.DecodeError, RecursionError):  # pragma: no cover - decoded already
            return
        if isinstance(tree, dict) and tree:
            names = ", ".join(list(tree)[:3]) + (", ..." if len(tree) > 3 else "")
            raise StreamError(
                f"frame {index} has none of the members of a {self.spec.definition} ({names}): it is no {self.spec.name} stream event",
                code="unknown_frame",
                path=f"$[{index}]",
            )

    def _side_event(self, buf: bytes, index: int) -> Any:
        """An event of a type the schema's union lacks but the format sends (anthropic ping, error)."""
        if not self.spec.side_events:
            return _MISSING
        try:
            tree = msgspec.json.decode(buf)
        except (msgspec.DecodeError, RecursionError):
            return _MISSING
        tag = tree.get("type") if isinstance(tree, dict) else None
        for name, struct in self.spec.side_events:
            if tag == name:
                try:
                    return msgspec.json.decode(buf, type=struct)
                except msgspec.ValidationError as exc:
                    raise StreamError(f"frame {index} is not a valid {name} event: {described(exc)}", code="invalid_frame", path=f"$[{index}]") from None
        return _MISSING

    def _unknown(self, buf: bytes, value: Any, index: int) -> Any:
        """Report each member of the frame that the event Struct does not keep; with ``keep``,
        the event holding them (lucent._unknown.put_members: an assembled document holds what
        the API sent, and a conversion of it names what it cannot carry)."""
        if msgspec.json.encode(value) == buf:  # the common case: written by lucent, nothing extra
            return value
        try:
            raw = msgspec.json.decode(buf)
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):  # pragma: no cover - decoded already
            return value
        kept = msgspec.to_builtins(value)
        if raw == kept:  # only spacing or escapes differ
            return value
        found = unknown_members(raw, kept, f"$[{index}]")
        if self._on_unknown is not None:
            for path in found:
                self._on_unknown(path)
        if found and _tag(value) in self._keep:
            from lucent._unknown import put_members, steps_of

            members = []
            for path in found:
                steps = steps_of("$" + path[len(f"$[{index}]"):])
                if steps:
                    held: Any = raw
                    for step in steps:
                        held = held[step]
                    members.append((steps, held))
            value, _ = put_members(value, members)
        return value

    def _invalid(self, buf: bytes, index: int, exc: ValidationError) -> StreamError:
        where = f"$[{index}]"
        try:
            tree = msgspec.json.decode(buf)
        except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
            tree = _MISSING
        if not isinstance(tree, dict):
            return StreamError(f"frame {index} is not a JSON object", code="malformed_frame", path=where)
        node: Any = tree
        for key in self.spec.tag_path[:-1]:
            node = node.get(key) if isinstance(node, dict) else None
        if isinstance(node, dict) and self.spec.tag_path:
            tag = node.get(self.spec.tag_path[-1], _MISSING)
            if tag is _MISSING or not isinstance(tag, str) or tag not in self.spec.tags:
                state = "has no type" if tag is _MISSING else "has a type that the schema does not define"
                return StreamError(
                    f"frame {index} {state} ({'.'.join(self.spec.tag_path)})",
                    code="unknown_frame",
                    path=where + "." + ".".join(self.spec.tag_path),
                )
        if self.spec.tool_index_path is not None and exc.path == self.spec.tool_index_path and exc.code == "maximum":
            return StreamError(
                f"frame {index} names a tool call index above the last one allowed: {exc.message}",
                code="too_many_tool_calls",
                path=where + exc.path[1:],
            )
        return StreamError(
            f"frame {index} breaks the {self.spec.definition} schema: {exc.message} [{exc.code}]",
            code="invalid_frame",
            path=where + exc.path[1:],
        )


def _tag(value: Any) -> Any:
    """The type tag of an event Struct (None for an untagged one)."""
    config = getattr(type(value), "__struct_config__", None)
    return config.tag if config is not None else None


def _holds_nothing(value: Any) -> bool:
    """True for an untagged Struct with members, all of them absent (UNSET): a tagged event is
    its tag, whatever else it holds."""
    fields = getattr(value, "__struct_fields__", None)
    if not fields or value.__struct_config__.tag is not None:
        return False
    return all(getattr(value, f) is msgspec.UNSET for f in fields)


def unknown_members(raw: Any, kept: Any, path: str) -> list[str]:
    """The paths, in document order, of the members of the JSON value ``raw`` that its decoded
    form ``kept`` (``msgspec.to_builtins`` of the Struct) lacks; iterative, for any depth."""
    found: list[str] = []
    stack: list[tuple[Any, Any, str]] = [(raw, kept, path)]
    while stack:
        node, decoded, where = stack.pop()
        if isinstance(node, dict) and isinstance(decoded, dict):
            for key, item in reversed(list(node.items())):
                if key in decoded:
                    stack.append((item, decoded[key], member(where, key)))
                else:
                    stack.append((_MISSING, None, member(where, key)))
        elif isinstance(node, list) and isinstance(decoded, list) and len(node) == len(decoded):
            stack.extend((item, decoded[i], f"{where}[{i}]") for i, item in reversed(list(enumerate(node))))
        elif node is _MISSING:
            found.append(where)
    return found


def non_finite_path(obj: Any) -> str | None:
    """The relative path (``.usage.x``) of the first NaN or infinity in an event, None if none."""
    try:
        tree = msgspec.to_builtins(obj)
    except (TypeError, ValueError, OverflowError, RecursionError, msgspec.EncodeError):  # pragma: no cover - encoded already
        return None
    stack: list[tuple[Any, str]] = [(tree, "")]
    while stack:
        node, where = stack.pop()
        if isinstance(node, float) and not math.isfinite(node):
            return where
        if isinstance(node, dict):
            stack.extend((v, member(where, str(k))) for k, v in reversed(list(node.items())))
        elif isinstance(node, (list, tuple)):
            stack.extend((v, f"{where}[{i}]") for i, v in reversed(list(enumerate(node))))
    return None


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise ValueError("duplicate key")
    return result


def _check_source(source: Any) -> None:
    if isinstance(source, str):
        raise UsageError("a stream source is bytes, not str: encode SSE text as UTF-8", code="invalid_input_type")


_BOM = b"\xef\xbb\xbf"


def json_array_events(source: bytes | bytearray | memoryview, limit: int, name: str) -> list[Any] | None:
    """The events of a whole-bytes source that is a JSON array of event objects (after an
    optional UTF-8 byte order mark and whitespace, its first byte is ``[``, which no
    ``text/event-stream`` starts with usefully: it would be a field named ``[...``, ignored);
    None for any other source, which is read as SSE.

    Raises StreamError: ``stream_too_large`` over `limit` bytes; ``malformed_frame`` (path
    ``$``) when it is not one complete JSON text read as lucent.decode reads one (duplicate
    keys, NaN, 1e999 and lone surrogates refused); ``malformed_frame`` at ``$[i]`` for an item
    that is not a JSON object.
    """
    data = chunk_bytes(source)
    start = len(_BOM) if data.startswith(_BOM) else 0
    head = data[start : start + 64].lstrip(b" \t\r\n")
    if not head.startswith(b"["):
        return None
    if len(data) > limit:
        raise StreamError(f"the stream is larger than {limit} bytes, the {name} limit", code="stream_too_large", path="$")
    try:
        events = load_json_text(bytes(data[start:]).decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise StreamError(f"the JSON array of events is not UTF-8 (byte {start + exc.start})", code="malformed_frame", path="$") from None
    except JsonTextError as exc:
        raise StreamError(f"the JSON array of events {exc.predicate}: {exc.problem}", code="malformed_frame", path="$") from None
    for i, item in enumerate(events):
        if not isinstance(item, dict):
            raise StreamError(f"item {i} of the JSON array of events is not a JSON object", code="malformed_frame", path=f"$[{i}]")
    return events


def frames(source: Any, spec: FormatSpec, unknown: Callable[[str], None] | None = None, limits: Limits | None = None, keep: bool = False) -> Iterator[Any]:
    """Validated events from a sync source (SSE bytes, byte chunks, or event objects); see
    :class:`FrameReader` for ``unknown``, ``limits`` and ``keep``."""
    _check_source(source)
    reader = FrameReader(spec, unknown, limits, keep)
    if isinstance(source, (bytes, bytearray, memoryview)):
        events = json_array_events(source, reader.max_bytes, spec.name)
        if events is None:
            yield from reader.feed(source)
        else:  # the events recorded as one JSON array (lingua's *-streaming.json)
            for item in events:
                yield from reader.take(item)
        reader.close()
        return
    if not isinstance(source, Iterable):
        raise UsageError(
            f"a stream source is bytes or an iterable of chunks or events, not {type(source).__name__}",
            code="invalid_input_type",
        )
    try:
        iterator = iter(source)
    except LucentError:
        raise
    except Exception as exc:  # its __iter__ raised: the source failed before its first item
        raise reader.interrupted(exc) from exc
    while True:
        try:
            item = next(iterator)
        except StopIteration:
            break
        except LucentError:
            raise
        except Exception as exc:
            raise reader.interrupted(exc) from exc
        yield from reader.take(item)
    reader.close()


async def aframes(source: Any, spec: FormatSpec, unknown: Callable[[str], None] | None = None, limits: Limits | None = None, keep: bool = False) -> AsyncIterator[Any]:
    """:func:`frames` for an async source; a sync source is read as :func:`frames` reads it."""
    _check_source(source)
    if not isinstance(source, AsyncIterable):
        for event in frames(source, spec, unknown, limits, keep):
            yield event
        return
    reader = FrameReader(spec, unknown, limits, keep)
    try:
        iterator = aiter(source)
    except LucentError:
        raise
    except Exception as exc:  # its __aiter__ raised
        raise reader.interrupted(exc) from exc
    while True:
        try:
            item = await anext(iterator)
        except StopAsyncIteration:
            break
        except LucentError:
            raise
        except Exception as exc:
            raise reader.interrupted(exc) from exc
        for event in reader.take(item):
            yield event
    reader.close()
