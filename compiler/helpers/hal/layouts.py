"""Layout identifiers: the name the runtime knows a resolved tensor encoding by.

A tensor whose ``#iree_encoding.encoding`` was resolved by specialize-encodings is stored
packed (rt.compiler.targets.encoding). The runtime compares layouts as plain strings: the
executable metadata's ``binding_encodings`` (runtime/hal/executable.py) says which layout each
dispatch binding expects, and exported buffers are tagged with the layout of the tensor they
hold (``Buffer.encoding``), so binding a buffer packed for one layout to a dispatch expecting
another is an error instead of garbage. The identifier names the element type and the packing,
not the target, so two devices whose resolvers agree on a layout share it::

    tensor<16x16xf32, #iree_encoding.encoding<..., layouts = [#iree_cpu.cpu_encoding_layout<
        configuration = {encoding_info = {innerDimsPos = [0, 1], innerTileSizes = [16, 1],
        outerDimsPerm = [0, 1]}}>]>>
    // -> "packed<f32, innerDimsPos = [0, 1], innerTileSizes = [16, 1], outerDimsPerm = [0, 1]>"

Source followed: IREE ``Codegen/Common/EncodingUtils`` (MaterializeEncodingInfo) — IREE itself
does not check layouts at run time; this is rt's addition (docs/ARCHITECTURE.md §6).
"""
from xdsl.dialects.builtin import TensorType

from rt.compiler.dialects.flow_types import DispatchTensorType
from rt.compiler.dialects.iree_encoding import EncodingAttr
from rt.compiler.targets.encoding import EncodingInfo

#: Discardable attribute of ``hal.buffer_view.create``: the layout identifier of the exported
#: tensor, lowered by the vm phase to ``hal.buffer.set_encoding`` on the view's buffer.
LAYOUT_ATTR = "rt.layout"


def _ints(values):
    return "[" + ", ".join(str(v) for v in values) + "]"


def layout_identifier(type_):
    """The layout identifier of a tensor (or ``!flow.dispatch.tensor``) type, or None when the
    type carries no resolved encoding (a plain row-major tensor)."""
    if isinstance(type_, DispatchTensorType):
        type_ = type_.bound_type
    if not isinstance(type_, TensorType) or not isinstance(type_.encoding, EncodingAttr):
        return None
    layouts = type_.encoding.layouts.data
    if not layouts:
        return None
    info = EncodingInfo.from_layout(layouts[0])
    return (f"packed<{type_.element_type}, innerDimsPos = {_ints(info.inner_dims_pos)}, "
            f"innerTileSizes = {_ints(info.inner_tile_sizes)}, "
            f"outerDimsPerm = {_ints(info.outer_dims_perm)}>")
