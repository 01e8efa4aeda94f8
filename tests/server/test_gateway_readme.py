"""The README's gateway section runs as written: its configuration file, its ``lucent serve``
command and its curl call, with three things pointed at the test's loopback servers: the
upstream's ``base_url`` (the fake upstream, which answers with
tests/data/lingua/snapshots/simpleRequest), the upstream key's value (the fake upstream's) and
the port (a free one)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

import lucent
from tests.server.harness import UPSTREAM_KEYS, free_port, recorded

ROOT = Path(__file__).resolve().parents[2]
SECTION = (ROOT / "README.md").read_text(encoding="utf-8").split("\n## Gateway\n", 1)[1].split("\n## ", 1)[0]


def test_the_readme_gateway_example_runs_as_written(upstream, calls, tmp_path) -> None:
    if shutil.which("curl") is None:
        pytest.skip("curl is not installed")
    config = re.findall(r"```toml\n(.*?)```", SECTION, re.DOTALL)[0]
    serve_block, curl_block = re.findall(r"```sh\n(.*?)```", SECTION, re.DOTALL)[:2]
    config = config.replace('base_url = "https://api.anthropic.com"', f'base_url = "{upstream.url}/anthropic"')
    assert upstream.url in config
    (tmp_path / "gateway.toml").write_text(config)
    port = free_port()
    lines = [line for line in serve_block.splitlines() if line and not line.startswith("pip install")]
    assert lines[0].startswith("export ") and lines[1] == "lucent serve --config gateway.toml --port 8080"
    exports = lines[0].replace("ANTHROPIC_API_KEY=sk-ant-your-key", f"ANTHROPIC_API_KEY={UPSTREAM_KEYS['anthropic']}")
    assert UPSTREAM_KEYS["anthropic"] in exports
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    serve = subprocess.Popen(["bash", "-c", f"{exports}\nexec {lines[1].replace('8080', str(port))}"], cwd=tmp_path, env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert serve.poll() is None, serve.stderr.read().decode()
            assert time.monotonic() < deadline, "lucent serve did not start"
            time.sleep(0.1)
        out = subprocess.run(["bash", "-c", f"{exports}\n{curl_block.replace('8080', str(port))}"], cwd=tmp_path, env=env,
                             capture_output=True, text=True, timeout=60)
    finally:
        serve.terminate()
        serve.wait(10)
    reply = json.dumps(recorded("simpleRequest", "anthropic", "response.json"))
    expected = lucent.convert(reply, "anthropic", "openai-chat", "response", context={"created": 0}).value.choices[0].message.content
    assert out.stdout == expected + "\n", out.stderr
    assert [(c["format"], c["model"]) for c in calls] == [("anthropic", "claude-sonnet-4-5")]
