"""The OpenAI Chat Completions format: its hand-written transforms (transforms.py)."""
