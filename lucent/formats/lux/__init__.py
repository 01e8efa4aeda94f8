"""The Lux IR v1 format, the hub every conversion goes through: its stream assembler (assembler.py), stream reader and writer (stream.py).

Lux has no transforms of its own: every mapping is written from or to it in the other formats' packages.
"""
