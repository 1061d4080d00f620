"""A buffer view's contents as text, as iree-run-module prints them: ``2x2xf32=[1 2][3 4]``.

Floats print with C's ``%G``, booleans as 0/1, integers in decimal; rows are bracketed per
dimension; after ``max_elements`` elements the text ends with ``...``. bf16 and the f8 types
(ml_dtypes, numpy kind ``V``) print as f32, i4 as integers. Used by the ``hal`` module's
``buffer_view.trace`` and by ``rt run``'s result printing (rt.tensor_text).

Source followed: IREE ``runtime/src/iree/hal/buffer_view_string_util.c``
(``iree_hal_buffer_view_format``).
"""
import numpy as np

#: elements printed per tensor before ``...`` (iree-run-module's ``--output_max_element_count``)
MAX_PRINTED_ELEMENTS = 1024


def element_text(value, kind):
    """One element: ``kind`` is the numpy dtype kind (``f`` float, ``b`` bool, else integer)."""
    if kind == "f":
        return "%G" % value
    if kind == "b":
        return "1" if value else "0"
    return str(value)


def _nested(array, kind, budget):
    """Bracketed rows of ``array``; ``budget`` = [elements left]; stops with ``...``."""
    if array.ndim == 1:
        items = [element_text(v, kind) for v in array[:budget[0]].tolist()]
        budget[0] -= len(items)
        if len(items) < array.shape[0]:
            budget[0] = -1
            return " ".join(items) + "..."
        return " ".join(items)
    parts = []
    for row in array:
        parts.append("[" + _nested(row, kind, budget) + ("" if budget[0] < 0 else "]"))
        if budget[0] < 0:
            break
    return "".join(parts)


def format_array(array, element, max_elements=MAX_PRINTED_ELEMENTS):
    """``SHAPExELEMENT=values`` for a numpy ``array`` (any shape and dtype) whose MLIR element
    type is ``element`` (``"f32"``, ``"bf16"``, ``"i8"``...). Never raises for a numpy array."""
    array = np.asarray(array)
    if array.dtype.kind == "V":  # ml_dtypes: floats (bf16, f8) as f32, the rest (i4) as ints
        is_float = array.dtype.name.startswith(("bfloat", "float"))
        array = array.astype(np.float32 if is_float else np.int64)
    kind = array.dtype.kind
    head = "x".join([str(d) for d in array.shape] + [element])
    if array.ndim == 0:
        return f"{head}={element_text(array.item(), kind)}"
    return f"{head}={_nested(array, kind, [max_elements])}"
