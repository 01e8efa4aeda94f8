"""The gateway's configuration: a TOML file (``tomllib``) or a mapping of the same shape.

Shape (every key but ``fronts``, ``upstreams`` and ``routes`` is optional)::

    [gateway]
    store = "sqlite:gateway.db"     # idempotency and snapshot records: memory:, sqlite:PATH
                                    # (default sqlite::memory:), redis://host:6379/0
    max_body_bytes = 33554432       # a vendor front's request body cap (SparkTide: 1 MiB, fixed)
    timeout = 300                   # seconds an upstream call may take (SparkTide: 60 s or the deadline)
    idempotency_ttl = 86400         # seconds a SparkTide result is kept for its invocationId
    warm_up = true                  # build the fronts' and upstreams' converters before serving

    [fronts]                        # the APIs clients call, each with the env vars of its keys
    openai-chat = { keys_env = ["LUCENT_GATEWAY_KEY"] }
    openai-responses = { keys_env = ["LUCENT_GATEWAY_KEY"] }
    anthropic = { keys_env = ["LUCENT_GATEWAY_KEY"] }
    gemini = { keys_env = ["LUCENT_GATEWAY_KEY"] }
    sparktide = { keys_env = ["SPARKTIDE_PLATFORM_KEY"] }

    [upstreams.claude]              # what the gateway calls
    format = "anthropic"            # openai-chat, openai-responses, anthropic or gemini
    base_url = "https://api.anthropic.com"   # as the vendor's SDK takes it (OpenAI: .../v1)
    key_env = "ANTHROPIC_API_KEY"
    max_tokens = 4096               # for targets that require it (Anthropic), when the client gave none

    [[routes]]                      # first match wins; model is an fnmatch pattern
    model = "claude-*"
    upstream = "claude"
    upstream_model = "claude-sonnet-4-5"     # optional: the name sent upstream

Keys are read from the environment when the configuration is loaded, never from the file, and
only their presence is checked (a front whose key variables are all unset or empty is refused).

Errors: :class:`lucent.errors.UsageError` ``invalid_config`` (the path in the configuration,
e.g. ``$.upstreams.claude.format``, and never a key's value).
"""

from __future__ import annotations

import fnmatch
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from lucent.errors import UsageError
from lucent.formats import FORMATS

__all__ = ["FRONTS", "UPSTREAM_FORMATS", "Config", "Front", "Route", "Upstream", "load_config", "parse_config"]

FRONTS = tuple(name for name, fmt in FORMATS.items() if fmt.gateway is not None)
"""The front names (each the lucent format it speaks), from the format registry."""

UPSTREAM_FORMATS = tuple(name for name, fmt in FORMATS.items() if fmt.gateway is not None and fmt.gateway.upstream)
"""The formats an upstream may speak, from the format registry."""


@dataclass(frozen=True)
class Front:
    """A front and the keys its callers may present (read from ``keys_env``)."""

    name: str
    keys: tuple[bytes, ...] = field(repr=False)


@dataclass(frozen=True)
class Upstream:
    """An upstream API: its format, base URL and key (from ``key_env``; never logged)."""

    name: str
    format: str
    base_url: str
    key: str = field(repr=False)
    max_tokens: int = 4096


@dataclass(frozen=True)
class Route:
    """A model pattern and the upstream it goes to."""

    model: str
    upstream: str
    upstream_model: str | None = None

    def matches(self, model: str) -> bool:
        return fnmatch.fnmatchcase(model, self.model)


@dataclass(frozen=True)
class Config:
    """A checked gateway configuration (:func:`parse_config`)."""

    fronts: dict[str, Front]
    upstreams: dict[str, Upstream]
    routes: tuple[Route, ...]
    store: str = "sqlite::memory:"
    max_body_bytes: int = 32 * 1024 * 1024
    timeout: float = 300.0
    idempotency_ttl: float = 86400.0
    warm_up: bool = True

    def formats(self) -> list[str]:
        """The lucent formats this gateway reads and writes: its fronts' and its upstreams'."""
        return sorted(set(self.fronts) | {upstream.format for upstream in self.upstreams.values()})

    def route(self, model: str) -> tuple[Upstream, str] | None:
        """The upstream for ``model`` and the model name to send it; None when no route matches."""
        for route in self.routes:
            if route.matches(model):
                return self.upstreams[route.upstream], route.upstream_model or model
        return None


def load_config(path: str | os.PathLike[str], environ: Mapping[str, str] | None = None) -> Config:
    """Read and check a TOML configuration file (see the module docstring for its shape)."""
    try:
        with open(path, "rb") as file:
            data = tomllib.load(file)
    except OSError as exc:
        raise UsageError(f"cannot read the configuration file: {exc.strerror}", code="invalid_config", path=str(path)) from None
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"the configuration is not TOML: {exc}", code="invalid_config", path=str(path)) from None
    return parse_config(data, environ)


