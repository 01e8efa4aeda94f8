"""Running the ``lucent`` command line as a real process: its standard streams closed, pointed at
a failing device or fed by an endless writer, with its exit status, output and peak memory."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

# Closes the descriptors named in argv[1] and runs `python -m lucent ARGS` in a child of its own,
# under an address-space cap so that a read without a bound fails fast instead of filling the
# machine's memory; then writes the child's exit status and peak RSS (kilobytes) to argv[3].
# The child is forked from this small launcher, not from the test process: Linux carries the
# pre-exec high-water RSS into ru_maxrss, so a child spawned from a large pytest (or xdist) worker
# would report the worker's peak, not its own.
_LAUNCH = (
    "import os, resource, sys\n"
    "resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[2]), int(sys.argv[2])))\n"
    "report = os.open(sys.argv[3], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)\n"
    "for fd in sys.argv[1].split(','):\n"
    "    if fd: os.close(int(fd))\n"
    "pid = os.fork()\n"
    "if pid == 0:\n"
    "    os.execv(sys.executable, [sys.executable, '-m', 'lucent', *sys.argv[4:]])\n"
    "_, status, usage = os.wait4(pid, 0)\n"
    "os.write(report, f'{os.waitstatus_to_exitcode(status)} {usage.ru_maxrss}'.encode())\n"
    "os._exit(0)\n"
)

ADDRESS_SPACE = 3 << 30
"""The child's address-space cap (RLIMIT_AS): 3 GiB."""


@dataclass(frozen=True)
class Ran:
    status: int  # the exit status (negative: killed by that signal)
    out: bytes | None  # what reached stdout, when it was a file of the test's
    err: bytes | None  # what reached stderr, likewise
    max_rss: int  # the process's peak resident memory, in bytes (getrusage, from the launcher's wait4)


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
    (``/dev/full``: every write fails with ENOSPC); stdout also ``"stops"`` (a pipe whose
    reader waits a second, reads 5 bytes and closes it, as ``| (sleep 1; head -c 5)``). ``timeout`` only guards against a hang.
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
        elif how == "stops" and name == "stdout":
            sinks[name] = subprocess.PIPE
        else:
            assert how == "closed"
            sinks[name] = subprocess.DEVNULL
            closed.append(str(fd))
    try:
        report = work / "launcher-report"
        process = subprocess.Popen(
            [sys.executable, "-c", _LAUNCH, ",".join(closed), str(ADDRESS_SPACE), str(report), *args],
            stdin=stdin_arg, stdout=sinks["stdout"], stderr=sinks["stderr"], bufsize=0,
            start_new_session=True,  # a timeout kills the launcher and its child together
        )
        writer = None
        if stdin == "feed":
            assert feed is not None and process.stdin is not None
            writer = threading.Thread(target=_write_all, args=(process.stdin, feed), daemon=True)
            writer.start()
        reader = None
        if stdout == "stops":
            assert process.stdout is not None
            reader = threading.Thread(target=_read_then_stop, args=(process.stdout,), daemon=True)
            reader.start()
        status, max_rss = _wait(process, timeout, report)
        if reader is not None:
            reader.join(timeout)
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


def _read_then_stop(pipe: IO[bytes]) -> None:
    time.sleep(1)
    pipe.read(5)
    pipe.close()


def _wait(process: subprocess.Popen[bytes], timeout: float, report: Path) -> tuple[int, int]:
    """The exit status and peak RSS (bytes) of the launcher's child, from the launcher's report
    (its wait4 of the child); killed after ``timeout`` seconds, with the status of the kill."""
    try:
        launcher = process.wait(timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        return process.wait(), 0
    if launcher != 0:  # the launcher itself failed (an unopenable report): nothing to read
        return launcher, 0
    status, max_rss_kb = report.read_text().split()
    return int(status), int(max_rss_kb) * 1024  # Linux: kilobytes
