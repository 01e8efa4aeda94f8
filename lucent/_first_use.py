"""The one lock that lucent's lazily built state is built under, and what keeps a fork safe.

lucent builds much on first use, so that ``import lucent`` stays cheap: the modules of a format
(its bindings, converters, stream assembler, reader and writer), each definition's decoder and
route, the tables that the error selection reads per type, the boxes of ``convert_as``. Each of
them is built once, under :data:`LOCK`, and published only when whole: a thread never sees
half-built state (msgspec itself shows other threads a Struct type that it is still building,
and a conversion through it crashes the process: NOTES.md, "msgspec's first use").

A fork (``os.fork``, multiprocessing's ``fork`` start method, gunicorn's workers) waits for
:data:`LOCK` (and ``lucent._validation.BUILD_LOCK``, the generated code's own: generated
modules import nothing of lucent), so that it never happens while lucent is importing a module on first use: a child
forked then would inherit the import's module lock, held by a thread it does not have, and hang
at its first use of that module. ``lucent.warm_up`` builds everything up front.

Rules, checked by tests/test_first_use.py: no lucent module takes :data:`LOCK` while it is being
imported (its body), so a thread that imports under :data:`LOCK` cannot wait on one that waits
for :data:`LOCK`; and nothing here imports more than ``_thread`` and ``os`` (``import lucent``
loads this module).
"""

from __future__ import annotations

import _thread
import os

_TYPE_CHECKING = False  # typing itself is not imported: `import lucent` stays cheap
if _TYPE_CHECKING:
    from collections.abc import Callable
    from types import ModuleType
    from typing import Any, TypeVar

    _F = TypeVar("_F", bound=Callable[..., Any])

__all__ = ["LOCK", "imported", "once"]

LOCK = _thread.RLock()
"""Held while lazily built state is built (re-entrant: a build may need another one)."""


_HELD: list[Any] = []  # the locks the fork in progress took, in order


def _before_fork() -> None:
    import sys

    LOCK.acquire()
    _HELD.append(LOCK)
    validation = sys.modules.get("lucent._validation")  # loaded: its types made at run time
    if validation is not None:
        validation.BUILD_LOCK.acquire()
        _HELD.append(validation.BUILD_LOCK)


def _after_fork() -> None:
    while _HELD:  # in the child too: the forking thread, which holds them, is the child's own
        _HELD.pop().release()


if hasattr(os, "register_at_fork"):  # POSIX
    os.register_at_fork(before=_before_fork, after_in_parent=_after_fork, after_in_child=_after_fork)


def imported(name: str) -> ModuleType:
    """The module ``name``, imported under :data:`LOCK` when it is not loaded yet."""
    import sys

    module = sys.modules.get(name)
    if module is not None and not getattr(getattr(module, "__spec__", None), "_initializing", False):
        return module
    import importlib

    with LOCK:
        return importlib.import_module(name)


def once(function: _F) -> _F:
    """``function`` (of hashable arguments) built at most once per arguments, under
    :data:`LOCK`; a later call is a look-up in C (``functools.lru_cache``). An exception is not
    kept: the next call builds again."""
    import functools

    built: dict[Any, Any] = {}

    @functools.wraps(function)
    def build(*args: Any) -> Any:
        with LOCK:
            try:
                return built[args]
            except KeyError:
                value = built[args] = function(*args)
                return value

    return functools.lru_cache(maxsize=None)(build)  # type: ignore[return-value]
