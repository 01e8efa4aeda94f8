"""The Gemini generateContent format: its hand-written transforms (transforms.py)."""
