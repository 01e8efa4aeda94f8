"""The vendors' own SDKs as the gateway's clients, and what each parsed as JSON.

``ask(front, gateway_url, request, stream)`` sends a recorded request of ``front``'s format with
that front's SDK (``openai`` for openai-chat and openai-responses, ``anthropic``,
``google-genai``) and returns what the SDK made of the reply, as JSON: the parsed response, or
for a stream its stream helper's final message (openai ``get_final_completion`` /
``get_final_response``, anthropic ``get_final_message``; google-genai has no helper: its chunks
are listed).
"""

from __future__ import annotations

from typing import Any

from tests.server.harness import GATEWAY_KEY

_GEMINI_CONFIG = ("tools", "toolConfig", "systemInstruction", "safetySettings", "cachedContent")


def openai_client(url: str, key: str = GATEWAY_KEY) -> Any:
    import openai

    return openai.OpenAI(base_url=f"{url}/v1", api_key=key, max_retries=0, timeout=20)


def anthropic_client(url: str, key: str = GATEWAY_KEY) -> Any:
    import anthropic

    return anthropic.Anthropic(base_url=url, api_key=key, max_retries=0, timeout=20)


def gemini_client(url: str, key: str = GATEWAY_KEY) -> Any:
    from google import genai
    from google.genai import types

    return genai.Client(api_key=key, http_options=types.HttpOptions(base_url=url, api_version="v1beta", timeout=20_000))


def gemini_config(request: dict[str, Any]) -> Any:
    """A REST ``GenerateContentRequest``'s members other than ``contents`` as the SDK's config."""
    from google.genai import types

    config = {name: request[name] for name in _GEMINI_CONFIG if name in request}
    config.update(request.get("generationConfig", {}))
    return types.GenerateContentConfig.model_validate(config)


def ask(front: str, url: str, request: dict[str, Any], stream: bool) -> Any:
    """What ``front``'s SDK parsed (see the module docstring)."""
    request = dict(request)
    request.pop("stream", None)
    if front == "openai-chat":
        client = openai_client(url)
        if stream:
            with client.chat.completions.stream(**request) as events:
                return _dump(events.get_final_completion())
        return _dump(client.chat.completions.create(**request))
    if front == "openai-responses":
        client = openai_client(url)
        if stream:
            with client.responses.stream(**request) as events:
                return _dump(events.get_final_response())
        return _dump(client.responses.create(**request))
    if front == "anthropic":
        client = anthropic_client(url)
        if stream:
            with client.messages.stream(**request) as events:
                return _dump(events.get_final_message())
        return _dump(client.messages.create(**request))
    client = gemini_client(url)
    model = request.pop("model")
    arguments = {"model": model, "contents": request["contents"], "config": gemini_config(request)}
    if stream:
        return [_dump(chunk) for chunk in client.models.generate_content_stream(**arguments)]
    return _dump(client.models.generate_content(**arguments))


def _dump(value: Any) -> Any:
    dumped = value.model_dump(mode="json", exclude_unset=True, by_alias=True)
    dumped.pop("sdk_http_response", None)
    dumped.pop("sdkHttpResponse", None)
    return dumped
