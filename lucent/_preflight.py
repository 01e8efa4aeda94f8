"""The pre-flight check: what a request needs that a model's capability declaration lacks.

The check runs on the request's Lux form (the hub where every format meets), so that it is
written once; each finding is reported at the path of the value in the request as given (the
first hop of the conversion records where each Lux value came from, as a composed conversion
does). A ``none`` support level is Unsupported, ``partial`` Degraded (the design note's Absent
and Partial).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any, Literal

import msgspec

from lucent._convert import FORMATS, _decode_source, _definition, _source_paths
from lucent.errors import UsageError
from lucent._validation import member
from lucent.generated.convert_registry import CONVERTERS
from lucent.generated.lucent_diagnostics_v1 import ConversionDiagnostic
from lucent.generated.lux_ir_v1 import LucentCapabilities, LucentDiscovery, ProviderCapability

__all__ = ["check", "declared", "on_the_way"]

_LEVELS = ("none", "partial", "full")
_STATUS: dict[str, Status] = {"none": "Unsupported", "partial": "Degraded"}
_BLOCK_MODALITY = {"image": "image", "audio": "audio", "video": "video"}
_SIDE_CARS = {name.replace("-", "_") for name in FORMATS if name != "lux"} | {"media"}
"""The ``extra`` members lucent itself writes: one side-car per format, and inline media."""

Status = Literal["Degraded", "Unsupported", "Invalid"]
Found = tuple[str, Status, str]  # (Lux path, status, detail); a path may be "=<source path>" already


def declared(capabilities: Any) -> tuple[LucentCapabilities, Any]:
    """The capabilities and ``extra_params`` (UNSET: not declared) of a declaration."""
    if isinstance(capabilities, ProviderCapability):
        return capabilities.capabilities, capabilities.extra_params
    if isinstance(capabilities, LucentCapabilities):
        return capabilities, msgspec.UNSET
    raise UsageError("capabilities is a LucentCapabilities or a ProviderCapability (lucent.capabilities.lookup)", code="invalid_capabilities")


def check(document: Any, fmt: str, capabilities: Any, context: Mapping[str, Any] | None = None, limits: Any = None) -> list[ConversionDiagnostic]:
    """lucent.capabilities.preflight: the document decoded, its Lux form, the findings at the
    document's paths (and the Invalid diagnostics of a protocol rule it breaks)."""
    caps, extra_params = declared(capabilities)
    definition = _definition(fmt, "request")
    struct, decoded, _incomplete = _decode_source(document, FORMATS[fmt], definition, limits)
    lux, origins = _lux_view(struct, fmt, context)
    found = [d for d in decoded if d.status == "Invalid"]
    return found + _reported(_needs(lux, caps, extra_params, origins), origins)


def on_the_way(diagnostics: list[ConversionDiagnostic], document: Any, source: str, kind: str, capabilities: Any,
               context: Mapping[str, Any] | None) -> list[ConversionDiagnostic]:
    """convert(..., capabilities=...): ``diagnostics`` plus each finding the conversion has not
    reported already (a value the target format drops is reported once, by the conversion)."""
    if kind != "request":
        raise UsageError("capabilities are checked on requests only", code="invalid_capabilities")
    lux, origins = _lux_view(document, source, context)
    if isinstance(capabilities, LucentDiscovery):
        from lucent.capabilities import lookup

        model = (context or {}).get("model", lux.get("model"))
        capabilities = lookup(model if isinstance(model, str) else "", capabilities)
    caps, extra_params = declared(capabilities)
    dropped = [d.field for d in diagnostics if d.status in ("Unsupported", "Invalid")]
    found = _reported(_needs(lux, caps, extra_params, origins), origins)
    return diagnostics + [d for d in found if not any(_overlaps(d.field, other) for other in dropped)]


def _overlaps(field: str, other: str) -> bool:
    """One path is the other or holds it."""
    short, long = sorted((field, other), key=len)
    return long == short or (long.startswith(short) and long[len(short)] in ".[")


