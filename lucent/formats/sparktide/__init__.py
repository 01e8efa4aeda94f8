"""The SparkTide REMOTE 1.0 format: its hand-written transforms (transforms.py), stream assembler (assembler.py; its stream reader and writer are in lucent/_stream_convert.py)."""
