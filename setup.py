"""Build script for rt.

Maps the import namespace onto the repository layout (docs/ARCHITECTURE.md §1):
``rt`` -> ``rt/``, ``rt.compiler`` -> ``compiler/``, ``rt.runtime`` -> ``runtime/``,
``rt.devices`` -> ``devices/``. Before compiling, it runs the code generators (the VM's ISA
table in ``runtime/vm/isa.yaml`` produces the interpreter dispatch and the bytecode emitter;
the ``hal`` import table in ``runtime/hal/imports.py`` the argument positions its C entries read),
then cythonizes every ``.pyx`` under ``runtime/``, ``devices/`` and ``rt/``.

Cython finds a cimported module by its full name (``from rt.runtime.hal._buffer cimport
Buffer``), but the sources live under ``runtime/``, not ``rt/runtime/``: the build makes
``build/cython_include/rt`` with links to the package folders and puts it on the include path.
Extensions compile against numpy's C API (the runtime's call path builds result arrays).
"""
import os
import runpy
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))
NAMESPACE = {"rt": "rt", "rt.compiler": "compiler", "rt.runtime": "runtime", "rt.devices": "devices"}
GENERATORS = ["runtime/vm/isa_gen.py", "runtime/hal/imports_gen.py"]
EXTENSION_ROOTS = ["runtime", "devices", "rt"]
INCLUDE_TREE = os.path.join(ROOT, "build", "cython_include")


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


def _include_tree():
    """``build/cython_include/rt/{runtime,devices}`` -> the package folders (for cimports)."""
    top = os.path.join(INCLUDE_TREE, "rt")
    os.makedirs(top, exist_ok=True)
    with open(os.path.join(top, "__init__.pxd"), "w"):
        pass
    for prefix, folder in NAMESPACE.items():
        if prefix.count(".") != 1:
            continue
        link = os.path.join(top, prefix.split(".")[1])
        if not os.path.islink(link):
            os.symlink(os.path.relpath(os.path.join(ROOT, folder), top), link)
    return INCLUDE_TREE


def _cores():
    """The cores this process may use (os.sched_getaffinity where the OS has it)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


class ParallelBuildExt(build_ext):
    """``build_ext`` compiling extensions on every usable core unless ``-j``/``parallel`` says
    otherwise (setuptools compiles one at a time by default)."""

    def finalize_options(self):
        super().finalize_options()
        if not self.parallel:
            self.parallel = _cores()


def _extensions():
    import numpy
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
                folder, _, rest = os.path.splitext(rel)[0].partition(os.sep)
                prefix = next(k for k, v in NAMESPACE.items() if v == folder)
                modname = prefix + "." + rest.replace(os.sep, ".")
                exts.append(
                    Extension(
                        modname,
                        [rel],
                        include_dirs=[numpy.get_include()],
                        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
                        extra_compile_args=["-O3", "-fno-strict-aliasing", "-ffp-contract=off",
                                            "-Wno-unused-function"],
                        extra_link_args=["-lpthread"],
                    )
                )
    return cythonize(
        exts,
        language_level=3,
        nthreads=_cores(),
        include_path=[_include_tree()],
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
        package_data={"rt.runtime.vm": ["isa.yaml"], "rt.devices.llvm_cpu": ["*.h"],
                      "rt.devices.vmvx": ["*.h"]},
        ext_modules=_extensions(),
        cmdclass={"build_ext": ParallelBuildExt},
    )
