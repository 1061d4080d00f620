"""``iree-hal-translate-executables``: dispatch functions -> serialized executables per variant.

Input: ``hal.executable.variant`` ops holding ``hal.executable.export`` ops and a
``builtin.module`` of interface-form dispatch functions (iree-hal-materialize-interfaces).
Each export's function is lowered to Kernel IR
(``rt.compiler.codegen.lowering.lower_dispatch_function(func, backend, config)``) and the
variant's kernels are serialized by the target backend (``TargetBackend.serialize``). Output:
the module is replaced by ``hal.executable.binary`` (the bytes and metadata carried in the IR,
see rt.compiler.dialects.hal_blobs) and each export's ``count`` region computes its workgroup
grid from the dispatch's push constants (Kernel Distribution: ceildiv(domain, tile)). When an
export binds encoded (packed) tensors, the metadata's ``binding_encodings`` lists per export
the layout identifier each binding expects (:mod:`layouts`; None for plain bindings), which
the runtime checks against the buffers it is given (runtime/hal/executable.py); ``costs``
gives the flops of each export whose sizes are static (rt.compiler.codegen.cost), which the
simulator's roofline model uses.

Example::

    hal.executable.variant public @vmvx_bytecode target(#hal.executable.target<"vmvx", "vmvx-bytecode">) {
      hal.executable.export public @add ordinal(0) layout(#layout) count(%d: !hal.device, %w: index) -> (...) {..}
      builtin.module { func.func @add() { ... } }
    }
    // ->
    hal.executable.variant public @vmvx_bytecode target(...) {
      hal.executable.export public @add ordinal(0) layout(#layout) count(%device: !hal.device, %c0: i32) -> (index, index, index) {
        %0 = arith.extui %c0 : i32 to i64
        %1 = arith.index_cast %0 : i64 to index
        %c64 = arith.constant 64 : index
        %2 = arith.ceildivui %1, %c64 : index
        %c1 = arith.constant 1 : index
        hal.return %2, %c1, %c1 : index, index, index
      }
      hal.executable.binary public @vmvx_bytecode format("vmvx-bytecode") metadata("{..}") data(dense<"0x..."> : vector<1234xi8>)
    }

Source followed: IREE ``Dialect/HAL/Transforms/TranslateExecutables.cpp`` (and
``SerializeExecutables.cpp`` for the binary op).
"""
import dataclasses

from xdsl.dialects.builtin import ModuleOp

from rt.compiler.dialects.hal import ExecutableBinaryOp
from rt.compiler.frontend.diagnostics import error_at_op
from rt.compiler.passes.base import Pass
from rt.compiler.passes.hal.layouts import layout_identifier
from rt.compiler.passes.hal.target_devices import from_attr
from rt.compiler.passes.hal.workgroup_count import build_count_region
from rt.runtime.errors import CompileError, RtError
from rt.compiler.codegen.cost import kernel_flops
from rt.runtime.hal.executable import BINDING_ENCODINGS, COSTS


def _backend(variant):
    from rt.compiler.targets import get_backend

    name = variant.target.backend.data
    try:
        return get_backend(name)
    except (RtError, ModuleNotFoundError) as exc:
        raise error_at_op(variant, f"hal.executable.variant @{variant.sym_name.data}: no code "
                                   f"generator for target backend {name!r} ({exc})") from None


def _binding_layouts(func):
    """``{binding ordinal: layout identifier}`` of dispatch function ``func``'s encoded
    bindings, from the types of its ``hal.interface.binding.subspan`` ops (a binding whose
    subspans disagree is left out: it accepts any buffer)."""
    seen = {}
    for op in func.walk():
        if op.name == "hal.interface.binding.subspan":
            seen.setdefault(op.binding.value.data, set()).add(layout_identifier(op.result.type))
    return {i: next(iter(ids)) for i, ids in seen.items() if len(ids) == 1 and None not in ids}


@dataclasses.dataclass(frozen=True)
class TranslateExecutablesPass(Pass):
    """Lower every variant's dispatch functions to Kernel IR and serialize them."""

    name = "iree-hal-translate-executables"

    def run(self, module, ctx):
        from rt.compiler.codegen.lowering import lower_dispatch_function

        for exe in [op for op in module.body.block.ops if op.name == "hal.executable"]:
            for variant in [op for op in exe.body.block.ops if op.name == "hal.executable.variant"]:
                inner = [op for op in variant.body.block.ops if isinstance(op, ModuleOp)]
                if not inner:
                    continue
                backend = _backend(variant)
                config = from_attr(variant.target.configuration)
                funcs = {op.sym_name.data: op for op in inner[0].body.block.ops if op.name == "func.func"}
                exports = sorted((op for op in variant.body.block.ops if op.name == "hal.executable.export"),
                                 key=lambda e: e.ordinal.value.data if e.ordinal is not None else 0)
                kernels, encodings, costs = [], {}, {}
                for export in exports:
                    func = funcs.get(export.sym_name.data)
                    if func is None:
                        raise error_at_op(export, f"hal.executable.export @{export.sym_name.data} has no "
                                                  "func.func of that name in its variant")
                    layouts = _binding_layouts(func)
                    kernel = lower_dispatch_function(func, backend, config)
                    kernels.append(kernel)
                    entries = [layouts.get(i) for i in range(kernel.binding_count)]
                    if any(entries):
                        encodings[kernel.name] = entries
                    flops = kernel_flops(kernel)
                    if flops is not None:
                        costs[kernel.name] = {"flops": flops}
                    self._set_count_region(export, kernel)
                try:
                    fmt, data, metadata = backend.serialize(exe.sym_name.data, kernels, config)
                except CompileError:
                    raise
                except RtError as exc:
                    raise error_at_op(variant, f"serializing @{exe.sym_name.data} for "
                                               f"{backend.name}: {exc}") from None
                if encodings:
                    metadata = {**metadata, BINDING_ENCODINGS: encodings}
                if costs:
                    metadata = {**metadata, COSTS: costs}
                binary = ExecutableBinaryOp.create_binary(variant.sym_name.data, fmt, data, metadata)
                variant.body.block.insert_op_before(binary, inner[0])
                variant.body.block.erase_op(inner[0])

    @staticmethod
    def _set_count_region(export, kernel):
        region = build_count_region(kernel)
        old = export.workgroup_count
        for block in list(old.blocks):
            old.detach_block(block)
        region.move_blocks(old)
