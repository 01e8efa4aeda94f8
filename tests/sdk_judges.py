"""The vendors' own SDKs as judges of every corpus conversion (issue 16, points 2 and 3).

Every recording of the corpus (:func:`corpus`: the lingua snapshots of tests/data/lingua, kinds
request, response and stream, as tests/diagnostics_census.py walks them, and the shared corpus'
SparkTide requests and documented stream) is converted to every vendor format with
``lucent.convert`` / ``lucent.streams.convert_stream``, giving each conversion the context keys
it reads (``lucent._context.read_by`` of :data:`tests.diagnostics_census.OFFERED`). The output
is parsed by the target vendor's SDK (:func:`judge`):

* openai-chat: ``ChatCompletion``; a stream's chunks ``ChatCompletionChunk``, accumulated by
  ``ChatCompletionStreamState`` (its snapshot: ``get_final_completion`` refuses any completion
  that ended by length or content filter), the result read again as a ``ChatCompletion``;
  a request ``CompletionCreateParams``;
* openai-responses: ``Response``; a stream's events the ``ResponseStreamEvent`` member their
  ``type`` names, accumulated by ``ResponseStreamState`` (what ``responses.stream`` uses); a
  request ``ResponseCreateParams``;
* anthropic: ``Message``; a stream's events ``RawMessageStreamEvent``, accumulated by the SDK's
  ``accumulate_event``; a request ``MessageCreateParams``;
* gemini: ``types.GenerateContentResponse`` (``model_validate``: google-genai forbids members it
  does not model); a stream's chunks each one; a request's ``contents`` ``list[types.Content]``
  and its other members ``types.GenerateContentConfig``.

The openai and anthropic models are validated with ``strict=True``. Their request params are
TypedDicts, validated with a pydantic ``TypeAdapter`` (strict): their ``Iterable`` members are
validated lazily by pydantic (:func:`materialize` consumes them) and in lax mode. google-genai's
models use enums, which strict validation refuses as JSON strings: they are validated in lax mode.

Besides a refusal, a judge reports the members the SDK does not model (:class:`Verdict`
``unmodeled``): openai and anthropic keep them as extras, a request TypedDict drops them
(google-genai refuses them). Then the SDK's parsed value and lucent's are compared on their key
fields (:func:`keys`: ids, finish / stop reason, text, tool-call names and arguments, usage);
lucent's value of a stream is ``streams.assemble`` of its events (Gemini's: each chunk).

A failure is *the recording's own* when the recording, judged by its own format's SDK, fails the
same way (same kind of error at the same place, :func:`signature`): the vendor's API wrote it, and
lucent gives it back (:func:`recorded_failures`; NOTES.md lists them). Every other failure is
lucent's, or the SDK's where it is stricter than the vendor's spec
(tests/test_vendor_sdk_judges.py ``SDK_STRICTER``).

``python -m tests.sdk_judges`` prints the conversions judged and the failures by class
(target, kind, error, SDK field); ``--kind K`` / ``--format X`` (repeatable) select, ``-v`` shows
an example of each class.
"""

from __future__ import annotations

import argparse
import enum
import json
import re
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from tests.diagnostics_census import KINDS, OFFERED, VENDORS, Case, cases

HERE = Path(__file__).resolve().parent
SHARED = HERE.parents[1] / "shared" / "corpus"

# ------------------------------------------------------------------ the corpus
def _sparktide() -> list[Case]:
    """The shared corpus' SparkTide requests that the schema accepts, and the documentation's
    request and stream (what converts to a vendor format)."""
    found: list[Case] = []
    requests = SHARED / "sparktide-derived" / "requests"
    if (requests / "INDEX.json").is_file():
        for entry in json.loads((requests / "INDEX.json").read_text(encoding="utf-8")):
            if entry["schema_valid"]:
                found.append(Case(f"sparktide-derived/{entry['file']}", "sparktide", "request", json.loads((requests / entry["file"]).read_bytes())))
    docs = HERE / "data" / "sparktide-docs"
    found.append(Case("sparktide-docs/request.json", "sparktide", "request", json.loads((docs / "request.json").read_bytes())))
    from lucent import streams

    events = [_to_json(e) for e in streams.iter_events((docs / "stream.sse").read_bytes(), "sparktide")]
    found.append(Case("sparktide-docs/stream.sse", "sparktide", "stream", events))
    return found


