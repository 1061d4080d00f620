"""Suite-wide settings.

``RT_VERIFY=phase``: every compile in the suite (in this process and in the ``python -m rt``
subprocesses it starts) verifies the IR after each phase, so a pass that produces invalid IR
fails at its phase's boundary; a user's compile verifies only its input and its output
(rt.compiler.passes.pipeline.pass_manager). Set ``RT_VERIFY=each`` to verify after every pass.
"""
import os

os.environ.setdefault("RT_VERIFY", "phase")
