"""Builds an llvm-cpu executable: exports + library descriptor + query, emitted as an object.

Mirrors what IREE's LLVMCPU target does when it serializes a variant
(compiler/plugins/target/LLVMCPU/LibraryBuilder.cpp): collect the exports, emit a constant
library descriptor (``rt.devices.llvm_cpu.abi.LIBRARY_V0``) and a query function returning
it, then compile the module to a relocatable object.
"""
import hashlib
from dataclasses import dataclass, field

from llvmlite import ir

from rt.compiler.codegen.llvm_cpu.interface import (EXPORT_ATTRS_TYPE, I32, LIBRARY_TYPE, PTR,
                                                    declare_export)
from rt.compiler.codegen.llvm_cpu.target import TRIPLE, emit_object
from rt.devices.llvm_cpu import abi
from rt.runtime.errors import InvalidArgumentError


@dataclass(frozen=True)
class ExecutableObject:
    """A serialized executable variant: ``format``, object ``data`` and loader ``metadata``.

    metadata keys: abi_version, cpu (target name), cpu_features (required, ``"+a,+b"``),
    target_triple, exports (names by ordinal), sha256 (of ``data``), and assertions (the
    messages of the library's ``cf.assert`` ops, by index) when it has any.
    """

    format: str
    data: bytes
    metadata: dict = field(default_factory=dict)


@dataclass(frozen=True)
class _Export:
    fn: ir.Function
    binding_count: int
    constant_count: int
    workgroup_size: tuple


class LibraryBuilder:
    """Collects exports for one ``target`` into ``module`` and emits the object.

    Usage: ``fn = lb.declare_export(name)``, emit its body, ``lb.add_export(fn, ...)`` (or use
    a kernel emitter that does both), then ``lb.build()``.
    """

    def __init__(self, name, target):
        self.name = name
        self.target = target
        self.module = ir.Module(name=name)
        self.module.triple = TRIPLE
        self._exports = []

    def declare_export(self, name):
        """A new function with the dispatch signature, to be filled and then added."""
        if name == abi.LIBRARY_QUERY_SYMBOL or name in self.module.globals:
            raise InvalidArgumentError(f"llvm-cpu library '{self.name}': symbol '{name}' "
                                       f"is already defined")
        return declare_export(self.module, name)

    def add_export(self, fn, binding_count, constant_count, workgroup_size=(1, 1, 1)):
        """Append ``fn`` to the export table; returns its ordinal."""
        if not (0 <= binding_count <= abi.MAX_BINDINGS and 0 <= constant_count <= abi.MAX_CONSTANTS):
            raise InvalidArgumentError(
                f"export '{fn.name}': {binding_count} bindings / {constant_count} constants; "
                f"at most {abi.MAX_BINDINGS} / {abi.MAX_CONSTANTS}")
        if len(workgroup_size) != 3 or min(workgroup_size) < 1:
            raise InvalidArgumentError(f"export '{fn.name}': workgroup_size {workgroup_size} "
                                       f"must be three ints >= 1")
        self._exports.append(_Export(fn, binding_count, constant_count, tuple(workgroup_size)))
        return len(self._exports) - 1

    def _string(self, text, name):
        data = bytearray(text.encode("utf-8") + b"\0")
        ty = ir.ArrayType(ir.IntType(8), len(data))
        g = ir.GlobalVariable(self.module, ty, name)
        g.initializer = ir.Constant(ty, data)
        g.global_constant, g.linkage, g.unnamed_addr = True, "private", True
        return g

    def _table(self, element_ty, values, name):
        if not values:
            return ir.Constant(PTR, None)
        ty = ir.ArrayType(element_ty, len(values))
        g = ir.GlobalVariable(self.module, ty, name)
        g.initializer = ir.Constant(ty, values)
        g.global_constant, g.linkage = True, "private"
        return g

    def _emit_descriptor(self, features):
        names = [self._string(e.fn.name, f"rt_export_name_{i}") for i, e in enumerate(self._exports)]
        attrs = [ir.Constant(EXPORT_ATTRS_TYPE, [
            I32(e.binding_count), I32(e.constant_count),
            ir.Constant(ir.ArrayType(I32, 3), [I32(v) for v in e.workgroup_size])])
            for e in self._exports]
        desc = ir.GlobalVariable(self.module, LIBRARY_TYPE, abi.LIBRARY_DESCRIPTOR_SYMBOL)
        desc.initializer = ir.Constant(LIBRARY_TYPE, [
            I32(abi.ABI_VERSION), I32(len(self._exports)),
            self._string(self.name, "rt_library_name"),
            self._string(features, "rt_library_cpu_features"),
            self._table(PTR, names, "rt_export_names"),
            self._table(PTR, [e.fn for e in self._exports], "rt_export_fns"),
            self._table(EXPORT_ATTRS_TYPE, attrs, "rt_export_attrs"),
        ])
        # Internal, not private: the symbol stays in the object's symbol table, where the
        # loader finds the descriptor to decode it without running the query.
        desc.global_constant, desc.linkage = True, "internal"
        query = ir.Function(self.module, ir.FunctionType(PTR, [I32]), abi.LIBRARY_QUERY_SYMBOL)
        query.attributes.add("nounwind")
        b = ir.IRBuilder(query.append_basic_block("entry"))
        ok = b.icmp_unsigned(">=", query.args[0], I32(abi.ABI_VERSION))
        b.ret(b.select(ok, desc, ir.Constant(PTR, None)))

    def build(self, required_features=None):
        """Emit the descriptor and query, compile, and return an ``ExecutableObject``.

        required_features: override of the ``"+a,+b"`` string recorded in the descriptor and
        metadata (default: ``target.required_features``); tests use it to fake requirements.
        """
        features = self.target.required_features if required_features is None else required_features
        for fn in self.module.functions:
            if fn.blocks:
                fn.attributes.add("nounwind")
        self._emit_descriptor(features)
        data = emit_object(self.module, self.target)
        metadata = {
            "abi_version": abi.ABI_VERSION,
            "cpu": self.target.name,
            "cpu_features": features,
            "target_triple": TRIPLE,
            "exports": [e.fn.name for e in self._exports],
            "sha256": hashlib.sha256(data).hexdigest(),
        }
        assertions = self.module.__dict__.get("rt_assertions")
        if assertions:
            metadata["assertions"] = list(assertions)
        return ExecutableObject(abi.FORMAT, data, metadata)
