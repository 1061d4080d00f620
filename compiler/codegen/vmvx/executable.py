"""Kernels -> one vmvx executable: a ``.vmfb`` with one exported dispatch function per kernel.

Each export follows the vmvx dispatch ABI of rt.devices.vmvx.executable (cconv
``0rriiiiii_v``; reflection ``binding_count``, ``constant_count``, ``workgroup_size`` and
``binding_access`` with ``wo`` bindings declared ``rw``) and runs the kernel's ops in order
over the workgroup's tile. Exports are emitted in kernel order, so export ordinal i is
kernels[i].
Source: IREE's VMVX target (compiler/plugins/target/VMVX/VMVXTarget.cpp): one vm.module per
executable variant, serialized as bytecode.
"""
import re

from rt.compiler.codegen import kernel_ir
from rt.compiler.codegen.vmvx.buffers import check_uses
from rt.compiler.codegen.vmvx.data_tiling import emit_mmt4d, emit_pack, emit_unpack
from rt.compiler.codegen.vmvx.emitter import ENTRY_CCONV, KernelEmitter
from rt.compiler.codegen.vmvx.generic import emit_generic
from rt.runtime.errors import CompileError, InvalidArgumentError
from rt.runtime.vm import ModuleBuilder
from rt.runtime.vm.manifest import SYMBOL

_IDENT = re.compile(r"[^A-Za-z0-9_]")


def _identifier(name):
    ident = _IDENT.sub("_", str(name)) or "_"
    return "_" + ident if ident[0].isdigit() else ident


def _reflection(kernel):
    access = tuple(kernel.binding_access) or ("rw",) * kernel.binding_count
    if len(access) != kernel.binding_count or any(a not in ("ro", "wo", "rw") for a in access):
        raise CompileError(f"vmvx codegen: kernel {kernel.name!r}: binding_access {kernel.binding_access!r} must "
                           f"give 'ro', 'wo' or 'rw' for each of its {kernel.binding_count} bindings")
    refl = {"binding_count": str(kernel.binding_count), "constant_count": str(kernel.constant_count),
            "workgroup_size": "1,1,1"}
    if access:
        refl["binding_access"] = ",".join("ro" if a == "ro" else "rw" for a in access)
    return refl


def emit_kernel(mb, kernel, use_ukernels=True, rodata_segments=None):
    """Add ``kernel``'s export to ModuleBuilder ``mb``; ``rodata_segments`` (content ->
    RodataRef) lets kernels of one executable share identical constant data."""
    if not isinstance(kernel, kernel_ir.Kernel):
        raise CompileError(f"vmvx codegen: expected a kernel_ir.Kernel, got {type(kernel).__name__}")
    name = kernel.name if SYMBOL.match(str(kernel.name)) else _identifier(kernel.name)
    try:
        fb = mb.function(name, ENTRY_CCONV, export=True, reflection=_reflection(kernel))
    except InvalidArgumentError as e:
        raise CompileError(f"vmvx codegen: kernel {kernel.name!r}: {e}") from None
    em = KernelEmitter(fb, kernel, rodata_segments)
    for index, op in enumerate(kernel.ops):
        if isinstance(op, (kernel_ir.Generic, kernel_ir.Mmt4d, kernel_ir.Pack, kernel_ir.Unpack)):
            check_uses(kernel, index, op)
    em.prologue()
    for index, op in enumerate(kernel.ops):
        try:
            _emit_op(em, op, index, use_ukernels)
        except InvalidArgumentError as e:
            raise CompileError(f"vmvx codegen: kernel {kernel.name!r} op {index} ({type(op).__name__}) does not "
                               f"type-check: {e}") from None
    fb.return_([])


def _emit_op(em, op, index, use_ukernels):
    kernel = em.kernel
    if isinstance(op, kernel_ir.Generic):
        emit_generic(em, op, index, use_ukernels)
    elif isinstance(op, kernel_ir.Mmt4d):
        emit_mmt4d(em, op, index, use_ukernels)
    elif isinstance(op, kernel_ir.Pack):
        emit_pack(em, op, index)
    elif isinstance(op, kernel_ir.Unpack):
        emit_unpack(em, op, index)
    else:
        raise CompileError(f"vmvx codegen: kernel {kernel.name!r} op {index} is a {type(op).__name__}; "
                           f"expected Generic, Mmt4d, Pack or Unpack")


def build_executable(executable_name, kernels, use_ukernels=True):
    """``.vmfb`` bytes of the vmvx executable holding ``kernels`` (export order = list order).

    use_ukernels: False lowers every Generic and Mmt4d to scalar bytecode loops (pack and
    unpack always use their microkernels). Raises CompileError for malformed kernels or ops
    the backend cannot lower, naming the kernel and op.
    """
    mb = ModuleBuilder(_identifier(executable_name))
    seen, segments = set(), {}
    for kernel in kernels:
        if kernel.name in seen:
            raise CompileError(f"vmvx codegen: executable {executable_name!r} has two kernels named {kernel.name!r}")
        seen.add(kernel.name)
        emit_kernel(mb, kernel, use_ukernels, segments)
    try:
        return mb.build()
    except InvalidArgumentError as e:
        raise CompileError(f"vmvx codegen: executable {executable_name!r}: {e}") from None
