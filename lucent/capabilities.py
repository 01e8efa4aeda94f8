"""Capability declarations: what a model can do, found by its name, and the pre-flight check of a
request against it.

A declaration is the Lux schema's ``LucentCapabilities`` (schemas/lux-ir-v1.json
``#/definitions/LucentCapabilities``): ``tool_calling``, ``parallel_tool_calls``, ``reasoning``,
``multimodal_input`` and ``structured_output``, each ``full`` / ``partial`` / ``none`` (the
design note's Full / Partial / Absent), and the ``input_modalities`` / ``output_modalities``
lists. A ``ProviderCapability`` gives one to the models a ``model_pattern`` matches, with the
provider parameters they take (``extra_params``); a ``LucentDiscovery`` document lists them.

lucent ships a discovery document for the model families of the four vendor formats (OpenAI
Chat Completions and Responses, Anthropic Messages, Gemini), from the vendors' published
documentation (docs/capabilities.md names the page of each entry): :func:`discovery`.

* :func:`lookup` finds the declaration of a model name (the most specific pattern wins);
* :func:`preflight` lists what a request needs that a declaration lacks;
* ``lucent.convert(..., capabilities=...)`` runs the same check during a conversion;
* ``lucent preflight --format F --model NAME [--discovery FILE] FILE`` on the command line.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Mapping
from typing import Any

import msgspec

from lucent._decode import decode, encode
from lucent._limits import Limits
from lucent.errors import LucentError, UsageError, ValidationError
from lucent.generated.lucent_diagnostics_v1 import ConversionDiagnostic
from lucent.generated.lux_ir_v1 import LucentCapabilities, LucentDiscovery, ProviderCapability

__all__ = ["DISCOVERY_PATH", "LucentCapabilities", "LucentDiscovery", "ProviderCapability", "discovery", "load_discovery", "lookup", "preflight"]

DISCOVERY_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "discovery-v1.json")
"""The discovery document lucent ships (``lucent/data/discovery-v1.json``)."""

_SHIPPED: LucentDiscovery | None = None


def discovery() -> LucentDiscovery:
    """The discovery document lucent ships, validated against ``LucentDiscovery`` (read once)."""
    global _SHIPPED
    if _SHIPPED is None:
        with open(DISCOVERY_PATH, "rb") as file:
            _SHIPPED = load_discovery(file.read())
    return _SHIPPED


def load_discovery(data: Any) -> LucentDiscovery:
    """A user's discovery document, checked against ``LucentDiscovery``.

    Parameters
    ----------
    data : bytes, str, LucentDiscovery or JSON value
        The document (JSON text, or its value).

    Returns
    -------
    LucentDiscovery

    Raises
    ------
    ValidationError
        ``invalid_discovery``: not JSON, or the document breaks ``LucentDiscovery`` (``.path``
        the fault, the JSON Schema keyword in the message), or two providers have the same
        ``model_pattern`` (``.path`` the second one), or a pattern is empty.
    """
    try:
        if isinstance(data, msgspec.Struct) or not isinstance(data, (bytes, bytearray, memoryview, str)):
            data = encode(data)
        document: LucentDiscovery = decode(data, "lux-ir-v1", "LucentDiscovery")
    except LucentError as fault:
        raise ValidationError(f"not a LucentDiscovery document: {fault.message} ({fault.code})", code="invalid_discovery", path=fault.path) from None
    seen: set[str] = set()
    for index, provider in enumerate(document.providers):
        path = f"$.providers[{index}].model_pattern"
        if not provider.model_pattern:
            raise ValidationError("a model_pattern is a non-empty pattern", code="invalid_discovery", path=path)
        if provider.model_pattern in seen:
            raise ValidationError("two providers have this model_pattern: which one a model has would be a guess", code="invalid_discovery", path=path)
        seen.add(provider.model_pattern)
    return document


def lookup(model: str, document: LucentDiscovery | None = None) -> ProviderCapability:
    """The declaration of ``model``: the provider whose ``model_pattern`` matches it and is the
    most specific.

    A pattern is a shell-style wildcard (``fnmatch``, case-sensitive, the whole name): ``*`` any
    characters, ``?`` one, ``[seq]`` one of ``seq``. The most specific match has the most literal
    characters (``gpt-4o-2024-05-13`` beats ``gpt-4o*``, which beats ``gpt-*``); of two with as
    many, the earlier in the document.

    Parameters
    ----------
    model : str
        The model name, as the request or the route names it.
    document : LucentDiscovery, optional
        Default: the shipped document (:func:`discovery`).

    Raises
    ------
    UsageError
        ``unknown_model``: no pattern matches (there is no guess; add an entry to your own
        document); ``invalid_input_type``: ``model`` is not a str or ``document`` not a
        ``LucentDiscovery``.
    """
    if not isinstance(model, str):
        raise UsageError(f"a model name is a str, not {type(model).__name__}", code="invalid_input_type")
    if document is None:
        document = discovery()
    elif not isinstance(document, LucentDiscovery):
        raise UsageError(f"document is a LucentDiscovery (load_discovery), not {type(document).__name__}", code="invalid_input_type")
    best: ProviderCapability | None = None
    best_literal = -1
    for provider in document.providers:
        if fnmatch.fnmatchcase(model, provider.model_pattern):
            literal = _literal_characters(provider.model_pattern)
            if literal > best_literal:
                best, best_literal = provider, literal
    if best is None:
        raise UsageError("no model_pattern of the discovery document matches this model", code="unknown_model", path="$.model")
    return best


def _literal_characters(pattern: str) -> int:
    """How many characters of ``pattern`` match only themselves (a ``[seq]`` counts as none)."""
    count, index = 0, 0
    while index < len(pattern):
        char = pattern[index]
        if char == "[":
            end = pattern.find("]", index + 2)
            if end != -1:
                index = end + 1
                continue
        if char not in "*?":
            count += 1
        index += 1
    return count


def preflight(
    document: Any,
    format: str,
    capabilities: LucentCapabilities | ProviderCapability,
    *,
    context: Mapping[str, Any] | None = None,
    limits: Limits | None = None,
) -> list[ConversionDiagnostic]:
    """What a request needs that the model's declaration lacks, each at its path in the request.

    Parameters
    ----------
    document : bytes, str, Struct or JSON value
        A request of ``format`` (as :func:`lucent.convert` takes it).
    format : str
        Its format (``lux``, ``sparktide``, ``llm-sdk``, ``htmlp``, ``openai-chat``,
        ``openai-responses``, ``anthropic``, ``gemini``).
    capabilities : LucentCapabilities or ProviderCapability
        The model's declaration (:func:`lookup`); a ``ProviderCapability``'s ``extra_params``,
        when it has them, are checked too.
    context, limits
        As for :func:`lucent.convert`.

    Returns
    -------
    list[ConversionDiagnostic]
        In document order, each ``field`` a JSON path in ``document``: Unsupported where the
        declaration says ``none`` or lacks a modality, Degraded where it says ``partial``, for

        * an image, audio or video block, or a file (Lux modality ``pdf`` for a document,
          ``text`` for a text file), whose modality ``input_modalities`` lacks, or any of them
          when ``multimodal_input`` is ``none`` / ``partial``;
        * each tool when ``tool_calling`` is;
        * each tool call after the first of a turn (an assistant message's calls, or the call
          items between two other messages), and a ``parallel_tool_calls: true`` asked for, when
          ``parallel_tool_calls`` is;
        * a reasoning configuration (``reasoning.enabled``) when ``reasoning`` is;
        * a JSON schema response format when ``structured_output`` is;
        * each level and modality of the request's own ``capabilities`` (Lux) above the model's;
        * each provider parameter (a top-level member Lux has no field for, kept in a side-car;
          for a Lux request, an ``extra`` member that is not a lucent side-car) that
          ``extra_params`` does not name, when the declaration has ``extra_params``;

        and an Invalid diagnostic for each protocol rule the document breaks (as convert).
        Empty: the model can take the request.

    Raises
    ------
    ValidationError, DecodeError
        The document breaks its schema, or is not JSON (as :func:`lucent.convert`).
    UsageError
        ``invalid_capabilities``; ``unknown_format``, ``unsupported_conversion``,
        ``invalid_input_type`` (as :func:`lucent.convert`).
    """
    from lucent._preflight import check

    return check(document, format, capabilities, context, limits)
