"""``lucent serve --config gateway.toml [--host 127.0.0.1] [--port 8080]``: the gateway under uvicorn.

Exit statuses: 0 stopped; 2 a usage error (``invalid_config``, ``missing_dependency``: the
message and code on stderr, never a key).
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

    app = create_app(load_config(args.config))
    logging.basicConfig(level=getattr(logging, args.log_level.upper()), format="%(message)s")
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, access_log=False)
    return 0
