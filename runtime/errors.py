"""The one error hierarchy of rt.

Every message says what was wrong, where, and what would be right, e.g.
``input 1 of @foo: expected tensor<?x8xf32>, got 4x7xf32``.
"""


class RtError(Exception):
    """Base class of every error rt raises on purpose."""


class CompileError(RtError):
    """A located compiler diagnostic, printed like mlir-opt: ``file:line:col: error: msg``.

    ``source_line`` (optional) is the offending line of input; when present it is shown under
    the message with a caret at ``col``.
    """

    def __init__(self, message, file=None, line=None, col=None, source_line=None):
        self.message = message
        self.file, self.line, self.col = file, line, col
        self.source_line = source_line
        super().__init__(self._format())

    def _format(self):
        if self.file is None:
            return f"error: {self.message}"
        loc = f"{self.file}:{self.line}:{self.col}" if self.line is not None else self.file
        text = f"{loc}: error: {self.message}"
        if self.source_line is not None and self.col:
            text += "\n" + self.source_line.rstrip("\n") + "\n" + " " * (self.col - 1) + "^"
        return text


class ModuleFormatError(RtError):
    """A ``.vmfb`` that is malformed, truncated, corrupted or fails bytecode verification."""


class InvalidArgumentError(RtError, ValueError):
    """A caller passed a value of the wrong type, shape, count or range."""


class NotFoundError(RtError, LookupError):
    """A named function, module, import, driver or device does not exist."""


class UnimplementedError(RtError, NotImplementedError):
    """The request is valid but rt does not support it (yet); the message says what would."""


class DeviceError(RtError):
    """A device failed executing work (a dispatch returned an error, a queue op failed)."""


class ResourceExhaustedError(RtError, MemoryError):
    """A heap, a pool or a limit ran out."""


class DeadlineExceededError(RtError, TimeoutError):
    """A wait did not complete before its timeout."""


class CheckError(RtError, AssertionError):
    """A ``check.expect_*`` assertion of an IREE-style e2e test failed; says what differed."""


class VMTrapError(RtError):
    """The VM trapped (``vm.fail``, division by zero, failed import) while running a function.

    ``vm_stack`` holds the frames innermost first, each ``file:line:col in @function``.
    """

    def __init__(self, message, vm_stack=()):
        self.message = message
        self.vm_stack = tuple(vm_stack)
        text = message
        if self.vm_stack:
            text += "\nVM stack (innermost first):\n" + "\n".join("  " + f for f in self.vm_stack)
        super().__init__(text)


class PermissionDeniedError(RtError, PermissionError):
    """The app's trust policy refuses the request (safe mode: a native executable that is not
    allow-listed or signed by a trusted key, or a signature that does not verify)."""
