"""Start a Python child that Ctrl-C (SIGINT) reaches as KeyboardInterrupt, whatever this process's
SIGINT disposition is.

A process started in the background by a non-interactive shell (a CI runner, ``cmd &``) has
SIGINT ignored, children inherit that, and Python then installs no KeyboardInterrupt handler:
tests that interrupt a child must give it the default disposition first.
"""
import signal
import subprocess


def _default_sigint():
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def popen_interruptible(args, **kwargs):
    """``subprocess.Popen(args, **kwargs)`` with SIGINT at its default disposition in the child."""
    return subprocess.Popen(args, preexec_fn=_default_sigint, **kwargs)
