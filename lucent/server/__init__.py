"""The lucent gateway (issue 19): SparkTide REMOTE 1.0 and the vendor APIs in front of any upstream.

``pip install 'lucent[server]'`` (Starlette, uvicorn, httpx). ``lucent serve --config
gateway.toml`` runs it; :func:`create_app` gives the ASGI application, to mount in a Starlette
or FastAPI app of your own::

    from lucent.server import create_app, load_config
    app = create_app(load_config("gateway.toml"))

Fronts (what clients call): ``/v1/chat/completions``, ``/v1/responses``, ``/v1/messages``,
``/v1beta/models/{model}:generateContent`` / ``:streamGenerateContent``, the SparkTide REMOTE
callback ``/sparktide/remote/1.0``, and ``GET /health``. Upstreams (what it calls): any of
openai-chat, openai-responses, anthropic, gemini, routed by model (:mod:`lucent.server._config`
gives the configuration's shape). Documents go through :func:`lucent.convert`, streams through
:func:`lucent.streams.aconvert_stream`. :mod:`lucent.server._sparktide` states the REMOTE rules,
:mod:`lucent.server._shapes` each front's error shapes, :mod:`lucent.server._log` the log line.

``import lucent.server`` imports neither Starlette nor httpx: :func:`create_app` does, and raises
:class:`~lucent.errors.UsageError` ``missing_dependency`` when the extra is not installed.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from lucent.server._config import Config, load_config, parse_config

if TYPE_CHECKING:
    from starlette.applications import Starlette

__all__ = ["Config", "create_app", "load_config", "parse_config", "require"]

_NEEDED = ("starlette", "uvicorn", "httpx")


def require(*modules: str) -> None:
    """Import ``modules`` (default: the server extra's) or raise ``UsageError``
    ``missing_dependency`` naming the extra."""
    import importlib

    from lucent.errors import UsageError

    for name in modules or _NEEDED:
        try:
            importlib.import_module(name)
        except ImportError:
            raise UsageError(f"the gateway needs {name}: pip install 'lucent[server]'", code="missing_dependency") from None


def create_app(config: Config | str | os.PathLike[str], *, transport: Any = None) -> Starlette:
    """The gateway's ASGI application (Starlette) for ``config`` (a :class:`Config`, or the path
    of a TOML file; a dict is :func:`parse_config`'s, not this function's). ``transport`` (an httpx transport for the upstream calls) is for tests.

    Raises
    ------
    UsageError
        ``missing_dependency`` (the ``server`` extra is not installed), ``invalid_config`` (also
        for a ``config`` that is neither a Config nor a path, such as a dict or None).
    """
    from lucent.errors import UsageError

    require("starlette", "httpx")
    if isinstance(config, (str, os.PathLike)):
        config = load_config(config)
    elif not isinstance(config, Config):  # a dict: parse_config(mapping) checks it into a Config
        raise UsageError(f"config is a lucent.server.Config or the path of a TOML file, not {type(config).__name__} (parse_config turns a mapping into a Config)", code="invalid_config")
    from lucent.server._app import build_app

    return build_app(config, transport=transport)
