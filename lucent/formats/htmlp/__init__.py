"""The htmlp format: its hand-written transforms (transforms.py)."""
