"""The Anthropic Messages format: its hand-written transforms (transforms.py)."""