def corpus(kinds: tuple[str, ...] = KINDS, formats: tuple[str, ...] = (*VENDORS, "sparktide")) -> list[Case]:
    found = [case for fmt in VENDORS if fmt in formats for kind in kinds for case in cases(fmt, kind)]
    if "sparktide" in formats:
        found += [case for case in _sparktide() if case.kind in kinds]
    return found


# ------------------------------------------------------------------ converting
def _to_json(value: Any) -> Any:
    import lucent
    import msgspec

    return json.loads(lucent.encode(value)) if isinstance(value, msgspec.Struct) else msgspec.to_builtins(value)


def convert(case: Case, target: str) -> tuple[Any, Any]:
    """(The output as JSON, lucent's value to compare: the output, or a stream assembled)."""
    import lucent
    from lucent import streams
    from lucent._context import read_by
    from lucent.errors import StreamError

    context = read_by(OFFERED, case.format, target, case.kind)
    if case.kind == "stream":
        events = json.loads(lucent.encode(list(streams.convert_stream(case.value, case.format, target, context=context))))
        if target == "gemini":
            return events, events
        try:
            return events, _to_json(streams.assemble(events, target))
        except StreamError as e:
            if e.code != "model_error":
                raise
            # a Responses stream that ends failed or incomplete: its last event's Response
            return events, events[-1].get("response") if target == "openai-responses" else None
    output = _to_json(lucent.convert(case.value, case.format, target, case.kind, context=context).value)
    return output, output


# ------------------------------------------------------------------ the judges
@dataclass
class Verdict:
    parsed: Any  # what the SDK made of it: a model, a TypedDict's dict, a list of chunks
    unmodeled: list[str] = field(default_factory=list)  # JSON paths of members the SDK does not model


class Refused(Exception):
    """The SDK refused the output: ``errors`` as pydantic gives them (``loc`` from the document)."""

    def __init__(self, errors: list[dict[str, Any]]) -> None:
        super().__init__(errors)
        self.errors = errors


@cache
def _adapter(tp: Any) -> Any:
    from pydantic import TypeAdapter

    return TypeAdapter(tp)


@cache
def _event_classes(union: Any) -> dict[str, Any]:
    """A discriminated union's members by their ``type`` literal (openai's and anthropic's
    unions name their discriminator only for their own ``construct``, so pydantic would try
    every member)."""
    import typing

    members = typing.get_args(union)
    if len(members) == 2 and not isinstance(members[1], type):  # Annotated[Union[...], PropertyInfo]
        members = typing.get_args(members[0])
    return {typing.get_args(m.model_fields["type"].annotation)[0]: m for m in members}


def materialize(value: Any, path: tuple[Any, ...] = ()) -> Any:
    """A validated TypedDict with its lazily validated ``Iterable`` members (pydantic's
    ValidatorIterator) consumed, so that their items are validated too."""
    from pydantic import ValidationError

    if isinstance(value, dict):
        return {k: materialize(v, (*path, k)) for k, v in value.items()}
    if isinstance(value, list):
        return [materialize(v, (*path, i)) for i, v in enumerate(value)]
    if type(value).__name__ == "ValidatorIterator":
        out: list[Any] = []
        try:
            for item in value:
                out.append(materialize(item, (*path, len(out))))
        except ValidationError as e:
            raise Refused([{**err, "loc": (*path, len(out), *err["loc"])} for err in e.errors()]) from None
        return out
    return value


