"""Running the ``lucent`` command line as a real process: its standard streams closed, pointed at
a failing device or fed by an endless writer, with its exit status, output and peak memory."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

# Closes the descriptors named in argv[1] and runs `python -m lucent ARGS`, under an address-space
# cap so that a read without a bound fails fast instead of filling the machine's memory.
_LAUNCH = (
    "import os, resource, sys\n"
    "resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[2]), int(sys.argv[2])))\n"
    "for fd in sys.argv[1].split(','):\n"
    "    if fd: os.close(int(fd))\n"
    "os.execv(sys.executable, [sys.executable, '-m', 'lucent', *sys.argv[3:]])\n"
)

ADDRESS_SPACE = 3 << 30
"""The child's address-space cap (RLIMIT_AS): 3 GiB."""


@dataclass(frozen=True)
class Ran:
    status: int  # the exit status (negative: killed by that signal)
    out: bytes | None  # what reached stdout, when it was a file of the test's
    err: bytes | None  # what reached stderr, likewise
    max_rss: int  # the process's peak resident memory, in bytes (getrusage, from wait4)


def run_cli(
    args: Sequence[str],
    work: Path,
    *,
    stdin: str | Path = "closed",
    stdout: str = "file",
    stderr: str = "file",
    feed: Iterable[bytes] | None = None,
    timeout: float = 120.0,
) -> Ran:
    """Run ``python -m lucent ARGS``.

    ``stdin``: a Path (the file's bytes), ``"closed"``, ``"write-only"`` (a descriptor that
    cannot be read) or ``"feed"`` (a pipe that ``feed``'s chunks are written to until the process
    stops reading). ``stdout``/``stderr``: ``"file"`` (captured), ``"closed"`` or ``"full"``
    (``/dev/full``: every write fails with ENOSPC). ``timeout`` only guards against a hang.
    """
    closed: list[str] = []
    files: list[IO[Any]] = []

    def opened(path: Path | str, mode: str) -> IO[Any]:
        handle = open(path, mode)
        files.append(handle)
        return handle

    stdin_arg: Any
    if isinstance(stdin, Path):
        stdin_arg = opened(stdin, "rb")
    elif stdin == "write-only":
        stdin_arg = opened(work / "write-only", "wb")
    elif stdin == "feed":
        stdin_arg = subprocess.PIPE
    else:
        assert stdin == "closed"
        stdin_arg = subprocess.DEVNULL
        closed.append("0")
    sinks: dict[str, Any] = {}
    for fd, (name, how) in enumerate((("stdout", stdout), ("stderr", stderr)), start=1):
        if how == "file":
            sinks[name] = opened(work / f"{name}.bin", "wb")
        elif how == "full":
            sinks[name] = opened("/dev/full", "wb")
        else:
            assert how == "closed"
            sinks[name] = subprocess.DEVNULL
            closed.append(str(fd))
    try:
        process = subprocess.Popen(
            [sys.executable, "-c", _LAUNCH, ",".join(closed), str(ADDRESS_SPACE), *args],
            stdin=stdin_arg, stdout=sinks["stdout"], stderr=sinks["stderr"], bufsize=0,
        )
        writer = None
        if stdin == "feed":
            assert feed is not None and process.stdin is not None
            writer = threading.Thread(target=_write_all, args=(process.stdin, feed), daemon=True)
            writer.start()
        status, max_rss = _wait(process, timeout)
        if writer is not None:
            writer.join(timeout)
    finally:
        for handle in files:
            handle.close()

    def captured(name: str, how: str) -> bytes | None:
        return (work / f"{name}.bin").read_bytes() if how == "file" else None

    return Ran(status, captured("stdout", stdout), captured("stderr", stderr), max_rss)


def _write_all(pipe: IO[bytes], chunks: Iterable[bytes]) -> None:
    try:
        for chunk in chunks:
            pipe.write(chunk)
    except BrokenPipeError:  # the process stopped reading: what the test wants
        pass
    finally:
        pipe.close()  # unbuffered: nothing left to fail


def _wait(process: subprocess.Popen[bytes], timeout: float) -> tuple[int, int]:
    """The exit status and peak RSS (bytes) of ``process``, reaped with wait4 (its own rusage)."""
    deadline = time.monotonic() + timeout
    while True:
        pid, wait_status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            process.kill()
            pid, wait_status, usage = os.wait4(process.pid, 0)
            break
        time.sleep(0.02)
    status = os.waitstatus_to_exitcode(wait_status)
    process.returncode = status  # reaped here: Popen must not wait for it again
    return status, usage.ru_maxrss * 1024  # Linux: kilobytes