def _lux_view(struct: Any, fmt: str, context: Mapping[str, Any] | None) -> tuple[dict[str, Any], Any]:
    """The request's Lux form as JSON, and the Origins of its values in the request (None for a
    Lux request: its paths are its own)."""
    if fmt == "lux":
        return msgspec.to_builtins(struct), None
    from lucent._conversion import Origins

    origins = Origins()
    lux, _diagnostics = CONVERTERS[(fmt, "lux", "request")](struct, context, origins)
    return msgspec.to_builtins(lux), origins


def _reported(found: Iterator[Found], origins: Any) -> list[ConversionDiagnostic]:
    reported: list[ConversionDiagnostic] = []
    seen: set[tuple[str, str, str]] = set()
    for path, status, detail in found:
        if path.startswith("="):  # named in the source already (a kept part: see _kept_parts)
            fields = [path[1:]]
        else:
            fields = [path] if origins is None else _source_paths(path, origins.around(path))
        for field in fields:
            if (field, status, detail) not in seen:
                seen.add((field, status, detail))
                reported.append(ConversionDiagnostic(field=field, status=status, detail=detail))
    return reported


def _needs(lux: dict[str, Any], caps: LucentCapabilities, extra_params: Any, origins: Any) -> Iterator[Found]:
    """Every (Lux path, status, detail) the request needs beyond ``caps``, in document order."""
    yield from _own_capabilities(lux.get("capabilities"), caps)
    for index, tool in enumerate(lux.get("tools") or ()):
        yield from _level(caps.tool_calling, f"$.tools[{index}]", "a tool", "tool calling")
    for path in _side_car_lists(lux, "tools"):
        yield from _level(caps.tool_calling, path, "a tool", "tool calling")
    reasoning = lux.get("reasoning")
    if isinstance(reasoning, dict) and (reasoning.get("enabled") or any(key in reasoning for key in ("effort", "budget_tokens"))):
        yield from _level(caps.reasoning, "$.reasoning", "a reasoning configuration", "reasoning")
    output = (lux.get("options") or {}).get("structured_output")
    if isinstance(output, dict) and output.get("type") == "json_schema":
        yield from _level(caps.structured_output, "$.options.structured_output", "a JSON schema response format", "structured output")
    for path, modality, what in _media(lux, origins):
        if modality not in caps.input_modalities:
            yield path, "Unsupported", f"{what}: the model's input_modalities ({', '.join(caps.input_modalities)}) lack {modality}"
        else:
            yield from _level(caps.multimodal_input, path, what, "multimodal input")
    for path in _parallel_calls(lux):
        yield from _level(caps.parallel_tool_calls, path, "a tool call in a turn that has one already", "parallel tool calls")
    for path in _side_car_flags(lux, "parallel_tool_calls"):
        yield from _level(caps.parallel_tool_calls, path, "parallel tool calls asked for", "parallel tool calls")
    if extra_params is not msgspec.UNSET:
        for path, name in _provider_parameters(lux, origins):
            if name not in extra_params:
                yield path, "Unsupported", f"a provider parameter the model's extra_params do not declare ({len(extra_params)} declared)"


def _level(level: str, path: str, what: str, capability: str) -> Iterator[Found]:
    if level in _STATUS:
        yield path, _STATUS[level], f"{what}: the model's {capability} support is {level}"


def _own_capabilities(own: Any, caps: LucentCapabilities) -> Iterator[Found]:
    """The request's own ``capabilities`` declaration against the model's."""
    if not isinstance(own, dict):
        return
    for name in ("tool_calling", "parallel_tool_calls", "reasoning", "multimodal_input", "structured_output"):
        needed, offered = own.get(name), getattr(caps, name)
        if needed in _LEVELS and _LEVELS.index(needed) > _LEVELS.index(offered):
            yield f"$.capabilities.{name}", _STATUS[offered], f"the request needs {name} {needed}; the model's is {offered}"
    for name in ("input_modalities", "output_modalities"):
        offered_list = getattr(caps, name)
        for index, modality in enumerate(own.get(name) or ()):
            if modality not in offered_list:
                yield f"$.capabilities.{name}[{index}]", "Unsupported", f"the request needs this modality; the model's {name} lack it"


