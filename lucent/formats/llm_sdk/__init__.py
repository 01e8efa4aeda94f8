"""The llm-sdk format: its hand-written transforms (transforms.py)."""
