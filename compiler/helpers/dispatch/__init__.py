"""Dispatch-formation helpers: op kinds (what fuses, what is a root), shapes, dead-code rules.
"""
