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
import sys

from lucent.errors import LucentError

__all__ = ["add_preflight"]

_REQUEST_FORMATS = ["lux", "sparktide", "llm-sdk", "htmlp", "openai-chat", "openai-responses", "anthropic", "gemini"]


def add_preflight(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``preflight`` command to the CLI's subcommands."""
    command = commands.add_parser("preflight", help="check a request against a model's capability declaration")
    command.add_argument("--format", required=True, choices=_REQUEST_FORMATS, help="the request's format")
    command.add_argument("--model", required=True, metavar="NAME", help="the model the request goes to")
    command.add_argument("--discovery", default=None, metavar="FILE", help="a LucentDiscovery document (default: the one lucent ships)")
    command.add_argument("--strict", action="store_true", help="exit status 1 when a finding is Unsupported or Invalid")
    command.add_argument("file", metavar="FILE|-")
    command.set_defaults(run=_preflight)


def _preflight(args: argparse.Namespace) -> int:
    from lucent import capabilities
    from lucent.cli import _read, _shown, _text

    try:
        document = capabilities.discovery() if args.discovery is None else capabilities.load_discovery(_read(args.discovery))
    except OSError as exc:
        print(f"{_shown(args.discovery)}: cannot read: {exc.strerror}", file=sys.stderr)
        return 2
    except LucentError as exc:  # invalid_discovery: the configuration is wrong, not the request
        print(f"{_shown(args.discovery)}: {_text(exc.path)}: {_text(exc.message)} [{exc.code}]", file=sys.stderr)
        return 2
    try:
        declaration = capabilities.lookup(args.model, document)
    except LucentError as exc:
        print(f"lucent: --model: {_text(exc.message)} [{exc.code}]", file=sys.stderr)
        return 2
    try:
        data = _read(args.file)
    except OSError as exc:
        print(f"{_shown(args.file)}: cannot read: {exc.strerror}", file=sys.stderr)
        return 2
    found = capabilities.preflight(data, args.format, declaration)
    for diagnostic in found:
        detail = diagnostic.detail if isinstance(diagnostic.detail, str) else ""
        print(f"{diagnostic.status} {_text(diagnostic.field)}: {_text(detail)}")
    print(f"lucent: {len(found)} finding(s) for model_pattern {_text(declaration.model_pattern)} ({_text(declaration.provider)})", file=sys.stderr)
    if args.strict and any(d.status in ("Unsupported", "Invalid") for d in found):
        return 1
    return 3 if any(d.status == "Invalid" for d in found) else 0
