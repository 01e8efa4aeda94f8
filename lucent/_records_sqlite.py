"""SQLiteRecords: :class:`lucent.records.Records` in one SQLite table (the standard ``sqlite3``).

One row per record: ``(namespace, scope, key)`` is the primary key, ``expires_at`` the Unix time
(seconds, wall clock: processes on one machine share it) after which the record is absent, NULL
for never. Each operation is one statement in autocommit mode, so it is atomic; a file database
runs in WAL mode (readers do not wait for a writer) and waits up to ``timeout`` seconds for
another process's write lock (SQLite's busy timeout) before it fails. ``put_if_absent`` is an
``INSERT ... ON CONFLICT DO UPDATE ... WHERE`` the stored row has expired: the first writer wins,
and an expired row is taken over in the same statement. Expired rows are deleted every
:data:`PURGE_EVERY` writes of a connection, and by :meth:`SQLiteRecords.purge`.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from typing import Any, Callable

from lucent.errors import StoreError, UsageError
from lucent.records import Records

__all__ = ["PURGE_EVERY", "SQLiteRecords"]

PURGE_EVERY = 256
"""Writes of one connection between two deletions of the expired rows."""

_SCHEMA = """CREATE TABLE IF NOT EXISTS lucent_records (
    namespace TEXT NOT NULL,
    scope TEXT NOT NULL,
    key TEXT NOT NULL,
    value BLOB NOT NULL,
    expires_at REAL,
    PRIMARY KEY (namespace, scope, key)
) WITHOUT ROWID"""

_GET = "SELECT value FROM lucent_records WHERE namespace = ? AND scope = ? AND key = ? AND (expires_at IS NULL OR expires_at > ?)"
_PUT = """INSERT INTO lucent_records (namespace, scope, key, value, expires_at) VALUES (?, ?, ?, ?, ?)
ON CONFLICT (namespace, scope, key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at"""
_PUT_IF_ABSENT = _PUT + " WHERE lucent_records.expires_at IS NOT NULL AND lucent_records.expires_at <= ?"
_DELETE = "DELETE FROM lucent_records WHERE namespace = ? AND scope = ? AND key = ? AND (expires_at IS NULL OR expires_at > ?)"
_PURGE = "DELETE FROM lucent_records WHERE expires_at IS NOT NULL AND expires_at <= ?"


class SQLiteRecords(Records):
    """Records in an SQLite database: a file (shared by the processes of one machine) or
    ``":memory:"`` (this connection only).

    Parameters
    ----------
    path : str or os.PathLike
        The database file (created when missing), or ``":memory:"``.
    namespace, default_ttl
        As for :class:`lucent.records.Records`.
    timeout : float
        Seconds to wait for another connection's write lock before ``store_unavailable``.
    clock : callable
        The time in Unix seconds (default ``time.time``); a test may pass its own.

    Raises
    ------
    StoreError
        ``store_unavailable``: the file cannot be opened or is not an SQLite database.
    """

    def __init__(
        self,
        path: str | os.PathLike[str] = ":memory:",
        *,
        namespace: str = "records",
        default_ttl: float | None = None,
        timeout: float = 30.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__(namespace=namespace, default_ttl=default_ttl)
        if not isinstance(path, (str, os.PathLike)):
            raise UsageError(f"an SQLite path is a str or os.PathLike, not {type(path).__name__}", code="invalid_input_type")
        self._clock = clock
        self._lock = threading.Lock()
        self._writes = 0
        try:
            self._db = sqlite3.connect(path, timeout=timeout, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise _unavailable(exc) from None
        memory = os.fspath(path) in (":memory:", "")
        with self._using():
            if not memory:
                self._db.execute("PRAGMA journal_mode=WAL").fetchall()
            self._db.execute(_SCHEMA)

    def purge(self) -> int:
        """Delete the expired rows (of every namespace); returns how many."""
        with self._using():
            return self._db.execute(_PURGE, (self._clock(),)).rowcount

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _get(self, scope: str, key: str) -> bytes | None:
        with self._using():
            row = self._db.execute(_GET, (self.namespace, scope, key, self._clock())).fetchone()
        return None if row is None else bytes(row[0])

    def _put(self, scope: str, key: str, value: bytes, ttl: float | None) -> None:
        with self._using():
            now = self._clock()
            self._db.execute(_PUT, (self.namespace, scope, key, value, _expires(now, ttl)))
            self._wrote(now)

    def _put_if_absent(self, scope: str, key: str, value: bytes, ttl: float | None) -> bool:
        with self._using():
            now = self._clock()
            written = self._db.execute(_PUT_IF_ABSENT, (self.namespace, scope, key, value, _expires(now, ttl), now)).rowcount == 1
            self._wrote(now)
            return written

    def _delete(self, scope: str, key: str) -> bool:
        with self._using():
            # an expired row is left to the purge: it is absent already
            return self._db.execute(_DELETE, (self.namespace, scope, key, self._clock())).rowcount == 1

    def _wrote(self, now: float) -> None:
        self._writes += 1
        if self._writes % PURGE_EVERY == 0:
            self._db.execute(_PURGE, (now,))

    def _using(self) -> _Using:
        return _Using(self._lock)


class _Using:
    """The connection's lock held, and an sqlite3 error turned into ``store_unavailable``."""

    def __init__(self, lock: threading.Lock) -> None:
        self._lock = lock

    def __enter__(self) -> None:
        self._lock.acquire()

    def __exit__(self, kind: Any, exc: Any, tb: Any) -> None:
        self._lock.release()
        if isinstance(exc, sqlite3.Error):
            raise _unavailable(exc) from None


def _expires(now: float, ttl: float | None) -> float | None:
    return None if ttl is None else now + ttl


def _unavailable(exc: sqlite3.Error) -> StoreError:
    # the sqlite3 message names no value of ours (statements take parameters), only the fault
    return StoreError(f"the SQLite store failed: {type(exc).__name__}: {exc}", code="store_unavailable")
