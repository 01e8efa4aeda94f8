"""The SparkTide REMOTE 1.0 format: its hand-written transforms (transforms.py), value tables (tables.py), stream assembler (assembler.py), stream reader and writer (stream.py)."""
