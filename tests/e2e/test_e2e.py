"""End-to-end check programs in IREE's e2e style, compiled by rt and run on every device.

Each ``programs/*.mlir`` is a module of public functions without arguments; each computes on
``util.unfoldable_constant`` inputs and asserts with ``check.expect_*`` (IREE's ``check``
dialect, ``compiler/src/iree/compiler/Modules/Check/IR/CheckOps.td``). The runner does what
``iree-check-module`` does: compile once per target, then call every public function; a failed
check raises ``rt.CheckError``. Every program was validated with IREE 3.13 as an oracle
(``iree_oracle.py``; see README.md), and every expected value was computed by hand or numpy.

``failing/check_failures.mlir`` holds functions whose checks must fail: they prove that the
checks really run on each device, and that a failure names its source location.
"""
import functools
import pathlib
import re

import pytest

import rt

HERE = pathlib.Path(__file__).resolve().parent
PROGRAMS = sorted((HERE / "programs").glob("*.mlir"))
FAILING = HERE / "failing" / "check_failures.mlir"

#: target backend -> device URI it runs on
DEVICES = {"llvm-cpu": "local-task://llvm-cpu", "vmvx": "local-sync://vmvx"}

_PUBLIC_NO_ARG = re.compile(r"^func\.func\s+@([\w$.]+)\(\s*\)", re.M)
_PRIVATE = re.compile(r"^func\.func\s+private\s+@([\w$.]+)\(", re.M)
_CHECK = re.compile(r"\bcheck\.expect_\w+")


def public_functions(path):
    """Names of the public no-argument functions of ``path``, in file order."""
    return _PUBLIC_NO_ARG.findall(path.read_text())


def _function_bodies(path):
    """{name: source text} of every public no-argument function of ``path``."""
    text = path.read_text()
    starts = [(m.group(1), m.start()) for m in _PUBLIC_NO_ARG.finditer(text)]
    ends = [m.start() for m in re.finditer(r"^func\.func\b", text, re.M)] + [len(text)]
    bodies = {}
    for name, start in starts:
        end = min(e for e in ends if e > start)
        bodies[name] = text[start:end]
    return bodies


@functools.lru_cache(maxsize=None)
def _compiled(path, target):
    return rt.compile(str(path), devices=[target])


def _load(path, target):
    return rt.load(_compiled(path, target), devices=[DEVICES[target]])


CASES = [pytest.param(p, fn, id=f"{p.stem}::{fn}") for p in PROGRAMS for fn in public_functions(p)]


def test_suite_shape():
    assert len(PROGRAMS) >= 45
    assert len(CASES) >= 100
    for path in PROGRAMS:
        bodies = _function_bodies(path)
        assert bodies, f"{path.name} has no public test function"
        for name, body in bodies.items():
            assert _CHECK.search(body) or "call @" in body, f"{path.name} @{name} asserts nothing"


@pytest.mark.parametrize("target", sorted(DEVICES))
@pytest.mark.parametrize("path, function", CASES)
def test_program(path, function, target):
    module = _load(path, target)
    result = module[function]()
    assert result is None or result == ()


@pytest.mark.parametrize("path", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_exports(path):
    module = _load(path, "vmvx")
    exported = module.functions
    for name in public_functions(path):
        assert name in exported
    for name in _PRIVATE.findall(path.read_text()):
        assert name not in exported


def _check_line(path, function):
    """1-based line of the first check op in ``function`` of ``path``."""
    lines = path.read_text().splitlines()
    inside = False
    for number, line in enumerate(lines, start=1):
        if re.match(rf"^func\.func\s+@{re.escape(function)}\(", line):
            inside = True
        elif inside and _CHECK.search(line):
            return number
    raise AssertionError(f"no check op in @{function} of {path.name}")


FAILING_CASES = [pytest.param(fn, id=fn) for fn in public_functions(FAILING)]


@pytest.mark.parametrize("target", sorted(DEVICES))
@pytest.mark.parametrize("function", FAILING_CASES)
def test_failing_check_raises(function, target):
    module = _load(FAILING, target)
    with pytest.raises(rt.CheckError) as info:
        module[function]()
    text = "\n".join([str(info.value), *getattr(info.value, "__notes__", [])])
    assert f"{FAILING.name}:{_check_line(FAILING, function)}:" in text
    assert f"@{function}" in text
