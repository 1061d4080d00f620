"""rt.devices.llvm_cpu: x86-64 objects emitted by llvmlite, mapped by rt's own loader, run by a Cython launcher.

``LOADER`` turns ``"llvm-cpu-object-x86_64"`` executables into ``LlvmCpuExecutableLibrary``
objects (see ``loader.py``); ``abi.py`` is the dispatch ABI shared with the code generator in
``rt.compiler.codegen.llvm_cpu``.
"""
from rt.devices.llvm_cpu.abi import FORMAT
from rt.devices.llvm_cpu.loader import LOADER, LlvmCpuLoader

__all__ = ["FORMAT", "LOADER", "LlvmCpuLoader"]
