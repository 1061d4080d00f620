"""Run a Python child and press Ctrl-C (SIGINT) in it once it is ready, whatever this process's
SIGINT disposition is.

A process started in the background by a non-interactive shell (a CI runner, ``cmd &``) has
SIGINT ignored, children inherit that, and Python then installs no KeyboardInterrupt handler:
the child gets the default disposition back before it starts.
"""
import os
import signal
import subprocess
import sys
import textwrap
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def _default_sigint():
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def interrupt_when_ready(script, delay, timeout=120):
    """Run ``script`` (dedented) with ``python -u -c`` (this folder on its PYTHONPATH); when it
    prints the line ``ready``, wait ``delay`` seconds and send SIGINT. Returns ``(returncode,
    stdout after the ready line, stderr)``; subprocess.TimeoutExpired if it runs past
    ``timeout`` seconds after the signal (the child is killed either way)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([HERE, os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.Popen([sys.executable, "-u", "-c", textwrap.dedent(script)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_default_sigint)
    try:
        for line in proc.stdout:
            if line.strip() == "ready":
                time.sleep(delay)
                proc.send_signal(signal.SIGINT)
                break
        out, err = proc.communicate(timeout=timeout)
    finally:
        proc.kill()
    return proc.returncode, out, err
