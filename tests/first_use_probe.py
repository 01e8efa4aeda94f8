"""Workloads that tests/test_first_use.py runs, each in a fresh interpreter (first use happens
once per process): ``python -m tests.first_use_probe <workload> [arg]``. Each prints one JSON
object on its last line.

* ``threads``: 8 threads use three vendor formats for the first time at once, at a switch
  interval of 10 us; for each format all 8 start together (a barrier) on decode, convert and
  convert_stream, each thread on a different one of the three in each round. Every answer is
  compared with the same call made once more afterwards, on one thread.
* ``fork <delay>``: a thread makes a first conversion (which imports its converter and
  bindings) while the main thread forks ``delay`` seconds later; the child makes the same
  conversion. Reports whether the child hung.
* ``pool``: ``lucent.warm_up()``, then a multiprocessing pool of the ``fork`` start method
  converts each sample; reports the modules each child imported and its answers.
* ``warm``: ``lucent.warm_up()``, then decode, convert, convert_stream, assemble, iter_events,
  encode, encode_sse and ``lucent.sse.parse`` on every format, good and bad input; reports the
  modules that were imported after the warm-up (there should be none).
"""

from __future__ import annotations

import json
import multiprocessing
import sys
import threading
import time
from pathlib import Path
from typing import Any

SNAPSHOT = Path(__file__).parent / "data" / "lingua" / "snapshots" / "complexReasoningRequest"
VENDOR = {"anthropic": "anthropic", "gemini": "google", "openai-chat": "chat-completions", "openai-responses": "responses"}
THREADED = ("anthropic", "gemini", "openai-chat")


def _request(fmt: str) -> bytes:
    return (SNAPSHOT / VENDOR[fmt] / "request.json").read_bytes()


def _response(fmt: str) -> bytes:
    return (SNAPSHOT / VENDOR[fmt] / "response.json").read_bytes()


def _events(fmt: str) -> list[Any]:
    events: list[Any] = json.loads((SNAPSHOT / VENDOR[fmt] / "response-streaming.json").read_text())
    return events


def _answer(call: Any) -> str:
    """What a call gave, as text that two runs can compare: the encoded result (and its
    diagnostics), or the lucent error (type, code, path); any other exception by its type."""
    import lucent
    from lucent.errors import LucentError

    try:
        result = call()
    except LucentError as exc:
        return f"{type(exc).__name__} {exc.code} {exc.path}"
    except Exception as exc:  # noqa: BLE001 - reported, and the test fails on it
        return f"unexpected {type(exc).__name__}"
    return lucent.encode(result).decode()


def _calls(fmt: str) -> list[Any]:
    """decode, convert and convert_stream of one vendor format, as zero-argument calls."""
    import lucent
    from lucent import streams

    request, events = _request(fmt), _events(fmt)

    def converted() -> Any:
        result = lucent.convert(request, source=fmt, target="lux")
        return [result.value, result.diagnostics]

    def streamed() -> Any:
        conversion = streams.convert_stream(events, fmt, "lux")
        return [list(conversion), conversion.diagnostics]

    return [lambda: lucent.decode(request, fmt), converted, streamed]


def threads() -> dict[str, Any]:
    sys.setswitchinterval(1e-5)
    import lucent  # noqa: F401 - cheap: nothing of a format is loaded yet

    calls = {fmt: _calls(fmt) for fmt in THREADED}
    answers: dict[tuple[int, str, int], str] = {}
    barrier = threading.Barrier(8, timeout=120)

    def work(worker: int) -> None:
        for fmt in THREADED:
            for round_ in range(3):
                which = (worker + round_) % 3
                barrier.wait()
                answers[worker, fmt, which] = _answer(calls[fmt][which])

    workers = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    again = {(fmt, which): _answer(calls[fmt][which]) for fmt in THREADED for which in range(3)}
    differ = sorted({f"{fmt} {which}" for (_, fmt, which), answer in answers.items() if answer != again[fmt, which]})
    unexpected = sorted({answer for answer in answers.values() if answer.startswith("unexpected")})
    return {"calls": len(answers), "differ": differ, "unexpected": unexpected}


def _convert_chat_to_anthropic() -> str:
    return _answer(lambda: lucent_convert(_request("openai-chat"), "openai-chat", "anthropic"))


