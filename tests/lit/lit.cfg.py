"""lit configuration for rt's compiler tests: .mlir files run through `python -m rt opt | filecheck`."""
import hashlib
import os
import sys
import tempfile

import lit.formats

config.name = "rt-compiler"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.excludes = ["lit.cfg.py"]
# One output directory per checkout: worktrees running lit at the same time must not share one.
_checkout = hashlib.sha1(config.test_source_root.encode()).hexdigest()[:8]
config.test_exec_root = os.path.join(tempfile.gettempdir(), f"rt-lit-{os.getuid()}-{_checkout}")
for var in ("PATH", "PYTHONPATH", "HOME", "VIRTUAL_ENV"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
# RUN lines call `python -m rt` and `filecheck`: take both from the interpreter running lit.
config.environment["PATH"] = os.pathsep.join(
    [os.path.dirname(sys.executable), config.environment.get("PATH", "")])
