"""The subject: ``lucent.decode``, as a judge returning the same `Verdict`."""

from __future__ import annotations

from typing import Any

from .oracle import Oracle
from .verdict import Verdict, parse_path

__all__ = ["Subject", "available"]


def available() -> bool:
    """Whether ``lucent.decode`` can be imported."""
    try:
        import lucent

        return callable(getattr(lucent, "decode", None))
    except ImportError:
        return False


class Subject:
    """Runs ``lucent.decode``; an exception that is not a LucentError is a crash.

    Parameters
    ----------
    rules : {"all", "schema"}
        ``"all"`` (the default) enforces the protocol rules too; ``"schema"``
        asks lucent for the JSON Schema alone.
    oracle : Oracle, optional
        With one, every accepted document is also re-encoded with
        ``lucent.encode`` and the oracle must accept the result, unless a listed
        departure explains why not (`round_trip_failures` keeps the others).
    """

    def __init__(self, rules: str = "all", oracle: Oracle | None = None) -> None:
        import lucent

        self.lucent = lucent
        self.rules = rules
        self.oracle = oracle
        self.round_trip_failures: list[tuple[str, str | None, bytes, Verdict]] = []

    def judge(self, schema: str, definition: str | None, data: bytes) -> Verdict:
        """The verdict of ``lucent.decode(data, schema, definition)``."""
        errors = self.lucent.errors
        try:
            value = self.lucent.decode(data, schema, definition, **self._options())
        except errors.LucentError as exc:
            return Verdict(False, parse_path(exc.path), exc.code, exc.message)
        except Exception as exc:  # noqa: BLE001 - any other exception is a finding
            return Verdict(False, (), "crash", f"{type(exc).__name__}: {exc}")
        if self.oracle is not None:
            self._round_trip(schema, definition, data, value)
        return Verdict(True)

    def _options(self) -> dict[str, Any]:
        return {} if self.rules == "all" else {"rules": self.rules}

    def _round_trip(self, schema: str, definition: str | None, data: bytes, value: Any) -> None:
        from .departures import Case, explain

        assert self.oracle is not None
        try:
            text = bytes(self.lucent.encode(value))
        except Exception as exc:  # noqa: BLE001
            self.round_trip_failures.append((schema, definition, data, Verdict(False, (), "crash", f"encode: {exc!r}")))
            return
        verdict = self.oracle.judge(schema, definition, text)
        if not verdict.valid and explain(Case(schema, definition, text, verdict, Verdict(True)), self.oracle) is None:
            self.round_trip_failures.append((schema, definition, data, verdict))
