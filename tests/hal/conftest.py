"""HAL test fixtures; fake_executables.py (next to this file) holds the fake loader."""
