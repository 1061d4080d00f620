"""Fixtures of the IREE-tool fidelity tests: small modules built here (rt.testing) and a runner
of ``python -m rt`` as a subprocess."""
import subprocess
import sys

import pytest

from rt import testing


@pytest.fixture(scope="package")
def modules(tmp_path_factory):
    """A folder with ``basic.vmfb`` (identity, scale, add_i32, ...) and ``add.vmfb`` (4xf32 add)."""
    root = tmp_path_factory.mktemp("tool_modules")
    (root / "basic.vmfb").write_bytes(testing.basic_module())
    (root / "add.vmfb").write_bytes(testing.add_module())
    return root


def _rt_cli(*args, cwd=None, **kwargs):
    return subprocess.run([sys.executable, "-m", "rt", *map(str, args)], capture_output=True, text=True,
                          timeout=180, cwd=cwd, **kwargs)


@pytest.fixture(scope="package")
def rt_cli():
    """``rt_cli(*ARGS, cwd=None)``: ``python -m rt ARGS`` -> CompletedProcess (text stdout/stderr)."""
    return _rt_cli


def _cli_main(*args):
    import contextlib
    import io

    from rt.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="package")
def cli_main():
    """``cli_main(*ARGS)``: ``python -m rt ARGS`` in this process (faster than a subprocess) ->
    (exit code, stdout, stderr)."""
    return _cli_main


MLP_SHAPES = [(64, 784), (784, 512), (512,), (512, 512), (512,), (512, 10), (10,)]


@pytest.fixture(scope="package")
def mlp_run(tmp_path_factory):
    """examples/mlp.mlir for llvm-cpu run once by ``rt run`` with a replay, a device profile, a
    trace and device statistics: a dict of the folder, module, input flags, paths and stdout."""
    import pathlib

    import numpy as np

    import rt

    root = tmp_path_factory.mktemp("mlp_run")
    examples = pathlib.Path(__file__).resolve().parents[2] / "examples"
    module = root / "mlp.vmfb"
    module.write_bytes(rt.compile(str(examples / "mlp.mlir"), devices=["llvm-cpu"]))
    rng = np.random.default_rng(0)
    flags = []
    for i, shape in enumerate(MLP_SHAPES):
        np.save(root / f"in{i}.npy", rng.standard_normal(shape).astype(np.float32))
        flags.append(f"--input=@{root / f'in{i}.npy'}")
    run = {"root": root, "module": module, "inputs": flags, "replay": root / "mlp.rtreplay",
           "profile": root / "profile.json", "trace": root / "trace.json", "result": root / "y.npy"}
    code, out, err = _cli_main("run", module, "--function=mlp", *flags, f"--output=@{run['result']}",
                              f"--device_replay_output={run['replay']}",
                              f"--device_profiling_output={run['profile']}", f"--trace={run['trace']}",
                              "--print_device_statistics")
    assert code == 0, err
    run["stdout"] = out
    return run
