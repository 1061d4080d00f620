"""Write ``runtime/hal/_generated/imports.pxi``: the argument positions of every ``hal`` import.

The C entries of rt.runtime.hal._module include it and read registers by these names; the
positions come from the one table in ``runtime/hal/imports.py`` (see its ``pxi_text``).
Run by setup.py before cythonize, or by hand: ``python runtime/hal/imports_gen.py``.
"""
import os
import runpy

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "_generated")


def main():
    text = runpy.run_path(os.path.join(HERE, "imports.py"))["pxi_text"]()
    os.makedirs(OUT, exist_ok=True)
    path = os.path.join(OUT, "imports.pxi")
    if not os.path.exists(path) or open(path).read() != text:
        with open(path, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
