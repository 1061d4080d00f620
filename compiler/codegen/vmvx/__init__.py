"""vmvx code generation: Kernel IR -> VM bytecode calling the vmvx microkernels.

Entry point: ``build_executable(executable_name, kernels, use_ukernels=True) -> bytes``, a
``.vmfb`` in the ``vmvx-bytecode`` format that rt.devices.vmvx's LOADER loads (one export
per kernel). Modules: emitter (ABI, index arithmetic, loops), access (affine accesses as
linear offsets), loop_nest (tile ranges, loop nests), scalar (arith/math ops), generic
(scalar loops), ukernels (microkernel matching), data_tiling (mmt4d/pack/unpack microkernels),
relayout (pack/unpack of any layout as loops), buffers (bindings, rodata, workgroup scratch),
executable (the module). The target backend is rt.compiler.targets.vmvx.
Source: IREE's VMVX backend (compiler/src/iree/compiler/Codegen/VMVX, Dialect/VMVX).
"""
from rt.compiler.codegen.vmvx.executable import build_executable  # noqa: F401
