"""The README's figure: decoding throughput against document size, lucent and its baselines."""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bench.harness import Case

_STYLE = {"lucent": ("tab:blue", "o", "lucent.decode (full validation)"), "orjson": ("tab:gray", "s", "orjson.loads (no validation)"),
          "json": ("tab:olive", "^", "json.loads (no validation)"), "pydantic": ("tab:orange", "D", "pydantic v2 model_validate_json"),
          "jsonschema": ("tab:red", "v", "json.loads + jsonschema")}


def throughput_plot(cases: dict[str, Case], path: Path) -> None:
    """MB/s against document bytes (log-log), one line per function: the median over the
    schemas at each size, with each schema's lucent figure as a faint point."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    decode = {name: c for name, c in cases.items() if name.startswith("decode/")}
    if not decode:
        return
    sizes = sorted({name.rsplit("/", 1)[1] for name in decode}, key=lambda s: {"1KB": 0, "20KB": 1, "1MB": 2}.get(s, 3))
    fig, ax = plt.subplots(figsize=(7.5, 4.6), dpi=110)
    for function, (color, marker, label) in _STYLE.items():
        xs, ys = [], []
        for size in sizes:
            points = [(c.size, c.size / c.per_call(function) / 1e6) for n, c in decode.items() if n.endswith("/" + size) and function in c.samples]
            if points:
                xs.append(statistics.median(p[0] for p in points))
                ys.append(statistics.median(p[1] for p in points))
                if function == "lucent":
                    ax.scatter([p[0] for p in points], [p[1] for p in points], color=color, alpha=0.25, s=14)
        if xs:
            ax.plot(xs, ys, color=color, marker=marker, label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("document size (bytes of JSON)")
    ax.set_ylabel("throughput (MB/s, median over the 9 schemas)")
    ax.set_title("Decoding a conversation: lucent vs baselines, same process, interleaved")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
