"""The README's Python examples run as written, and print what their comments say."""

from __future__ import annotations

import contextlib
import io
import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BLOCKS = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), re.DOTALL)
SHOWN = re.compile(r"^\s*print\(.*\)\s+# (.+)$")


def expected_lines(block: str) -> list[str]:
    """The comment after each ``print(...)``, up to a ``...`` that stands for the rest."""
    return [found.group(1).split("...")[0].strip() for found in map(SHOWN.match, block.splitlines()) if found]


def test_the_readme_has_examples_that_show_their_output() -> None:
    assert len(BLOCKS) >= 3
    assert sum(len(expected_lines(block)) for block in BLOCKS) >= 8


@pytest.mark.parametrize("block", BLOCKS, ids=[f"block-{i}" for i in range(len(BLOCKS))])
def test_a_readme_example_runs_and_prints_what_it_says(block: str) -> None:
    out = io.StringIO()
    cwd = os.getcwd()
    os.chdir(ROOT)  # the examples open files by paths relative to a clone
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(block, "README.md", "exec"), {"__name__": "readme"})  # noqa: S102 - our own README
    finally:
        os.chdir(cwd)
    printed = out.getvalue()
    position = 0
    for expected in expected_lines(block):
        found = printed.find(expected, position)
        assert found >= 0, f"{expected!r} not printed (after position {position}) in:\n{printed}"
        position = found + len(expected)


CONSOLE = re.findall(r"```console\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), re.DOTALL)
STATUS = re.compile(r"^\[exit status (\d+)\]$")


def console_commands() -> list[tuple[str, list[str], int]]:
    """Each ``$ lucent ...`` line of the README's console blocks, with the lines it prints
    (stdout, then stderr) and its exit status (``[exit status N]``, else 0)."""
    commands: list[tuple[str, list[str], int]] = []
    for block in CONSOLE:
        for line in block.splitlines():
            if line.startswith("$ "):
                commands.append((line[2:], [], 0))
            elif (status := STATUS.match(line)) is not None:
                commands[-1] = (commands[-1][0], commands[-1][1], int(status.group(1)))
            elif line:
                commands[-1][1].append(line)
    return commands


def test_the_readme_has_console_examples() -> None:
    assert [command.split()[:2] for command, _, _ in console_commands()].count(["lucent", "preflight"]) >= 3


@pytest.mark.parametrize(("command", "printed", "status"), console_commands(), ids=[c for c, _, _ in console_commands()])
def test_a_readme_command_runs_and_prints_what_it_says(command: str, printed: list[str], status: int) -> None:
    import shlex
    import subprocess
    import sys

    words = shlex.split(command)
    assert words[0] == "lucent"
    out = subprocess.run([sys.executable, "-m", "lucent", *words[1:]], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == status, out.stderr
    assert (out.stdout + out.stderr).splitlines() == printed


CONTEXT_KEYS = re.compile(r"<!-- context-keys:[^\n]*-->\n```text\n(.*?)```\n<!-- /context-keys -->", re.DOTALL)


def test_the_readme_lists_the_context_keys_as_convert_help_does() -> None:
    """The README's list of the context keys each target reads is lucent._context.listing(), the
    text `lucent convert --help` ends with; both come from the one declaration (CONTEXT of the
    converter registry, the stream readers' and writers' context_keys)."""
    from lucent._context import listing

    found = CONTEXT_KEYS.findall((ROOT / "README.md").read_text(encoding="utf-8"))
    assert found == [listing()], "regenerate the README section from lucent._context.listing()"
