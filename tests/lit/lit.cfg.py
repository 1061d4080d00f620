"""lit configuration for rt's compiler tests: .mlir files run through `python -m rt opt | filecheck`."""
import os
import tempfile

import lit.formats

config.name = "rt-compiler"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.excludes = ["lit.cfg.py"]
config.test_exec_root = os.path.join(tempfile.gettempdir(), f"rt-lit-{os.getuid()}")
for var in ("PATH", "PYTHONPATH", "HOME", "VIRTUAL_ENV"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
