"""One package per wire format: what is hand-written about it (its transforms)."""
