"""Globals initialized from named parameters, as convert-to-stream sees them.

``util.global private @w = #flow.parameter.named<"model"::"w"> : tensor<4x8xf32>`` becomes a
resource global whose initializer holds ``stream.tensor.constant ... = #stream.parameter.named<
"model"::"w">``; iree-stream-pack-constants turns such constants into
``stream.cmd.parameter.load``. Each parameter is also listed in the module attribute
``rt.parameters`` (JSON: scope, key, type, element, shape), which the vm phase copies into the
``.vmfb`` so the runtime can check the files it is given against the tensor types
(docs/compiled_module_abi.md).

Errors: a CompileError at the global when its type is not a statically shaped tensor.
Source followed: IREE ``Stream/Conversion/UtilToStream`` (globals) and
``convertAttributeToStream`` (flow -> stream parameter attributes).
"""
import json

from xdsl.dialects.builtin import DYNAMIC_INDEX, StringAttr

from rt.compiler.dialects import stream
from rt.compiler.frontend import error_at_op

ATTRIBUTE = "rt.parameters"


def parameter_value(module, glob, attr):
    """The stream attribute for the flow (or stream) parameter ``attr`` initializing ``glob``
    (recorded in the module's ``rt.parameters``)."""
    tensor_type = glob.type
    if DYNAMIC_INDEX in tensor_type.get_shape():
        raise error_at_op(glob, f"util.global @{glob.sym_name.data} is initialized from parameter "
                                f"{attr.reference} but has the dynamic type {tensor_type}; parameters need static shapes")
    entries = json.loads(module.attributes[ATTRIBUTE].data) if ATTRIBUTE in module.attributes else []
    entries.append({"scope": attr.scope.data, "key": attr.key.data, "type": str(tensor_type),
                    "element": str(tensor_type.element_type), "shape": list(tensor_type.get_shape())})
    module.attributes[ATTRIBUTE] = StringAttr(json.dumps(entries))
    return stream.NamedParameterAttr(attr.scope, attr.key, attr.config)
