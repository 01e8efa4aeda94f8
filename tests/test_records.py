"""lucent.records: scoped, expiring, atomic key -> JSON records on every backend (memory, SQLite
in memory and on a file, a real Redis server)."""

from __future__ import annotations

import math
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from lucent.errors import StoreError, UsageError
from lucent.records import MemoryRecords, Records, open_records

BACKENDS = ["memory", "sqlite-memory", "sqlite-file", "redis"]

Make = Callable[..., Records]


@pytest.fixture(params=BACKENDS)
def make(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Make]:
    """A factory of stores of one backend (all sharing one database where the backend has one)."""
    opened: list[Records] = []
    backend = request.param
    url = request.getfixturevalue("redis_db") if backend == "redis" else None

    def factory(**options: object) -> Records:
        if backend == "memory":
            store: Records = MemoryRecords(**options)  # type: ignore[arg-type]
        elif backend == "sqlite-memory":
            from lucent.records import SQLiteRecords

            store = SQLiteRecords(":memory:", **options)  # type: ignore[arg-type]
        elif backend == "sqlite-file":
            from lucent.records import SQLiteRecords

            store = SQLiteRecords(tmp_path / "records.db", **options)  # type: ignore[arg-type]
        else:
            from lucent.records import RedisRecords

            store = RedisRecords(url, **options)  # type: ignore[arg-type]
        opened.append(store)
        return store

    yield factory
    for store in opened:
        store.close()


def test_a_record_comes_back_byte_for_byte(make: Make) -> None:
    store = make()
    value = '{"a": "\u00e9\u4e2d", "b": [1, 2.5, null]}'.encode()
    store.put("tenant-a", "resp_1", value)
    assert store.get("tenant-a", "resp_1") == value
    assert store.get("tenant-a", "resp_2") is None


def test_a_record_of_another_scope_is_absent(make: Make) -> None:
    store = make()
    store.put("tenant-a", "resp_1", b'{"x": 1}')
    assert store.get("tenant-b", "resp_1") is None
    assert store.delete("tenant-b", "resp_1") is False
    assert store.put_if_absent("tenant-b", "resp_1", b'{"x": 2}') is True  # its own record
    assert store.get("tenant-a", "resp_1") == b'{"x": 1}'
    assert store.get("tenant-b", "resp_1") == b'{"x": 2}'


def test_scopes_that_join_to_the_same_text_stay_apart(make: Make) -> None:
    store = make()
    store.put("a:b", "c", b"1")
    store.put("a", "b:c", b"2")
    assert (store.get("a:b", "c"), store.get("a", "b:c"), store.get("a", "b%3Ac")) == (b"1", b"2", None)


def test_namespaces_on_one_backend_never_see_each_other(make: Make) -> None:
    snapshots, idempotency = make(namespace="snapshots"), make(namespace="idempotency")
    snapshots.put("t", "k", b'"snapshot"')
    assert idempotency.get("t", "k") is None
    assert idempotency.put_if_absent("t", "k", b'"first call"') is True
    assert snapshots.get("t", "k") == b'"snapshot"'


def test_put_if_absent_keeps_the_first_writer(make: Make) -> None:
    store = make()
    assert store.put_if_absent("t", "invocation-1", b'{"n": 1}') is True
    assert store.put_if_absent("t", "invocation-1", b'{"n": 2}') is False
    assert store.get("t", "invocation-1") == b'{"n": 1}'
    store.put("t", "invocation-1", b'{"n": 3}')  # put replaces
    assert store.get("t", "invocation-1") == b'{"n": 3}'