def _validate(validate: Any, value: Any, at: tuple[Any, ...] = ()) -> Any:
    from pydantic import ValidationError

    try:
        return validate(value)
    except ValidationError as e:
        raise Refused([{**err, "loc": (*at, *err["loc"])} for err in e.errors()]) from None


def _extras(model: Any, path: str, out: list[str]) -> None:
    """The paths of the members an openai / anthropic model keeps as extras, all the way down."""
    from pydantic import BaseModel

    def walk(node: Any, at: tuple[Any, ...]) -> None:
        if isinstance(node, BaseModel):
            for name in node.__pydantic_extra__ or ():
                out.append(path + "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in (*at, name)))
            for name, value in vars(node).items():
                if isinstance(value, (BaseModel, list)):
                    walk(value, (*at, name))
        elif isinstance(node, list):
            for i, item in enumerate(node):
                if isinstance(item, (BaseModel, list)):
                    walk(item, (*at, i))

    walk(model, ())


def _dropped(given: Any, kept: Any, path: str, out: list[str], changed: list[str]) -> None:
    """The paths of the members a TypedDict's validation left out (``extra="ignore"``), and of
    the values it changed (``changed``)."""
    if isinstance(given, dict) and isinstance(kept, dict):
        for name, value in given.items():
            if name not in kept:
                out.append(f"{path}.{name}")
            else:
                _dropped(value, kept[name], f"{path}.{name}", out, changed)
    elif isinstance(given, list) and isinstance(kept, list):
        if len(given) != len(kept):
            changed.append(path)
        for i, (a, b) in enumerate(zip(given, kept)):
            _dropped(a, b, f"{path}[{i}]", out, changed)
    elif given != kept or (type(given) is not type(kept) and not {type(given), type(kept)} <= {int, float}):
        changed.append(path)  # 1 read as 1.0 is one JSON number


def _params(tp: Any, output: Any) -> Verdict:
    kept = materialize(_validate(lambda v: _adapter(tp).validate_python(v, strict=True), output))
    verdict = Verdict(kept)
    changed: list[str] = []
    _dropped(output, kept, "$", verdict.unmodeled, changed)
    if changed:
        raise Refused([{"type": "value_changed", "loc": tuple(_steps(p)), "msg": "the SDK's type reads another value"} for p in changed])
    return verdict


def _steps(path: str) -> list[Any]:
    return [int(s) if s.isdigit() else s for s in re.findall(r"[^.\[\]$]+", path)]


def _model(cls: Any, value: Any, path: str = "$", strict: bool = True, at: tuple[Any, ...] = ()) -> tuple[Any, list[str]]:
    parsed = _validate(lambda v: cls.model_validate(v, strict=strict), value, at)
    extras: list[str] = []
    _extras(parsed, path, extras)
    return parsed, extras


def judge(target: str, kind: str, output: Any) -> Verdict:
    """The target SDK's reading of ``output`` (JSON); raises :class:`Refused` (or the SDK's own
    error, from its stream helper) when the SDK does not accept it."""
    if target == "openai-chat":
        from openai.types.chat import ChatCompletion, ChatCompletionChunk, completion_create_params

        if kind == "response":
            return Verdict(*_model(ChatCompletion, output))
        if kind == "stream":
            from openai.lib.streaming.chat import ChatCompletionStreamState

            state, extras = ChatCompletionStreamState(), []
            for i, event in enumerate(output):
                chunk, more = _model(ChatCompletionChunk, event, f"$[{i}]", at=(i,))
                extras += more
                state.handle_chunk(chunk)
            snapshot = state.current_completion_snapshot.model_dump(mode="json", exclude_unset=True)
            return Verdict(_model(ChatCompletion, snapshot, at=("accumulated",))[0], extras)
        tp = completion_create_params.CompletionCreateParamsStreaming if output.get("stream") else completion_create_params.CompletionCreateParamsNonStreaming
        return _params(tp, output)
    if target == "openai-responses":
        from openai.types.responses import Response, ResponseStreamEvent, response_create_params

        if kind == "response":
            return Verdict(*_model(Response, output))
        if kind == "stream":
            from openai._types import omit
            from openai.lib.streaming.responses._responses import ResponseStreamState

            state, extras, last = ResponseStreamState(input_tools=omit, text_format=omit), [], None
            classes = _event_classes(ResponseStreamEvent)
            for i, event in enumerate(output):
                if event.get("type") not in classes:
                    raise Refused([{"type": "unknown_event", "loc": (i, "type"), "msg": f"no event type {event.get('type')!r}"}])
                parsed, more = _model(classes[event["type"]], event, f"$[{i}]", at=(i,))
                extras += more
                for handled in state.handle_event(parsed):
                    last = getattr(handled, "response", last)
            # get_final_response gives a completed stream's Response and raises for one that
            # ended failed or incomplete: its last lifecycle event's Response, output restored
            return Verdict(state._completed_response or last, extras)
        tp = response_create_params.ResponseCreateParamsStreaming if output.get("stream") else response_create_params.ResponseCreateParamsNonStreaming
        return _params(tp, output)
    if target == "anthropic":
        from anthropic.types import Message, RawMessageStreamEvent, message_create_params

        if kind == "response":
            return Verdict(*_model(Message, output))
        if kind == "stream":
            from anthropic.lib.streaming._messages import accumulate_event

            snapshot, bufs, extras = None, {}, []
            classes = _event_classes(RawMessageStreamEvent)
            for i, event in enumerate(output):
                if event.get("type") not in classes:
                    raise Refused([{"type": "unknown_event", "loc": (i, "type"), "msg": f"no event type {event.get('type')!r}"}])
                parsed, more = _model(classes[event["type"]], event, f"$[{i}]", at=(i,))
                extras += more
                snapshot = accumulate_event(event=parsed, current_snapshot=snapshot, json_bufs=bufs)
            return Verdict(snapshot, extras)
        tp = message_create_params.MessageCreateParamsStreaming if output.get("stream") else message_create_params.MessageCreateParamsNonStreaming
        return _params(tp, output)
    from google.genai import types

    if kind == "response":
        return Verdict(_model(types.GenerateContentResponse, output, strict=False)[0])
    if kind == "stream":
        return Verdict([_model(types.GenerateContentResponse, e, strict=False, at=(i,))[0] for i, e in enumerate(output)])
    config = {k: v for k, v in output.items() if k not in ("contents", "generationConfig", "model")}
    config.update(output.get("generationConfig", {}))
    contents = _validate(_adapter(list[types.Content]).validate_python, output.get("contents", []), ("contents",))
    return Verdict((contents, _validate(types.GenerateContentConfig.model_validate, config, ("config",))))


# ------------------------------------------------------------------ key fields
_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


def _g(node: Any, name: str) -> Any:
    """``node[name]`` of lucent's JSON, or the SDK model's attribute of that member (snake_case
    for google-genai); an enum as its value."""
    if node is None:
        return None
    if isinstance(node, dict):
        return node.get(name)
    value = getattr(node, name, None)
    if value is None and name != name.lower():
        value = getattr(node, _CAMEL.sub("_", name).lower(), None)
    return value.value if isinstance(value, enum.Enum) else value


def _args(text: Any) -> Any:
    """Tool-call arguments as a JSON value (JSON text of an equal value is the same arguments)."""
    try:
        return json.loads(text) if isinstance(text, str) else text
    except ValueError:
        return text


def _items(node: Any, name: str) -> list[Any]:
    return list(_g(node, name) or [])


def keys(target: str, kind: str, value: Any) -> Any:
    """The key fields of a value of ``target``'s format: lucent's (JSON) or the SDK's (a model)."""
    if kind == "request":
        return None  # a request's key fields are all its members: :func:`judge` checks that the SDK's types keep each, unchanged
    if target == "openai-chat":
        usage = _g(value, "usage")
        return {
            "id": _g(value, "id"),
            "model": _g(value, "model"),
            "choices": [
                {
                    "finish_reason": _g(c, "finish_reason"),
                    "content": _g(_g(c, "message"), "content"),
                    "refusal": _g(_g(c, "message"), "refusal"),
                    "tool_calls": [
                        (_g(t, "id"), _g(t, "type"), _g(_g(t, "function"), "name"), _args(_g(_g(t, "function"), "arguments")), _g(_g(t, "custom"), "input"))
                        for t in _items(_g(c, "message"), "tool_calls")
                    ],
                }
                for c in _items(value, "choices")
            ],
            "usage": usage and [_g(usage, n) for n in ("prompt_tokens", "completion_tokens", "total_tokens")],
        }
    if target == "openai-responses":
        usage = _g(value, "usage")
        return {
            "id": _g(value, "id"),
            "model": _g(value, "model"),
            "status": _g(value, "status"),
            "incomplete": _g(_g(value, "incomplete_details"), "reason"),
            "output": [
                (
                    _g(item, "type"),
                    _g(item, "call_id"),
                    _g(item, "name"),
                    _args(_g(item, "arguments")),
                    _g(item, "input"),
                    [(_g(p, "type"), _g(p, "text"), _g(p, "refusal")) for p in _items(item, "content")],
                )
                for item in _items(value, "output")
            ],
            "usage": usage and [_g(usage, n) for n in ("input_tokens", "output_tokens", "total_tokens")],
        }
    if target == "anthropic":
        usage = _g(value, "usage")
        return {
            "id": _g(value, "id"),
            "model": _g(value, "model"),
            "stop_reason": _g(value, "stop_reason"),
            "stop_sequence": _g(value, "stop_sequence"),
            "content": [
                (_g(b, "type"), _g(b, "text"), _g(b, "thinking"), _g(b, "id"), _g(b, "name"), _g(b, "input"))
                for b in _items(value, "content")
            ],
            "usage": usage and [_g(usage, n) for n in ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")],
        }
    if kind == "stream":
        return [keys(target, "response", chunk) for chunk in value]
    usage = _g(value, "usageMetadata")
    return {
        "id": _g(value, "responseId"),
        "model": _g(value, "modelVersion"),
        "candidates": [
            {
                "finish": _g(c, "finishReason"),
                "parts": [
                    (_g(p, "text"), _g(p, "thought"), _g(_g(p, "functionCall"), "name"), _g(_g(p, "functionCall"), "args"))
                    for p in _items(_g(c, "content"), "parts")
                ],
            }
            for c in _items(value, "candidates")
        ],
        "usage": usage and [_g(usage, n) for n in ("promptTokenCount", "candidatesTokenCount", "totalTokenCount", "thoughtsTokenCount")],
    }


# ------------------------------------------------------------------ a conversion's findings
def _loc(loc: tuple[Any, ...]) -> str:
    """A pydantic ``loc`` without indexes and union-member names (``choices.message.role``)."""
    return ".".join(str(x) for x in loc if isinstance(x, str) and not (x[:1].isupper() or x.startswith(("list[", "union[", "function-"))))


def collapse(errors: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A union's errors without those of the members whose ``type`` literal the value does not name."""
    rejected = {tuple(err["loc"][:-1]) for err in errors if err["type"] == "literal_error" and err["loc"] and err["loc"][-1] == "type"}
    kept = [err for err in errors if not any(tuple(err["loc"][: len(r)]) == r for r in rejected)]
    return kept or errors


def signature(target: str, error: BaseException | dict[str, Any]) -> str:
    """A failure's class: the target, the error's kind and the SDK field (no indexes)."""
    if isinstance(error, dict):
        return f"{target} {error['type']} {_loc(tuple(error['loc']))}"
    return f"{target} {type(error).__name__}: {re.sub(r'[0-9]+', 'N', str(error))[:100]}"


@dataclass
class Finding:
    case: Case
    target: str
    signature: str
    detail: str


def findings(case: Case, target: str) -> Iterator[Finding]:
    """What is wrong with ``case`` converted to ``target`` in the SDK's eyes: refusals (each a
    class), members the SDK does not model, key fields that differ; a conversion to the
    recording's own format may give back the recording's own failures (:func:`recorded_failures`)."""
    output, lucent_value = convert(case, target)

    class _Recorded:  # the recording's own failures, judged only when needed
        def __contains__(self, sig: str) -> bool:
            return sig in recorded_failures(case)

    recorded = _Recorded()
    try:
        verdict = judge(target, case.kind, output)
    except Refused as e:
        for err in collapse(e.errors):
            sig = signature(target, err)
            if not (target == case.format and sig in recorded):
                yield Finding(case, target, sig, f"{list(err['loc'])}: {err['msg']} (input {str(err.get('input'))[:120]})")
        return
    except Exception as e:  # the SDK's stream helper raised
        yield Finding(case, target, signature(target, e), repr(e)[:300])
        return
    for path in verdict.unmodeled:
        sig = _unmodeled(target, path)
        if not (target == case.format and sig in recorded):
            yield Finding(case, target, sig, path)
    want, got = keys(target, case.kind, lucent_value), keys(target, case.kind, verdict.parsed)
    if lucent_value is not None and want != got:
        yield Finding(case, target, f"{target} {case.kind} key fields differ", f"lucent {json.dumps(want, default=str)[:400]}\n   sdk {json.dumps(got, default=str)[:400]}")


def _unmodeled(target: str, path: str) -> str:
    return f"{target} unmodeled " + re.sub(r"\[[0-9]+\]", "", path)


_RECORDED_CACHE: dict[tuple[str, str], frozenset[str]] = {}


def recorded_failures(case: Case) -> frozenset[str]:
    key = (case.file, case.kind)
    if key not in _RECORDED_CACHE:
        _RECORDED_CACHE[key] = _recorded_failures(case)
    return _RECORDED_CACHE[key]


def _recorded_failures(case: Case) -> frozenset[str]:
    """The signatures of a recording's failures in its own format's SDK (none for SparkTide)."""
    if case.format not in VENDORS:
        return frozenset()
    try:
        verdict = judge(case.format, case.kind, case.value)
    except Refused as e:
        return frozenset(signature(case.format, err) for err in collapse(e.errors))
    except Exception as e:
        return frozenset({signature(case.format, e)})
    return frozenset(_unmodeled(case.format, p) for p in verdict.unmodeled)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kind", action="append", choices=KINDS)
    parser.add_argument("--format", action="append", choices=(*VENDORS, "sparktide"))
    parser.add_argument("--target", action="append", choices=VENDORS)
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    started = time.process_time()
    selected = corpus(tuple(args.kind or KINDS), tuple(args.format or (*VENDORS, "sparktide")))
    classes: Counter[str] = Counter()
    example: dict[str, Finding] = {}
    own: Counter[str] = Counter()
    n = 0
    for case in selected:
        own.update(recorded_failures(case))
        for target in args.target or VENDORS:
            n += 1
            for finding in findings(case, target):
                classes[f"{case.kind}: {finding.signature}"] += 1
                example.setdefault(f"{case.kind}: {finding.signature}", finding)
    print(f"{n} conversions judged, {sum(classes.values())} failures in {len(classes)} classes ({time.process_time() - started:.1f} s CPU)")
    for sig, count in sorted(classes.items()):
        print(f"{count:5d}  {sig}")
        if args.verbose:
            f = example[sig]
            print(f"       e.g. {f.case.file} -> {f.target}: {f.detail}")
    if own:
        print("the recordings' own failures in their SDK (given back by a conversion to their format):")
        for sig, count in sorted(own.items()):
            print(f"{count:5d}  {sig}")
    return 1 if classes else 0


if __name__ == "__main__":
    sys.exit(main())
