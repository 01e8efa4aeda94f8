"""``lucent serve --config gateway.toml [--host 127.0.0.1] [--port 8080]``: the gateway under uvicorn.

Exit statuses: 0 stopped; 1 the store cannot be opened or reached (``store_unavailable``,
checked before uvicorn starts); 2 a usage error (``invalid_config``, ``missing_dependency``).
Each is one line on stderr, ``lucent: PATH: MESSAGE [CODE]`` (the JSON path in the
configuration, or the file), never a key. Logging: ``logging.basicConfig`` at ``--log-level``,
with the ``httpx`` and ``httpcore`` loggers at WARNING, so that the log holds only the gateway's
JSON lines; an app mounted with ``create_app`` leaves logging to its host.
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["add_serve"]


def add_serve(commands: Any) -> None:
    """Add the ``serve`` subcommand to the CLI's subparsers."""
    serve = commands.add_parser("serve", help="run the gateway (pip install 'lucent[server]')")
    serve.add_argument("--config", required=True, metavar="TOML", help="the gateway configuration (lucent.server._config)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8080, help="port (default 8080; 0: any free port)")
    serve.add_argument("--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"])
    serve.set_defaults(run=_serve)


def _serve(args: argparse.Namespace, console: Any) -> int:
    import logging

    from lucent.server import create_app, load_config, require

    require()
    import uvicorn

    config = load_config(args.config)
    _check_store(config.store)  # a store that cannot be opened is one line on stderr, not a traceback
    app = create_app(config)
    logging.basicConfig(level=getattr(logging, args.log_level.upper()), format="%(message)s")
    for name in ("httpx", "httpcore"):  # their "HTTP Request: POST ..." lines: the log is only JSON lines
        logging.getLogger(name).setLevel(logging.WARNING)
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, access_log=False)
    return 0


def _check_store(url: str) -> None:
    from lucent.errors import StoreError
    from lucent.records import open_records
    from lucent.server._state import check_store

    try:
        records = open_records(url, namespace="gateway-idempotency")
    except StoreError as exc:
        raise StoreError(exc.message, code=exc.code, path="$.gateway.store") from None
    try:
        check_store(records)
    finally:
        records.close()
