"""rt's own object mapping: GOT and PLT relocations, page protections, no LLVM on the run path."""
import subprocess
import sys

import numpy as np
from llvmlite import ir

from llvm_cpu_helpers import bindings, build, load
from rt.compiler.codegen.llvm_cpu.interface import F32, I32, KernelInterface
from rt.devices.llvm_cpu import testing
from rt.devices.llvm_cpu._code_mapping import PAGE_SIZE
from rt.devices.llvm_cpu.elf import RELOCATION_KINDS, read_elf_object
from rt.devices.llvm_cpu.image import Image
from rt.devices.llvm_cpu.loader import _resolve_imports


def _relocation_names(data):
    elf = read_elf_object(data)
    return {RELOCATION_KINDS[r.type][0] for rels in elf.relocations.values() for r in rels}


def _emit_got_users(lb):
    """Export ``got``: x[0] = expf(x[0]) through a GOT-loaded pointer, x[1] = @counter + x[1]."""
    counter = ir.GlobalVariable(lb.module, F32, "rt_test_counter")  # preemptible: via the GOT
    counter.initializer = F32(40.0)
    expf = ir.Function(lb.module, ir.FunctionType(F32, [F32]), "expf")
    fn = lb.declare_export("got")
    b = ir.IRBuilder(fn.append_basic_block())
    k = KernelInterface(b, fn)
    x0 = k.binding(0)
    slot = b.alloca(expf.type)
    b.store(expf, slot, align=8)
    b.store(b.call(b.load(slot, typ=expf.type), [b.load(x0, typ=F32)]), x0)
    x1 = b.gep(x0, [I32(1)], source_etype=F32)
    b.store(b.fadd(b.load(counter, typ=F32), b.load(x1, typ=F32)), x1)
    b.ret(I32(0))
    lb.add_export(fn, 1, 0)


def test_got_relocations_resolve():
    obj = build(_emit_got_users)
    assert _relocation_names(obj.data) & {"GOTPCREL", "GOTPCRELX", "REX_GOTPCRELX"}
    x = np.array([1.5, 2.0], np.float32)
    load(obj).dispatch(0, (1, 1, 1), [], *bindings(x))
    assert x[0] == np.float32(np.exp(np.float32(1.5)))
    assert x[1] == 42.0


def _protections(address):
    """{page address: 'r-xp'-style permissions} of the mappings at and after ``address``."""
    out = {}
    with open("/proc/self/maps") as maps:
        for line in maps:
            span, perms = line.split()[:2]
            lo, hi = (int(v, 16) for v in span.split("-"))
            for page in range(max(lo, address), hi, PAGE_SIZE):
                if page - address < 16 * PAGE_SIZE:
                    out[page] = perms
    return out


def test_code_is_sealed_read_execute_and_constants_read_only():
    obj = testing.conformance_executable()
    elf = read_elf_object(obj.data)
    image = Image(elf, obj.data, _resolve_imports(elf.undefined_symbols))
    perms = _protections(image.base)
    assert perms[image.base] == "r-xp"
    end = image.base + image.mapping.size
    assert set(perms[p] for p in range(image.base, end, PAGE_SIZE)) <= {"r-xp", "r--p", "rw-p"}
    assert all("w" not in perms[p] or "x" not in perms[p] for p in range(image.base, end, PAGE_SIZE))


def test_rt_run_of_an_llvm_cpu_module_does_not_import_llvmlite(tmp_path):
    src = tmp_path / "add.mlir"
    src.write_text("func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {\n"
                   "  %0 = arith.addf %a, %b : tensor<4xf32>\n"
                   "  return %0 : tensor<4xf32>\n}\n")
    vmfb = tmp_path / "add.vmfb"
    subprocess.run([sys.executable, "-m", "rt", "compile", str(src), "-o", str(vmfb),
                    "--device", "llvm-cpu"], check=True)
    script = ("import sys, runpy\n"
              "sys.argv = ['rt', 'run', sys.argv[1], '--function=add', '--input=4xf32=1,2,3,4',"
              " '--input=4xf32=1,1,1,1']\n"
              "try:\n    runpy.run_module('rt', run_name='__main__')\n"
              "except SystemExit as e:\n    assert not e.code, e.code\n"
              "print('LLVMLITE' if any(m.startswith('llvmlite') for m in sys.modules) else 'CLEAN')\n")
    run = subprocess.run([sys.executable, "-c", script, str(vmfb)], capture_output=True,
                         text=True, check=True)
    assert "4xf32=2 3 4 5" in run.stdout
    assert run.stdout.strip().endswith("CLEAN"), run.stdout
