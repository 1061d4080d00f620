"""``rt.compile``: MLIR text or file -> ``.vmfb`` bytes, with IREE-style device options.

Wraps the compiler driver (``rt.compiler.driver.compile_source``) so that the runtime API
never imports the compiler (xdsl) unless something is compiled. Device targets follow
``iree-compile --iree-hal-target-device`` in spirit and rt's ``--device=[NAME=]TARGET`` flag:
TARGET is ``vmvx``, ``llvm-cpu`` or ``llvm-cpu:<cpu>`` (e.g. ``llvm-cpu:znver4``); NAME
defaults to ``__device_<i>``.
"""
import os
import re

from rt.runtime.errors import InvalidArgumentError, NotFoundError, UnimplementedError

_TARGET = re.compile(r"(vmvx|llvm-cpu)(:[A-Za-z0-9_.+-]+)?\Z")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
TARGET_HELP = "vmvx, llvm-cpu or llvm-cpu:<cpu> (e.g. llvm-cpu:znver4, llvm-cpu:x86-64-v3)"


def check_target(target, where="device target"):
    """Return ``target`` if it is ``vmvx``, ``llvm-cpu`` or ``llvm-cpu:<cpu>``; else raise."""
    if not isinstance(target, str) or not _TARGET.match(target) or target.startswith("vmvx:"):
        raise InvalidArgumentError(f"{where} {target!r} is not a compile target; expected {TARGET_HELP}")
    return target


def parse_device_flag(text, index):
    """``"NAME=TARGET"`` or ``"TARGET"`` -> (name, target); the default name is ``__device_<index>``."""
    name, sep, target = str(text).rpartition("=")
    if not sep:
        name = f"__device_{index}"
    elif not _NAME.match(name):
        raise InvalidArgumentError(f"--device={text}: device name {name!r} must be an identifier; "
                                   "expected --device=[NAME=]TARGET")
    return name, check_target(target, f"--device={text}: target")


def normalize_devices(devices):
    """``None | [target | "name=target" ...] | {name: target}`` -> None or [(name, target)]."""
    if devices is None:
        return None
    if isinstance(devices, str):
        devices = [devices]
    if isinstance(devices, dict):
        pairs = []
        for name, target in devices.items():
            if not isinstance(name, str) or not _NAME.match(name):
                raise InvalidArgumentError(f"devices: name {name!r} must be an identifier")
            pairs.append((name, check_target(target, f"devices[{name!r}]")))
    elif isinstance(devices, (list, tuple)):
        pairs = [parse_device_flag(d, i) for i, d in enumerate(devices)]
    else:
        raise InvalidArgumentError(f"devices must be None, a list of targets or a {{name: target}} dict, "
                                   f"got {type(devices).__name__}")
    if not pairs:
        raise InvalidArgumentError("devices is empty; give at least one target or None for the default")
    names = [n for n, _ in pairs]
    if len(set(names)) != len(names):
        raise InvalidArgumentError(f"devices: names must be unique, got {names}")
    return pairs


def read_source(source):
    """(text, filename) of ``source``: a path (str ending in .mlir or os.PathLike) or MLIR text."""
    if isinstance(source, bytes):
        return source.decode("utf-8", "replace"), "<input>"
    if isinstance(source, os.PathLike) or (isinstance(source, str) and "\n" not in source
                                           and "{" not in source):
        path = os.fspath(source)
        try:
            with open(path, encoding="utf-8") as f:
                return f.read(), path
        except FileNotFoundError:
            raise NotFoundError(f"input file {path!r} does not exist (rt.compile takes MLIR text or "
                                "a path to an .mlir file)") from None
        except (IsADirectoryError, UnicodeDecodeError) as e:
            raise InvalidArgumentError(f"cannot read {path!r} as MLIR text: {e}") from None
    if isinstance(source, str):
        return source, "<input>"
    raise InvalidArgumentError(f"rt.compile takes MLIR text or a path, got {type(source).__name__}")


def compile(source, devices=None, dump_after=None, dump_dir=None, data_tiling=True):
    """Compile MLIR (text, or a path to an .mlir file) into ``.vmfb`` bytes.

    devices: None (the input's own device globals, else one llvm-cpu device), a list of
    targets (``["llvm-cpu", "vmvx"]``, optionally ``"name=target"``) or ``{name: target}``.
    dump_after: a pass name or ``"all"``: write the IR after it into ``dump_dir``.
    data_tiling: False disables set-encoding (matmuls stay unpacked).
    Raises CompileError (``file:line:col: error: ...``), NotFoundError for a missing file,
    InvalidArgumentError for bad options, UnimplementedError when the compiler is missing.
    """
    pairs = normalize_devices(devices)
    text, filename = read_source(source)
    if dump_after is not None and dump_dir is None:
        raise InvalidArgumentError(f"dump_after={dump_after!r} needs dump_dir (the directory the IR "
                                   "dumps are written to)")
    try:
        from rt.compiler.driver import compile_source
    except ImportError as e:
        raise UnimplementedError(f"the compiler is not available ({e}); install rt with its "
                                 "compiler dependencies (xdsl) or run a precompiled .vmfb") from None
    options = {"dump_after": dump_after, "dump_dir": None if dump_dir is None else os.fspath(dump_dir),
               "data_tiling": bool(data_tiling)}
    return compile_source(text, filename, devices=pairs, options=options)
