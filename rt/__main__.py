"""``python -m rt`` and the ``rt`` command (its wrapper imports ``process_main`` from here).

Before anything else is imported, the process raises the garbage collector's young-generation
threshold (CPython's default: 700 allocations): starting a run makes ~25k long-lived objects
(modules, classes, tables) and collecting them while they are made was ~10 ms of a small
``rt run`` (issue 24 item 6). Collections still run, 14x less often.
"""
import gc
import sys

gc.set_threshold(10_000)

from rt.cli import process_main  # noqa: E402

if __name__ == "__main__":
    sys.exit(process_main())