def lucent_convert(data: bytes, source: str, target: str) -> Any:
    import lucent

    result = lucent.convert(data, source=source, target=target)
    return [result.value, result.diagnostics]


def _child(queue: Any) -> None:
    queue.put(_convert_chat_to_anthropic())


def fork(delay: float) -> dict[str, Any]:
    import lucent  # noqa: F401

    first = threading.Thread(target=_convert_chat_to_anthropic)
    first.start()
    time.sleep(delay)
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_child, args=(queue,))
    child.start()
    child.join(30)
    hung = child.is_alive()
    if hung:
        child.kill()
        child.join()
    first.join()
    answer = None if hung else queue.get(timeout=10)
    return {"hung": hung, "exitcode": child.exitcode, "same": answer == _convert_chat_to_anthropic()}


_LOADED: set[str] = set()


def _pool_work(fmt: str) -> tuple[list[str], str]:
    """(the modules imported in this child since the parent's warm-up, the conversion)"""
    answer = _answer(lambda: lucent_convert(_request(fmt), fmt, "lux"))
    return sorted(set(sys.modules) - _LOADED), answer


def pool() -> dict[str, Any]:
    import lucent

    lucent.warm_up()
    _LOADED.update(sys.modules)
    context = multiprocessing.get_context("fork")
    formats = sorted(VENDOR) * 2
    with context.Pool(2) as workers:
        done = workers.map(_pool_work, formats)
    imported = sorted({name for names, _ in done for name in names if name.startswith(("lucent", "msgspec"))})
    same = all(answer == _answer(lambda f=fmt: lucent_convert(_request(f), f, "lux")) for fmt, (_, answer) in zip(formats, done))
    return {"imported": imported, "same": same, "answers": len(done)}


def warm() -> dict[str, Any]:
    import lucent
    from lucent import sse, streams

    lucent.warm_up()
    before = set(sys.modules)
    answers: list[str] = []
    lux = lucent.convert(_request("anthropic"), source="anthropic", target="lux").value
    lux_response = lucent.convert(_response("anthropic"), source="anthropic", target="lux", kind="response").value
    lux_events = list(streams.convert_stream(_events("anthropic"), "anthropic", "lux"))
    for target in ("lux", "sparktide", "llm-sdk", "htmlp", *VENDOR):
        document = _answer(lambda t=target: lucent.convert(lux, source="lux", target=t).value)
        answers.append(document)
        if not document.startswith(("unexpected", "UsageError", "ValidationError")):
            text = document.encode()
            answers.append(_answer(lambda t=target, b=text: lucent.convert(b, source=t, target="anthropic").value))
            answers.append(_answer(lambda t=target, b=text: lucent.decode(b, lucent._convert.FORMATS[t])))
            answers.append(_answer(lambda t=target, b=text: lucent.decode(b[:-1], lucent._convert.FORMATS[t])))  # malformed
        answers.append(_answer(lambda t=target: lucent.convert(b'{"model": 5}', source=t, target="lux")))  # refused
        answers.append(_answer(lambda t=target: lucent.convert(lux_response, source="lux", target=t, kind="response").value))
    for target in streams.FORMATS:
        out = _answer(lambda t=target: list(streams.convert_stream(lux_events, "lux", t)))
        answers.append(out)
        events = list(streams.convert_stream(lux_events, "lux", target))
        wire = b"".join(streams.encode_sse(events, target))
        answers.append(_answer(lambda t=target, w=wire: streams.assemble(w, t)))
        answers.append(_answer(lambda t=target, w=wire: list(streams.iter_events(w, t))))
        answers.append(_answer(lambda t=target, w=wire: streams.assemble(w[: len(w) // 2], t)))  # cut short
        answers.append(_answer(lambda t=target, w=wire: list(streams.convert_stream(w, t, "openai-responses"))))
        answers.append(_answer(lambda w=wire: [e.data for e in sse.parse(w)]))
    unexpected = sorted({a for a in answers if a.startswith("unexpected")})
    return {"imported": sorted(set(sys.modules) - before), "answers": len(answers), "unexpected": unexpected}


if __name__ == "__main__":
    workload = sys.argv[1]
    if workload == "threads":
        found = threads()
    elif workload == "fork":
        found = fork(float(sys.argv[2]))
    elif workload == "pool":
        found = pool()
    else:
        found = warm()
    print(json.dumps(found))
