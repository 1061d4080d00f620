"""Flags every ``python -m rt`` command shares with IREE's tools: --version, "did you mean",
whole-flag matching, and a quiet end on a closed pipe."""
import signal
import subprocess
import sys
from importlib import metadata

import pytest

import rt
from rt.runtime.vm.format import VERSION


@pytest.mark.parametrize("argv", [["--version"], ["run", "--version"], ["compile", "--version"]])
def test_version_names_rt_its_format_and_dependencies(rt_cli, argv):
    out = rt_cli(*argv)
    assert out.returncode == 0 and out.stderr == ""
    assert out.stdout == "".join([
        "rt (an IREE-like compiler and runtime; https://iree.dev for IREE):\n",
        f"  rt version {rt.__version__}\n", f"  module format version {VERSION} (.vmfb)\n",
        f"  python {sys.version.split()[0]}\n",
        *(f"  {name} {metadata.version(name)}\n" for name in ("numpy", "llvmlite", "xdsl", "ml_dtypes"))])


@pytest.mark.parametrize("argv, message", [
    (["run", "M", "--inptu=4xf32=1"], "rt run: unknown flag --inptu; did you mean --input? "
                                      "(see python -m rt run --help)"),
    (["run", "M", "--func=add"], "rt run: unknown flag --func; did you mean --function? (see python -m rt run --help)"),
    (["run", "M", "--print_max_element_count=3"], "rt run: unknown flag --print_max_element_count; did you mean "
                                                  "--output_max_element_count? (see python -m rt run --help)"),
    (["benchmark", "M", "--benchmark_repetition=3"], "rt benchmark: unknown flag --benchmark_repetition; did you "
                                                     "mean --benchmark_repetitions? (see python -m rt benchmark --help)"),
    (["compile", "x.mlir", "-o", "y", "--dump-afer=all"], "rt compile: unknown flag --dump-afer; did you mean "
                                                          "--dump-after? (see python -m rt compile --help)"),
    (["rn", "M"], "rt: unknown command 'rn'; did you mean run? (commands: compile, run, benchmark, benchmark-collectives, devices, dump, "
                  "opt, keygen, sign, calibrate, replay, profile)"),
])
def test_unknown_flags_name_the_nearest(rt_cli, argv, message):
    out = rt_cli(*argv)
    assert out.returncode == 1 and out.stdout == "" and out.stderr == message + "\n"


def test_unknown_iree_flag_names_the_nearest(rt_cli):
    out = rt_cli("compile", "x.mlir", "-o", "y", "--iree-hal-target-backend=vmvx")
    assert out.returncode == 1
    assert out.stderr.startswith("rt compile: --iree-hal-target-backend is an IREE flag rt does not implement; "
                                 "did you mean --iree-hal-target-backends (rt: --device=B)?; ")


def test_closed_pipe_ends_quietly_by_sigpipe(modules):
    count = 200_000
    proc = subprocess.Popen([sys.executable, "-m", "rt", "run", modules / "add.vmfb", "--function=add",
                             f"--input={count}xf32=1", f"--input={count}xf32=2",
                             f"--output_max_element_count={count}"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout.read(40) == b"EXEC @add\nresult[0]: hal.buffer_view\n200"
    proc.stdout.close()
    stderr = proc.stderr.read()
    assert proc.wait(timeout=120) == -signal.SIGPIPE and stderr == b""
