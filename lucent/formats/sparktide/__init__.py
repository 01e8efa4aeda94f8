"""The SparkTide REMOTE 1.0 format: its hand-written transforms (transforms.py)."""
