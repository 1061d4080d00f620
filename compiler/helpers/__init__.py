"""Modules the passes share, apart from the passes (``rt.compiler.passes.<phase>`` holds only passes):
analyses, lowering tables, builders and emitters, grouped by the IR they work on.
"""