def test_put_if_absent_from_many_threads_has_one_winner(make: Make) -> None:
    store = make()
    results: dict[int, bool] = {}
    barrier = threading.Barrier(8)

    def race(n: int) -> None:
        barrier.wait()
        results[n] = store.put_if_absent("t", "k", str(n).encode())

    threads = [threading.Thread(target=race, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results.values()) == [False] * 7 + [True]
    winner = [n for n, won in results.items() if won]
    assert store.get("t", "k") == str(winner[0]).encode()  # the winner's value, not a later one


def test_a_record_expires_after_its_ttl(make: Make) -> None:
    store = make(default_ttl=0.2)
    store.put("t", "short", b"1")
    store.put("t", "forever", b"2", ttl=math.inf)
    store.put("t", "long", b"3", ttl=60)
    assert store.get("t", "short") == b"1"
    time.sleep(0.4)
    assert store.get("t", "short") is None
    assert store.delete("t", "short") is False  # absent: nothing live removed
    assert (store.get("t", "forever"), store.get("t", "long")) == (b"2", b"3")
    # an expired record is absent for put_if_absent too
    assert store.put_if_absent("t", "short", b"4") is True
    assert store.get("t", "short") == b"4"


def test_delete_removes_a_live_record_once(make: Make) -> None:
    store = make()
    store.put("t", "k", b"1")
    assert store.delete("t", "k") is True
    assert store.delete("t", "k") is False
    assert store.get("t", "k") is None


class _Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize("backend", ["memory", "sqlite"])
def test_expiry_follows_the_store_clock(backend: str, tmp_path: Path) -> None:
    clock = _Clock()
    if backend == "memory":
        store: Records = MemoryRecords(default_ttl=10, clock=clock)
    else:
        from lucent.records import SQLiteRecords

        store = SQLiteRecords(tmp_path / "r.db", default_ttl=10, clock=clock)
    store.put("t", "k", b"1")
    clock.now += 9.999
    assert store.get("t", "k") == b"1"
    assert store.put_if_absent("t", "k", b"2") is False
    clock.now += 0.001  # expires_at is exclusive
    assert store.get("t", "k") is None
    assert store.put_if_absent("t", "k", b"2") is True
    assert store.get("t", "k") == b"2"
    store.close()


def test_sqlite_purges_expired_rows(tmp_path: Path) -> None:
    from lucent.records import SQLiteRecords

    clock = _Clock()
    store = SQLiteRecords(tmp_path / "r.db", clock=clock)
    for n in range(5):
        store.put("t", f"k{n}", b"1", ttl=1 + n)
    clock.now += 3
    assert store.purge() == 3  # k0..k2 expired (k2 at exactly +3: expired)
    assert [store.get("t", f"k{n}") for n in range(5)] == [None, None, None, b"1", b"1"]
    store.close()


def test_the_stores_hold_the_scope_hash_never_the_scope(tmp_path: Path, redis_db: str) -> None:
    import redis

    from lucent.records import RedisRecords, SQLiteRecords

    secret = "sk-live-abcdef0123456789"
    sqlite_store = SQLiteRecords(tmp_path / "r.db")
    sqlite_store.put(secret, "k", b"1")
    sqlite_store.close()
    with sqlite3.connect(tmp_path / "r.db") as db:
        scopes = [row[0] for row in db.execute("SELECT scope FROM lucent_records")]
    assert len(scopes) == 1 and secret not in scopes[0] and len(scopes[0]) == 64
    assert secret.encode() not in (tmp_path / "r.db").read_bytes() + b"".join(p.read_bytes() for p in tmp_path.glob("r.db-*"))
    redis_store = RedisRecords(redis_db)
    redis_store.put(secret, "k", b"1")
    names = redis.Redis.from_url(redis_db).keys("*")
    assert len(names) == 1 and secret.encode() not in names[0] and names[0].startswith(b"lucent:records:")
    redis_store.close()


@pytest.mark.parametrize(
    ("call", "code"),
    [
        (lambda s: s.get("", "k"), "invalid_scope"),
        (lambda s: s.get(None, "k"), "invalid_scope"),
        (lambda s: s.get("t\ud800", "k"), "invalid_scope"),
        (lambda s: s.get("t" * 1025, "k"), "invalid_scope"),
        (lambda s: s.get("t", ""), "invalid_key"),
        (lambda s: s.get("t", 7), "invalid_key"),
        (lambda s: s.put("t", "k", "text"), "invalid_input_type"),
        (lambda s: s.put("t", "k", {"a": 1}), "invalid_input_type"),
        (lambda s: s.put("t", "k", b"1", ttl=0), "invalid_ttl"),
        (lambda s: s.put("t", "k", b"1", ttl=-1), "invalid_ttl"),
        (lambda s: s.put("t", "k", b"1", ttl=float("nan")), "invalid_ttl"),
        (lambda s: s.put_if_absent("t", "k", b"1", ttl=True), "invalid_ttl"),
        (lambda s: s.put_if_absent("t", "k", b"1", ttl="10"), "invalid_ttl"),
    ],
)
def test_a_wrong_call_is_a_usage_error_and_writes_nothing(make: Make, call: Callable[[Records], object], code: str) -> None:
    store = make()
    with pytest.raises(UsageError) as caught:
        call(store)
    assert caught.value.code == code
    assert store.get("t", "k") is None


@pytest.mark.parametrize(
    ("make_store", "code"),
    [
        (lambda: MemoryRecords(namespace="Snapshots"), "invalid_namespace"),
        (lambda: MemoryRecords(namespace="a:b"), "invalid_namespace"),
        (lambda: MemoryRecords(default_ttl=0), "invalid_ttl"),
        (lambda: open_records("postgres://x"), "invalid_store_url"),
        (lambda: open_records("sqlite:"), "invalid_store_url"),
        (lambda: open_records(b"memory:"), "invalid_store_url"),  # type: ignore[arg-type]
    ],
)
def test_a_wrong_store_is_a_usage_error(make_store: Callable[[], Records], code: str) -> None:
    with pytest.raises(UsageError) as caught:
        make_store()
    assert caught.value.code == code


def test_open_records_opens_each_backend(tmp_path: Path, redis_db: str) -> None:
    from lucent.records import RedisRecords, SQLiteRecords

    assert type(open_records("memory:")) is MemoryRecords
    on_file = open_records(f"sqlite:{tmp_path / 'r.db'}", namespace="snapshots", default_ttl=5)
    assert type(on_file) is SQLiteRecords and on_file.namespace == "snapshots" and on_file.default_ttl == 5
    assert type(open_records("sqlite::memory:")) is SQLiteRecords
    assert type(open_records(redis_db)) is RedisRecords


def test_a_file_that_is_not_a_database_is_store_unavailable(tmp_path: Path) -> None:
    from lucent.records import SQLiteRecords

    path = tmp_path / "not.db"
    path.write_bytes(b"this is not an SQLite database, but it is long enough to have a header" * 10)
    with pytest.raises(StoreError) as caught:
        SQLiteRecords(path)
    assert caught.value.code == "store_unavailable"
    assert path.read_bytes().startswith(b"this is not")  # left as it was


def test_a_redis_server_that_is_gone_is_store_unavailable() -> None:
    pytest.importorskip("redis", reason="the redis client is in the tests extra")
    from lucent.records import RedisRecords
    from tests.redis_server import _free_port

    store = RedisRecords(f"redis://127.0.0.1:{_free_port()}/0")  # nothing listens there
    for call in (lambda: store.get("t", "k"), lambda: store.put("t", "k", b"1"), lambda: store.put_if_absent("t", "k", b"1")):
        with pytest.raises(StoreError) as caught:
            call()
        assert caught.value.code == "store_unavailable"
        assert "127.0.0.1" not in str(caught.value)


def test_redis_records_without_the_client_say_which_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    real_import = builtins.__import__

    def no_redis(name: str, *args: object, **kwargs: object) -> object:
        if name == "redis":
            raise ImportError("no redis")
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", no_redis)
    from lucent._records_redis import RedisRecords

    with pytest.raises(UsageError) as caught:
        RedisRecords("redis://127.0.0.1:1/0")
    assert caught.value.code == "missing_dependency" and "lucent[redis]" in caught.value.message
