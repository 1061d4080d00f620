"""rt.compiler.codegen.llvm_cpu: LLVM IR kernel emitters and object emission for x86-64.

``kernel_codegen.emit_kernel`` turns a kernel_ir.Kernel into one export (generic loop nests,
the register-tiled matmul, mmt4d for f32 and i8/i16 -> i32, pack/unpack with vector row copies
and tile transposes); ``target.cpu_target`` picks the CPU; ``library.LibraryBuilder`` collects
exports (from ``elementwise.emit_elementwise``, ``mmt4d.emit_mmt4d`` or hand-written bodies
using ``interface.KernelInterface``) and emits an ``ExecutableObject`` the llvm-cpu loader accepts.
"""
