"""``lucent preflight``: what a request needs that a model cannot take (lucent.capabilities).

``lucent preflight --format F --model NAME [--discovery FILE] [--strict] FILE|-``
    Looks the model up in the discovery document (FILE, else the one lucent ships), checks the
    request against its declaration and prints one line per finding on stdout
    (``STATUS FIELD: DETAIL``), then ``lucent: N finding(s) for model_pattern P (provider)`` on
    stderr. Exit status, as for ``convert``: 0 done; 1 the request is invalid or another lucent
    error, or with ``--strict`` a finding is Unsupported or Invalid; 2 a usage or file error (an
    unknown format, a model no pattern matches: ``unknown_model``, a discovery document that
    cannot be read or breaks ``LucentDiscovery``: ``invalid_discovery``); 3 the request breaks
    a protocol rule of its format (an Invalid diagnostic).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from lucent._limits import DEFAULT_MAX_BODY_BYTES
from lucent.errors import LucentError
from lucent.formats import FORMATS as _REGISTRY

if TYPE_CHECKING:
    from lucent.cli import _Console

__all__ = ["add_preflight"]

_REQUEST_FORMATS = [name for name, f in _REGISTRY.items() if "request" in f.kinds]


def add_preflight(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``preflight`` command to the CLI's subcommands."""
    from lucent.cli import _BODY_HELP, _limit_options

    command = commands.add_parser("preflight", help="check a request against a model's capability declaration", parents=[_limit_options(
        body=_BODY_HELP + "the format's protocol cap (SparkTide 1 MiB), else 32 MiB", stream=None)])
    command.add_argument("--format", required=True, choices=_REQUEST_FORMATS, help="the request's format")
    command.add_argument("--model", required=True, metavar="NAME", help="the model the request goes to")
    command.add_argument("--discovery", default=None, metavar="FILE", help="a LucentDiscovery document (default: the one lucent ships)")
    command.add_argument("--strict", action="store_true", help="exit status 1 when a finding is Unsupported or Invalid")
    command.add_argument("file", metavar="FILE|-")
    command.set_defaults(run=_preflight)


def _preflight(args: argparse.Namespace, console: _Console) -> int:
    from lucent import capabilities
    from lucent._decode import schema_module
    from lucent._convert import FORMATS
    from lucent.cli import _cannot_read, _limits, _read, _shown, _text, _Unusable

    try:
        if args.discovery is None:
            document = capabilities.discovery()
        else:
            document = capabilities.load_discovery(_read(args.discovery, DEFAULT_MAX_BODY_BYTES, console))
    except (OSError, MemoryError, _Unusable) as exc:
        return _cannot_read(args.discovery, exc, console)
    except LucentError as exc:  # invalid_discovery: the configuration is wrong, not the request
        console.err(f"{_shown(args.discovery)}: {_text(exc.path)}: {_text(exc.message)} [{exc.code}]")
        return 2
    try:
        declaration = capabilities.lookup(args.model, document)
    except LucentError as exc:
        console.err(f"lucent: --model: {_text(exc.message)} [{exc.code}]")
        return 2
    limits = _limits(args)
    try:
        data = _read(args.file, limits.body_bytes(getattr(schema_module(FORMATS[args.format]), "PROTOCOL", {})), console)
    except (OSError, MemoryError, _Unusable) as exc:
        return _cannot_read(args.file, exc, console)
    found = capabilities.preflight(data, args.format, declaration, limits=limits)
    for diagnostic in found:
        detail = diagnostic.detail if isinstance(diagnostic.detail, str) else ""
        console.line(f"{diagnostic.status} {_text(diagnostic.field)}: {_text(detail)}")
    console.err(f"lucent: {len(found)} finding(s) for model_pattern {_text(declaration.model_pattern)} ({_text(declaration.provider)})")
    if args.strict and any(d.status in ("Unsupported", "Invalid") for d in found):
        return 1
    return 3 if any(d.status == "Invalid" for d in found) else 0
