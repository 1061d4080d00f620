"""Tests that ``python -m rt run`` imports only what a run needs (issue 24 item 6, its start
time): no compiler (xdsl, rt.compiler), no LLVM (llvmlite), no ml_dtypes for an f32 program,
no OpenSSL (hashlib), no other subcommand's modules or parsers; and that the parser built for
one subcommand is the full parser's, flag for flag."""
import argparse
import subprocess
import sys

import pytest

from rt import testing
from rt.cli import _SUBPARSERS, build_parser

#: prints the names of the loaded modules after a run, on a line of its own on stderr
SCRIPT = """
import sys
from rt.cli import main
code = main(sys.argv[1:])
sys.stdout.flush()
print("MODULES " + " ".join(sorted(sys.modules)), file=sys.stderr)
sys.exit(code)
"""
#: modules (and packages, with their submodules) a run of an f32 program must not import
NOT_NEEDED = ("xdsl", "rt.compiler", "llvmlite", "ml_dtypes", "hashlib", "_hashlib", "difflib",
              "statistics", "dataclasses", "rt.cli_collectives", "rt.cli_calibrate", "rt.replay_cli",
              "rt.profile_report", "rt.benchmark_runner", "rt.runtime.io.parameters_module",
              "rt.runtime.io.parameter_index", "rt.runtime.vm.builder", "rt.runtime.vm.dump",
              "rt.runtime.vm._generated.isa_emitters", "rt.runtime.sim", "signal")


@pytest.mark.parametrize("backend", ["llvm-cpu", "vmvx"])
def test_run_imports_only_what_it_needs(tmp_path, backend):
    vmfb = tmp_path / "add.vmfb"
    vmfb.write_bytes(testing.add_module(backend))
    out = subprocess.run([sys.executable, "-c", SCRIPT, "run", str(vmfb), "--function=add",
                          "--input=4xf32=1,2,3,4", "--input=4xf32=0.5"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "EXEC @add\nresult[0]: hal.buffer_view\n4xf32=1.5 2.5 3.5 4.5\n"
    modules = out.stderr.rpartition("MODULES ")[2].split()
    assert "rt.runtime.hal" in modules and "rt.cli" in modules
    loaded = [m for m in modules if any(m == n or m.startswith(n + ".") for n in NOT_NEEDED)]
    assert loaded == []


def _subparsers(parser):
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices


def test_a_subcommand_parser_is_the_full_parsers():
    full = _subparsers(build_parser())
    assert list(full) == list(_SUBPARSERS)
    for command in _SUBPARSERS:
        alone = _subparsers(build_parser(command))
        assert list(alone) == [command]
        assert alone[command].format_help() == full[command].format_help()
        assert [a.option_strings for a in alone[command]._actions] == \
            [a.option_strings for a in full[command]._actions]


def test_the_process_entry_keeps_output_atexit_and_exit_code(tmp_path):
    vmfb = tmp_path / "add.vmfb"
    vmfb.write_bytes(testing.add_module("vmvx"))
    script = ("import atexit, gc, sys\n"
              "from rt.__main__ import process_main\n"  # as the rt command's wrapper does
              "atexit.register(lambda: print('atexit ran; frozen', gc.get_freeze_count() > 0,\n"
              "                              gc.get_threshold()[0]))\n"
              "sys.exit(process_main())\n")
    run = ["run", str(vmfb), "--function=add", "--input=4xf32=1,2,3,4", "--input=4xf32=0.5"]
    out = subprocess.run([sys.executable, "-c", script, *run], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout == ("EXEC @add\nresult[0]: hal.buffer_view\n4xf32=1.5 2.5 3.5 4.5\n"
                          "atexit ran; frozen True 10000\n")
    out = subprocess.run([sys.executable, "-c", script, *run[:-1]], capture_output=True, text=True, timeout=120)
    assert out.returncode == 1 and out.stdout == "atexit ran; frozen True 10000\n"
    assert out.stderr.startswith("rt run: ")
