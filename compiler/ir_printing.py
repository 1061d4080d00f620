"""Module -> MLIR text, the one place rt prints IR (opt output, pipeline dumps)."""
import io

from xdsl.printer import Printer


def module_to_text(module):
    """The module in MLIR's custom syntax, ending with a newline."""
    stream = io.StringIO()
    Printer(stream=stream).print_op(module)
    stream.write("\n")
    return stream.getvalue()