def _blocks(content: Any, path: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each content block at ``path[i]``, and the blocks of tool results inside it."""
    for index, block in enumerate(content if isinstance(content, list) else ()):
        if isinstance(block, dict):
            here = f"{path}[{index}]"
            yield here, block
            result = block.get("tool_result")
            if isinstance(result, dict):
                yield from _blocks(result.get("content"), f"{here}.tool_result.content")


def _media(lux: dict[str, Any], origins: Any) -> Iterator[tuple[str, str, str]]:
    """(Lux path, modality, what) of each image, audio and video block and each kept file."""
    places: list[tuple[Any, str]] = [(lux.get("instructions"), "$.instructions")]
    for index, item in enumerate(lux.get("conversation") or ()):
        if isinstance(item, dict):
            message, result = item.get("message"), item.get("tool_result")
            if isinstance(message, dict):
                places.append((message.get("content"), f"$.conversation[{index}].message.content"))
            if isinstance(result, dict):
                places.append((result.get("content"), f"$.conversation[{index}].tool_result.content"))
    for content, path in places:
        for here, block in _blocks(content, path):
            modality = _BLOCK_MODALITY.get(block.get("type", ""))
            if modality is not None:
                yield here, modality, f"an {modality} input" if modality != "video" else "a video input"
    for path, kept in _kept_parts(lux, origins):
        media_type = _file_media_type(kept)
        if media_type is not None:
            modality = _modality(media_type)
            yield path, modality, f"a file ({'a document' if modality == 'pdf' else modality})"


def _kept_parts(lux: dict[str, Any], origins: Any) -> Iterator[tuple[str, Any]]:
    """The parts a first hop kept verbatim for a message (Lux has no block for them): the
    ``{index, value|part}`` entries of the lists in ``extra.<format>.members[<message path>]``.
    Where the first hop recorded only the source list they came from (Chat's ``files``, Gemini's
    ``verbatim_parts``), the path is that list's item at the entry's ``index``, as ``=<path>``."""
    recorded = origins.paths() if origins is not None else {}
    for car_name, car in _cars(lux):
        members = car.get("members")
        for owner, kept in (members.items() if isinstance(members, dict) else ()):
            for list_name, entries in (kept.items() if isinstance(kept, dict) else ()):
                if not isinstance(entries, list):
                    continue
                base = member(member(member(member("$.extra", car_name), "members"), owner), list_name)
                for index, entry in enumerate(entries):
                    if isinstance(entry, dict) and "index" in entry and ("value" in entry or "part" in entry):
                        path = f"{base}[{index}]"
                        if path not in recorded and base in recorded and isinstance(entry["index"], int):
                            path = f"={recorded[base]}[{entry['index']}]"
                        yield path, entry.get("value", entry.get("part"))


def _cars(lux: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    extra = lux.get("extra")
    for name, car in (extra.items() if isinstance(extra, dict) else ()):
        if name in _SIDE_CARS and name != "media" and isinstance(car, dict):
            yield name, car


_DATA_URL = re.compile(r"^data:([^;,]+)[;,]")
_FILE_PARTS = {"document", "input_file", "file"}
"""The ``type`` of a kept part that is a file: Anthropic ``document``, Responses ``input_file``,
Chat ``file``; a Gemini part is a file by its ``inlineData`` / ``fileData``."""


def _file_media_type(part: Any) -> str | None:
    """The media type of a kept part that is a file, else None: the type the part states (a
    ``media_type``, a ``mimeType``, a data URL's), else the one of its file name's or URL's
    extension (``mimetypes``), else ``"application/pdf"`` (the file inputs that state no type
    take PDF)."""
    if not isinstance(part, dict):
        return None
    for name in ("inlineData", "fileData"):
        if isinstance(part.get(name), dict):
            return str(part[name].get("mimeType") or "application/pdf")
    if part.get("type") not in _FILE_PARTS:
        return None
    source: dict[str, Any] = part["source"] if isinstance(part.get("source"), dict) else {}
    if isinstance(source.get("media_type"), str):
        return str(source["media_type"])
    if source.get("type") in ("text", "content"):
        return "text/plain"
    file: dict[str, Any] = part["file"] if isinstance(part.get("file"), dict) else part
    data = file.get("file_data")
    found = _DATA_URL.match(data) if isinstance(data, str) else None
    if found:
        return found.group(1)
    import mimetypes

    for named in (file.get("filename"), file.get("file_url"), data):
        guessed = mimetypes.guess_type(named, strict=False)[0] if isinstance(named, str) else None
        if guessed:
            return guessed
    return "application/pdf"


def _modality(media_type: str) -> str:
    """The LucentModality a file of ``media_type`` needs: ``text/*`` text, ``image/*`` image,
    ``audio/*`` audio, ``video/*`` video, any other document ``pdf`` (Lux's one document modality)."""
    kind = media_type.split("/", 1)[0].lower()
    return kind if kind in ("text", "image", "audio", "video") else "pdf"


def _side_car_lists(lux: dict[str, Any], name: str) -> Iterator[str]:
    """The paths of the entries of a list ``extra.<format>.<name>`` (tools Lux has no form for)."""
    for car_name, car in _cars(lux):
        if isinstance(car.get(name), list):
            base = member(member("$.extra", car_name), name)
            yield from (f"{base}[{index}]" for index in range(len(car[name])))


def _side_car_flags(lux: dict[str, Any], name: str) -> Iterator[str]:
    for car_name, car in _cars(lux):
        if car.get(name) is True:
            yield member(member("$.extra", car_name), name)


def _parallel_calls(lux: dict[str, Any]) -> Iterator[str]:
    """Each tool call after the first of one turn: the calls of an assistant message, and the
    tool call items between two messages of another role (or tool results)."""
    calls = 0
    for index, item in enumerate(lux.get("conversation") or ()):
        if not isinstance(item, dict):
            continue
        if item.get("type") == "tool_call":
            calls += 1
            if calls > 1:
                yield f"$.conversation[{index}]"
        elif item.get("type") == "tool_result":
            calls = 0
        elif item.get("type") == "message":
            message = item["message"]
            if message.get("role") not in ("assistant", "model"):
                calls = 0
                continue
            for block_index, block in enumerate(message.get("content") or ()):
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    calls += 1
                    if calls > 1:
                        yield f"$.conversation[{index}].message.content[{block_index}]"


_TOP = re.compile(r'^\$(?:\.([A-Za-z_][A-Za-z0-9_]*)|\[("(?:[^"\\]|\\.)*")\])')


def _top_member(path: str) -> str | None:
    import json

    found = _TOP.match(path)
    if found is None:
        return None
    return found.group(1) if found.group(1) is not None else str(json.loads(found.group(2)))


def _provider_parameters(lux: dict[str, Any], origins: Any) -> Iterator[tuple[str, str]]:
    """(Lux path, name) of each provider parameter: for a request of another format, each of its
    top-level members (not null) whose only place in Lux is a side-car under ``extra`` (Lux has
    no field for it); for a Lux request, each ``extra`` member that is not one of lucent's
    side-cars."""
    extra = lux.get("extra")
    if origins is None:
        for name, value in (extra.items() if isinstance(extra, dict) else ()):
            if name not in _SIDE_CARS and value is not None:
                yield member("$.extra", name), name
        return
    mapped: set[str] = set()
    kept: dict[str, str] = {}
    for target, source in origins.paths().items():
        name = _top_member(source)
        if name is None:
            continue
        if target.startswith("$.extra.") or target.startswith('$.extra["'):
            kept.setdefault(name, target)
        elif target != "$":
            mapped.add(name)
    for name, target in kept.items():
        if name not in mapped and _value_at(lux, target) is not None:
            yield target, name


def _value_at(lux: dict[str, Any], path: str) -> Any:
    """The value of a side-car member ``$.extra.<car>.<name>`` (None when it is null or deeper)."""
    parts = path.split(".")
    if len(parts) != 4 or parts[0] != "$" or parts[1] != "extra":
        return True  # deeper or quoted: present
    car = (lux.get("extra") or {}).get(parts[2])
    return car.get(parts[3]) if isinstance(car, dict) else None
