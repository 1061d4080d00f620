"""Build script for rt.

Maps the import namespace onto the repository layout (DESIGN.md §1):
``rt`` -> ``rt/``, ``rt.compiler`` -> ``compiler/``, ``rt.runtime`` -> ``runtime/``,
``rt.devices`` -> ``devices/``. Before compiling, it runs the code generators (the VM's ISA
table in ``runtime/vm/isa.yaml`` produces the interpreter dispatch and the bytecode emitter),
then cythonizes every ``.pyx`` under ``runtime/`` and ``devices/``.
"""
import os
import runpy
import sys

from setuptools import Extension, setup

ROOT = os.path.dirname(os.path.abspath(__file__))
NAMESPACE = {"rt": "rt", "rt.compiler": "compiler", "rt.runtime": "runtime", "rt.devices": "devices"}
GENERATORS = ["runtime/vm/isa_gen.py"]
EXTENSION_ROOTS = ["runtime", "devices"]


def _packages():
    packages, package_dir = [], {}
    for prefix, top in NAMESPACE.items():
        package_dir[prefix] = top
        for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, top)):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "__pycache__")
            if "__init__.py" not in filenames:
                dirnames[:] = []
                continue
            rel = os.path.relpath(dirpath, os.path.join(ROOT, top))
            packages.append(prefix if rel == "." else prefix + "." + rel.replace(os.sep, "."))
    return packages, package_dir


def _run_generators():
    for gen in GENERATORS:
        path = os.path.join(ROOT, gen)
        if os.path.exists(path):
            runpy.run_path(path, run_name="__main__")


def _extensions():
    from Cython.Build import cythonize

    # RT_BUILD_ONLY=runtime/vm,devices/vmvx limits an in-place rebuild to those folders.
    only = [p for p in os.environ.get("RT_BUILD_ONLY", "").split(",") if p]
    exts = []
    for top in EXTENSION_ROOTS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, top)):
            dirnames.sort()
            for fn in sorted(filenames):
                if not fn.endswith(".pyx"):
                    continue
                rel = os.path.relpath(os.path.join(dirpath, fn), ROOT)
                if only and not any(rel.startswith(p) for p in only):
                    continue
                modname = "rt." + os.path.splitext(rel)[0].replace(os.sep, ".")
                exts.append(
                    Extension(
                        modname,
                        [rel],
                        extra_compile_args=["-O3", "-fno-strict-aliasing", "-Wno-unused-function"],
                        extra_link_args=["-lpthread"],
                    )
                )
    return cythonize(
        exts,
        language_level=3,
        nthreads=2,
        compiler_directives={
            "boundscheck": False,
            "wraparound": False,
            "cdivision": True,
            "initializedcheck": False,
            "embedsignature": True,
        },
    )


if __name__ == "__main__":
    sys.path.insert(0, ROOT)
    _run_generators()
    packages, package_dir = _packages()
    setup(
        packages=packages,
        package_dir=package_dir,
        package_data={"rt.runtime.vm": ["isa.yaml"], "rt.devices.llvm_cpu": ["*.h"]},
        ext_modules=_extensions(),
    )
