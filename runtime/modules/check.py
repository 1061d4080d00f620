"""The ``check`` VM native module: the assertions of IREE's e2e tests.

Import names and calling conventions are IREE's (runtime/src/iree/modules/check/module.cc and
compiler/src/iree/compiler/Modules/Check/check.imports.mlir); the compiler lowers the
``check.expect_*`` ops (and the ``_const`` forms, after materializing the constant) to them.

=======================  ==========  =========================================================
import (``check.`` + )   cconv       meaning
=======================  ==========  =========================================================
expect_true              0i_v        operand != 0
expect_false             0i_v        operand == 0
expect_all_true          0rr_v       device, view: every element is non-zero
expect_eq                0rrr_v      device, lhs, rhs: same shape, element type and bytes
expect_almost_eq         0rrrff_v    device, lhs, rhs, atol, rtol: |l - r| <= atol + rtol * |r|
=======================  ==========  =========================================================

Views are read on the host (local devices keep host-visible memory). In ``expect_almost_eq``
values compare in float64; equal values (including infinities of one sign) and NaN against
NaN count as equal. Failures raise :class:`rt.runtime.errors.CheckError` giving both shapes,
the number of differing elements and the first of them (index, lhs and rhs values); the VM
attaches its stack (``file:line:col in @function``) as ``exc.vm_stack``. Bad operands (a null
or non-view ref, a negative tolerance) raise ``InvalidArgumentError``.
"""
import math

import numpy as np

from rt.runtime.errors import CheckError, InvalidArgumentError, UnimplementedError
from rt.runtime.hal.buffer_view import BufferView, shape_text
from rt.runtime.hal.element_type import element_type_to_dtype
from rt.runtime.vm import NativeModule, native_function

#: How many differing elements a failure message lists.
MAX_REPORTED = 4


def _view(value, import_name, role):
    if not isinstance(value, BufferView):
        got = "null" if value is None else type(value).__name__
        raise InvalidArgumentError(f"check.{import_name}: {role} must be a hal.buffer_view, got {got}")
    return value


def _type_text(view):
    return shape_text(view.shape, view.element_type)


def _values(view):
    """The view's elements as a numpy array of its shape (zero-copy)."""
    return view.to_numpy()


def _format_index(flat, shape):
    if not shape:
        return "[]"
    return "[" + ", ".join(str(int(i)) for i in np.unravel_index(flat, shape)) + "]"


def _scalar_text(value):
    value = value.item() if hasattr(value, "item") else value
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else str(value)
    return str(value)


def _mismatches(differ, lhs, rhs):
    """``"N of M elements differ; first at [i, j]: lhs=a rhs=b; ..."`` for boolean ``differ``."""
    flat = np.flatnonzero(differ.reshape(-1))
    shown = []
    for k in flat[:MAX_REPORTED]:
        where = _format_index(int(k), lhs.shape)
        shown.append(f"{where}: lhs={_scalar_text(lhs.reshape(-1)[k])} rhs={_scalar_text(rhs.reshape(-1)[k])}")
    more = "; ..." if flat.size > MAX_REPORTED else ""
    return f"{flat.size} of {differ.size} elements differ; first at " + "; ".join(shown) + more


def _same_type(import_name, lhs, rhs):
    if lhs.shape != rhs.shape or lhs.element_type != rhs.element_type:
        raise CheckError(
            f"check.{import_name} failed: lhs is {_type_text(lhs)} but rhs is {_type_text(rhs)}; "
            "expected the same shape and element type"
        )


class CheckModule(NativeModule):
    """The ``check`` module (stateless; one instance may serve any number of contexts)."""

    name = "check"
    version = 0

    @native_function("expect_true", "0i_v")
    def expect_true(self, operand):
        if operand == 0:
            raise CheckError("check.expect_true failed: the operand is 0 (false); expected non-zero (true)")

    @native_function("expect_false", "0i_v")
    def expect_false(self, operand):
        if operand != 0:
            raise CheckError(f"check.expect_false failed: the operand is {operand} (true); expected 0 (false)")

    @native_function("expect_all_true", "0rr_v")
    def expect_all_true(self, device, operand):
        view = _view(operand, "expect_all_true", "operand")
        values = _values(view)
        differ = values == 0
        if differ.any():
            flat = np.flatnonzero(differ.reshape(-1))
            where = ", ".join(_format_index(int(k), values.shape) for k in flat[:MAX_REPORTED])
            more = ", ..." if flat.size > MAX_REPORTED else ""
            raise CheckError(
                f"check.expect_all_true failed: {flat.size} of {values.size} elements of "
                f"{_type_text(view)} are 0 (false), at {where}{more}; expected every element non-zero"
            )

    @native_function("expect_eq", "0rrr_v")
    def expect_eq(self, device, lhs, rhs):
        lhs = _view(lhs, "expect_eq", "lhs")
        rhs = _view(rhs, "expect_eq", "rhs")
        _same_type("expect_eq", lhs, rhs)
        try:
            dtype = element_type_to_dtype(lhs.element_type)
        except UnimplementedError:
            dtype = None
        if dtype is None:
            a = lhs.buffer.to_numpy(np.uint8, (lhs.byte_length,))
            b = rhs.buffer.to_numpy(np.uint8, (rhs.byte_length,))
            if not np.array_equal(a, b):
                raise CheckError(f"check.expect_eq failed: the bytes of lhs and rhs "
                                 f"({_type_text(lhs)}) differ; expected identical contents")
            return
        a, b = _values(lhs), _values(rhs)
        width = dtype.itemsize
        bits = np.dtype(f"u{width}") if width in (1, 2, 4, 8) else None
        differ = (a.view(bits) != b.view(bits)) if bits is not None else (a != b)
        if differ.any():
            raise CheckError(f"check.expect_eq failed: lhs and rhs ({_type_text(lhs)}): "
                             + _mismatches(differ, a, b))

    @native_function("expect_almost_eq", "0rrrff_v")
    def expect_almost_eq(self, device, lhs, rhs, atol, rtol):
        lhs = _view(lhs, "expect_almost_eq", "lhs")
        rhs = _view(rhs, "expect_almost_eq", "rhs")
        for name, value in (("atol", atol), ("rtol", rtol)):
            if not value >= 0:
                raise InvalidArgumentError(f"check.expect_almost_eq: {name} is {value}; expected a "
                                           "tolerance >= 0")
        _same_type("expect_almost_eq", lhs, rhs)
        a, b = _values(lhs), _values(rhs)
        x, y = a.astype(np.float64), b.astype(np.float64)
        with np.errstate(invalid="ignore", over="ignore"):
            close = (x == y) | (np.abs(x - y) <= atol + rtol * np.abs(y)) | (np.isnan(x) & np.isnan(y))
        differ = ~close
        if differ.any():
            raise CheckError(f"check.expect_almost_eq failed (atol={atol:g}, rtol={rtol:g}): lhs and "
                             f"rhs ({_type_text(lhs)}): " + _mismatches(differ, a, b))
