"""ABI helpers: the reflection metadata of exported functions.
"""
