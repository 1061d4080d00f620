"""What every ``python -m rt`` command shares with IREE's tools: ``--version``, "did you mean"
for a mistyped flag or command, and a quiet end when stdout is a closed pipe.

* :func:`version_text`: rt's version, the ``.vmfb`` format version and the versions of the
  packages rt runs on (read from their metadata: nothing is imported), as ``iree-compile
  --version`` names IREE's and LLVM's.
* :func:`did_you_mean`: the nearest spelling (difflib) of a flag or command among those known.
* :func:`end_on_broken_pipe`: ``rt run ... | head`` ends as a C tool such as iree-run-module
  does when its reader goes away: killed by SIGPIPE (exit status 141 in a shell), with no
  message; the streams are detached first so that nothing is flushed into the closed pipe.
"""
import os
import sys

#: packages whose versions --version reports
_PACKAGES = ("numpy", "llvmlite", "xdsl", "ml_dtypes")


def version_text():
    """The ``--version`` text (several lines, ending in a newline)."""
    from importlib import metadata

    from rt import __version__
    from rt.runtime.vm.format import VERSION

    lines = ["rt (an IREE-like compiler and runtime; https://iree.dev for IREE):",
             f"  rt version {__version__}",
             f"  module format version {VERSION} (.vmfb)",
             f"  python {sys.version.split()[0]}"]
    for name in _PACKAGES:
        try:
            lines.append(f"  {name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            lines.append(f"  {name} (not installed)")
    return "\n".join(lines) + "\n"


def did_you_mean(given, known):
    """``"; did you mean --input?"`` for the nearest of ``known`` to ``given``, or ``""``."""
    import difflib  # lazily: `rt run` does not need it at start
    nearest = difflib.get_close_matches(given, sorted(set(known)), n=1, cutoff=0.6)
    return f"; did you mean {nearest[0]}?" if nearest else ""


def end_on_broken_pipe():
    """Stdout's reader has gone: detach stdout and die of SIGPIPE, as C tools do."""
    import signal  # lazily: its enum tables cost a run's start ~1 ms
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass
    if hasattr(signal, "SIGPIPE"):
        sys.stderr.flush()
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGPIPE)
    return 0
