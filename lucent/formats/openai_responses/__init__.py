"""The OpenAI Responses format: its hand-written transforms (transforms.py)."""
