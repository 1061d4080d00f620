"""VM values visible from Python: VMList (IREE's vm.list) and VMBuffer (read-only bytes).

Both are implemented in the interpreter extension (rt.runtime.vm._interp) so bytecode reaches
them without Python overhead.
"""
from rt.runtime.vm._interp import VMBuffer, VMList  # noqa: F401
