"""The shape of a generated converter, and the mapping that imports one when it is looked up.

generated/convert_registry.py (rendered by codegen from the mapping specs) holds the names:
(source, target, kind) -> (module of lucent.generated, function); its ``CONVERTERS`` is a
:class:`LazyConverters` over them, so importing the registry imports no converter.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from lucent._conversion import Origins
    from lucent.generated.lucent_diagnostics_v1 import ConversionDiagnostic

__all__ = ["Converter", "LazyConverters", "ToLux"]


class Converter(Protocol):
    """A generated converter: (source Struct, context, origins) -> (target value, diagnostics)."""

    def __call__(
        self, src: Any, context: Mapping[str, Any] | None = None, origins: dict[str, str] | Origins | None = None
    ) -> tuple[Any, list[ConversionDiagnostic]]: ...


class ToLux(Protocol):
    """A generated converter to Lux, which also keeps the source members its Structs do not
    hold (``unknown``: JSON path, steps, JSON value each) in the Lux side-car (lucent._unknown)."""

    def __call__(
        self,
        src: Any,
        context: Mapping[str, Any] | None = None,
        origins: dict[str, str] | Origins | None = None,
        unknown: Iterable[tuple[str, list[str | int], Any]] = (),
    ) -> tuple[Any, list[ConversionDiagnostic]]: ...


class LazyConverters(Mapping[tuple[str, str, str], Converter]):
    """A read-only mapping (source, target, kind) -> converter that imports a converter's module
    (``<package>.<module>``) the first time the converter is looked up; KeyError for a pair
    with no converter."""

    def __init__(self, names: dict[tuple[str, str, str], tuple[str, str]], package: str) -> None:
        self._names = names
        self._package = package
        self._loaded: dict[tuple[str, str, str], Converter] = {}

    def __getitem__(self, key: tuple[str, str, str]) -> Converter:
        converter = self._loaded.get(key)
        if converter is None:
            module, function = self._names[key]  # KeyError: no such converter
            converter = self._loaded[key] = getattr(importlib.import_module(f"{self._package}.{module}"), function)
        return converter

    def __contains__(self, key: object) -> bool:
        return key in self._names

    def __iter__(self) -> Iterator[tuple[str, str, str]]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)
