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

Lowering runs here; the code generators run through a content-keyed cache
(rt.compiler.targets.codegen_cache: identical variants are generated once, and with
``cache_dir`` not again in later compilations) and, for many executables, in parallel worker
processes (:mod:`serialization_jobs`), each variant handed to them as soon as it is lowered so
that lowering the next overlaps their work (``--timing`` lists "lower to Kernel IR" inside
"code generation"); the output does not depend on the worker count.

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
from xdsl.dialects.func import FuncOp

from rt.compiler.codegen.cost import kernel_bytes, kernel_flops
from rt.compiler.dialects.hal import (ExecutableBinaryOp, ExecutableExportOp, ExecutableOp, ExecutableVariantOp,
                                      InterfaceBindingSubspanOp)
from rt.compiler.frontend.diagnostics import error_at_op, op_location
from rt.compiler.passes import instrumentation
from rt.compiler.passes.base import Pass
from rt.compiler.helpers.hal.layouts import layout_identifier
from rt.compiler.helpers.hal.serialization_jobs import Job, JobError, serialize_all, worker_count
from rt.compiler.helpers.hal.target_devices import from_attr
from rt.compiler.helpers.hal.workgroup_count import build_count_region
from rt.runtime.errors import CompileError, RtError
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
        if isinstance(op, InterfaceBindingSubspanOp):
            seen.setdefault(op.binding.value.data, set()).add(layout_identifier(op.result.type))
    return {i: next(iter(ids)) for i, ids in seen.items() if len(ids) == 1 and None not in ids}


@dataclasses.dataclass(frozen=True)
class TranslateExecutablesPass(Pass):
    """Lower every variant's dispatch functions to Kernel IR and serialize them.

    Options: ``jobs`` (processes running the code generators: 0 = one per core, see
    serialization_jobs), ``cache_dir`` (a directory keeping serialized executables by content
    across compilations; "" = only within this compilation, see rt.compiler.targets.codegen_cache),
    ``reassociate_fp_reductions`` (False keeps llvm-cpu float reductions in loop order: the
    target config gets ``reassociate_fp_reductions = false``, IREE's
    ``--iree-llvmcpu-reassociate-fp-reductions=false``; vmvx reductions are in order anyway).
    """

    name = "iree-hal-translate-executables"
    jobs: int = 0
    cache_dir: str = ""
    reassociate_fp_reductions: bool = True

    def run(self, module, ctx):
        from rt.compiler.targets.codegen_cache import CodegenCache

        variants = [(exe, variant) for exe in [op for op in module.body.block.ops if isinstance(op, ExecutableOp)]
                    for variant in [op for op in exe.body.block.ops if isinstance(op, ExecutableVariantOp)]
                    if any(isinstance(op, ModuleOp) for op in variant.body.block.ops)]
        cache = CodegenCache(self.cache_dir or None)
        pending, keys, results, shared = [], [], [], []

        def lowered():
            """Each variant lowered to Kernel IR, in order; yields the jobs the code generators
            must run (identical variants once, cache hits never), so that the workers generate
            code for one while the next is lowered. Kernel IR that cannot be pickled (key None)
            stays in-process."""
            for exe, variant in variants:
                with instrumentation.scope("lower to Kernel IR"):
                    entry = self._lower(exe, variant)
                    key = cache.key(entry[1].backend, entry[1].name, entry[1].kernels, entry[1].config)
                    result = cache.get(key)
                pending.append(entry)
                keys.append(key)
                results.append(result)
                if result is None and key is not None and key not in shared:
                    shared.append(key)
                    yield entry[1]

        with instrumentation.scope("code generation"):
            generated = serialize_all(lowered(), worker_count(self.jobs, len(variants)))
            done = dict(zip(shared, generated))
            local = [i for i, (k, r) in enumerate(zip(keys, results)) if r is None and k is None]
            done.update(zip(local, serialize_all([pending[i][1] for i in local], 1)))
        for i, key in enumerate(keys):
            if results[i] is None:
                results[i] = done[key if key is not None else i]
        for (variant, job, extra), key, result in zip(pending, keys, results):
            if isinstance(result, JobError):
                raise self._error(variant, job, result)
            cache.put(key, result)
            fmt, data, metadata = result
            metadata = {**metadata, **extra}
            inner = next(op for op in variant.body.block.ops if isinstance(op, ModuleOp))
            binary = ExecutableBinaryOp.create_binary(variant.sym_name.data, fmt, data, metadata)
            variant.body.block.insert_op_before(binary, inner)
            variant.body.block.erase_op(inner)

    def _lower(self, exe, variant):
        """``(variant, Job, metadata the code generator does not make)``: the variant's exports
        lowered to Kernel IR, their count regions set; the metadata holds the binding encodings
        and the flops of each export (when any)."""
        from rt.compiler.codegen.lowering import lower_dispatch_function

        inner = next(op for op in variant.body.block.ops if isinstance(op, ModuleOp))
        backend = _backend(variant)
        config = from_attr(variant.target.configuration)
        if not self.reassociate_fp_reductions and backend.name == "llvm-cpu":
            config = {**config, "reassociate_fp_reductions": False}
        funcs = {op.sym_name.data: op for op in inner.body.block.ops if isinstance(op, FuncOp)}
        exports = sorted((op for op in variant.body.block.ops if isinstance(op, ExecutableExportOp)),
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
            flops, nbytes = kernel_flops(kernel), kernel_bytes(kernel)
            if flops is not None:
                costs[kernel.name] = {"flops": flops, **({} if nbytes is None else {"bytes": nbytes})}
            self._set_count_region(export, kernel)
        extra = {key: value for key, value in ((BINDING_ENCODINGS, encodings), (COSTS, costs)) if value}
        return variant, Job(backend.name, exe.sym_name.data, tuple(kernels), config), extra

    @staticmethod
    def _error(variant, job, error):
        if error.kind == "compile" and error.where[0] is not None:
            return CompileError(error.message, *error.where)
        # executables carry no location of their own: name the first source op they hold
        located = next((op for op in variant.walk() if op_location(op) is not None), variant)
        return error_at_op(located, f"serializing @{job.name} for {job.backend}: {error.message}")

    @staticmethod
    def _set_count_region(export, kernel):
        region = build_count_region(kernel)
        old = export.workgroup_count
        for block in list(old.blocks):
            old.detach_block(block)
        region.move_blocks(old)
