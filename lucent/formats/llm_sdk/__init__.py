"""The llm-sdk format: its hand-written transforms (transforms.py), value tables (tables.py), stream assembler (assembler.py), stream reader and writer (stream.py)."""
