"""rt.compiler: MLIR in, ``.vmfb`` out, through IREE's phases (docs/ARCHITECTURE.md §5)."""


def compile_source(text, filename="<input>", devices=None, options=None):
    """Compile MLIR text to ``.vmfb`` bytes; see :mod:`rt.compiler.driver`."""
    from rt.compiler.driver import compile_source as _compile_source

    return _compile_source(text, filename, devices, options)


def compile_file(path, devices=None, options=None, output=None):
    """Compile an .mlir file to ``.vmfb`` bytes; see :mod:`rt.compiler.driver`."""
    from rt.compiler.driver import compile_file as _compile_file

    return _compile_file(path, devices, options, output)