def parse_config(data: Mapping[str, Any], environ: Mapping[str, str] | None = None) -> Config:
    """Check a configuration mapping; keys come from ``environ`` (default ``os.environ``)."""
    env = os.environ if environ is None else environ
    _only(data, {"gateway", "fronts", "upstreams", "routes"}, "$")
    gateway = _table(data.get("gateway", {}), "$.gateway")
    _only(gateway, {"store", "max_body_bytes", "timeout", "idempotency_ttl", "warm_up"}, "$.gateway")
    warm_up = gateway.get("warm_up", True)
    if not isinstance(warm_up, bool):
        raise UsageError("warm_up is true or false", code="invalid_config", path="$.gateway.warm_up")
    fronts: dict[str, Front] = {}
    for name, spec in _table(data.get("fronts"), "$.fronts").items():
        where = f"$.fronts.{name}"
        if name not in FRONTS:
            raise UsageError(f"unknown front (one of {', '.join(FRONTS)})", code="invalid_config", path=where)
        spec = _table(spec, where)
        _only(spec, {"keys_env"}, where)
        names = spec.get("keys_env")
        if isinstance(names, str):
            names = [names]
        if not isinstance(names, list) or not names or not all(isinstance(n, str) and n for n in names):
            raise UsageError("keys_env is a list of environment variable names", code="invalid_config", path=f"{where}.keys_env")
        keys = tuple(env[n].encode() for n in names if env.get(n))
        if not keys:
            raise UsageError("no key is set: every front needs one (its keys_env variables are unset or empty)", code="invalid_config", path=f"{where}.keys_env")
        fronts[name] = Front(name, keys)
    if not fronts:
        raise UsageError("no front is configured", code="invalid_config", path="$.fronts")
    upstreams: dict[str, Upstream] = {}
    for name, spec in _table(data.get("upstreams"), "$.upstreams").items():
        where = f"$.upstreams.{name}"
        spec = _table(spec, where)
        _only(spec, {"format", "base_url", "key_env", "max_tokens"}, where)
        fmt = spec.get("format")
        if fmt not in UPSTREAM_FORMATS:
            raise UsageError(f"an upstream format is one of {', '.join(UPSTREAM_FORMATS)}", code="invalid_config", path=f"{where}.format")
        base_url = spec.get("base_url")
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise UsageError("base_url is an http:// or https:// URL", code="invalid_config", path=f"{where}.base_url")
        key_env = spec.get("key_env")
        if not isinstance(key_env, str) or not env.get(key_env):
            raise UsageError("key_env names an environment variable that holds the upstream's key", code="invalid_config", path=f"{where}.key_env")
        max_tokens = _positive(spec.get("max_tokens", 4096), f"{where}.max_tokens", int)
        upstreams[name] = Upstream(name, fmt, base_url.rstrip("/"), env[key_env], int(max_tokens))
    routes: list[Route] = []
    listed = data.get("routes")
    if not isinstance(listed, list) or not listed:
        raise UsageError("routes is a list of tables ([[routes]])", code="invalid_config", path="$.routes")
    for i, spec in enumerate(listed):
        where = f"$.routes[{i}]"
        spec = _table(spec, where)
        _only(spec, {"model", "upstream", "upstream_model"}, where)
        if not isinstance(spec.get("model"), str) or not spec["model"]:
            raise UsageError("a route's model is a model name or fnmatch pattern", code="invalid_config", path=f"{where}.model")
        if spec.get("upstream") not in upstreams:
            raise UsageError("a route's upstream names a table of [upstreams]", code="invalid_config", path=f"{where}.upstream")
        upstream_model = spec.get("upstream_model")
        if upstream_model is not None and (not isinstance(upstream_model, str) or not upstream_model):
            raise UsageError("upstream_model is a model name", code="invalid_config", path=f"{where}.upstream_model")
        routes.append(Route(spec["model"], spec["upstream"], upstream_model))
    store = gateway.get("store", "sqlite::memory:")
    if not isinstance(store, str) or not store.startswith(("memory:", "sqlite:", "redis://", "rediss://", "unix://")):
        raise UsageError("store is memory:, sqlite:PATH or a redis:// URL", code="invalid_config", path="$.gateway.store")
    return Config(
        fronts=fronts,
        upstreams=upstreams,
        routes=tuple(routes),
        store=store,
        max_body_bytes=int(_positive(gateway.get("max_body_bytes", 32 * 1024 * 1024), "$.gateway.max_body_bytes", int)),
        timeout=float(_positive(gateway.get("timeout", 300.0), "$.gateway.timeout", (int, float))),
        idempotency_ttl=float(_positive(gateway.get("idempotency_ttl", 86400.0), "$.gateway.idempotency_ttl", (int, float))),
        warm_up=warm_up,
    )


def _table(value: Any, path: str) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise UsageError("a table is expected", code="invalid_config", path=path)
    return dict(value)


def _only(table: Mapping[str, Any], allowed: set[str], path: str) -> None:
    for name in table:
        if name not in allowed:
            raise UsageError(f"an unknown key (allowed: {', '.join(sorted(allowed))})", code="invalid_config", path=f"{path}.{name}")


def _positive(value: Any, path: str, types: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, types) or not value > 0:
        raise UsageError("a positive number is expected", code="invalid_config", path=path)
    return value
