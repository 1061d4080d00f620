"""``rt opt``: parse an .mlir file, run passes, print the module (like mlir-opt / xdsl-opt).

Usage::

    python -m rt opt IN.mlir --pass=NAME [--pass=NAME{key=value}...]
                     [--dump-after=NAME|all --dump-dir=DIR] [-o OUT] [--list-passes]
    python -m rt opt IN.mlir --compile-from=PHASE [--compile-to=PHASE]

``IN.mlir`` may be ``-`` for stdin. Passes and phases come from the one pipeline table
(rt.compiler.passes.pipeline): ``--compile-from``/``--compile-to`` run the default pipeline's
passes of the phases after ``--compile-from`` up to ``--compile-to`` (e.g. a
``--dump-after`` file of ``rt compile`` re-run in another process), before any ``--pass``. Errors are printed ``file:line:col: error: message`` with
the source line and a caret, and the exit code is 1.
"""
import argparse
import sys

from rt.runtime.atomic_write import atomic_write
from rt.runtime.errors import RtError


def _build_parser():
    p = argparse.ArgumentParser(prog="python -m rt opt", description=__doc__.split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("input", nargs="?", help="input .mlir file ('-' for stdin)")
    p.add_argument("--pass", dest="passes", action="append", default=[], metavar="NAME",
                   help="pass to run (repeatable, in order); options as NAME{key=value}")
    p.add_argument("--dump-after", default=None, help="pass name or 'all': write IR after it")
    p.add_argument("--dump-dir", default=None, help="directory for <NN>_<pass>.mlir dumps")
    p.add_argument("-o", "--output", default="-", help="output file (default stdout)")
    p.add_argument("--compile-from", default=None, metavar="PHASE",
                   help="run the pipeline's phases after PHASE (the input is IR dumped after it)")
    p.add_argument("--compile-to", default=None, metavar="PHASE",
                   help="run the pipeline's phases up to and including PHASE")
    p.add_argument("--list-passes", action="store_true",
                   help="print the pipeline's passes by phase, then the standalone passes, and exit")
    p.add_argument("--split-input-file", action="store_true",
                   help="treat '// -----' lines as boundaries of independent inputs (like mlir-opt)")
    return p


def opt_main(argv):
    """Run the opt tool on ``argv`` (list of str, without the program name); returns the exit code."""
    from rt.compiler.dialects import make_context
    from rt.compiler.frontend import parse_module
    from rt.compiler.ir_printing import module_to_text
    from rt.compiler.passes import PassPipeline, parse_pass_spec, pipeline

    args = _build_parser().parse_args(list(argv))
    if args.list_passes:
        print(_pass_listing(pipeline))
        return 0
    if args.input is None:
        print("rt opt: error: no input file; usage: python -m rt opt IN.mlir --pass=NAME", file=sys.stderr)
        return 2
    try:
        if args.input == "-":
            text, filename = sys.stdin.read(), "<stdin>"
        else:
            try:
                with open(args.input, encoding="utf-8") as f:
                    text = f.read()
            except OSError as exc:
                print(f"rt opt: error: cannot read {args.input}: {exc.strerror}", file=sys.stderr)
                return 1
            filename = args.input
        passes = []
        if args.compile_from is not None or args.compile_to is not None:
            passes = pipeline.build_passes({"compile_from": args.compile_from,
                                            "compile_to": args.compile_to or "end"})
        passes += [parse_pass_spec(s) for s in args.passes]
    except RtError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    chunks = _split_input(text) if args.split_input_file else [text]
    outputs, status = [], 0
    for chunk in chunks:
        try:
            ctx = make_context()
            module = parse_module(chunk, filename, ctx)
            PassPipeline(passes, dump_after=args.dump_after, dump_dir=args.dump_dir).run(module, ctx)
            outputs.append(module_to_text(module))
        except RtError as exc:
            print(str(exc), file=sys.stderr)
            status = 1
    out = "// -----\n".join(outputs)
    if args.output == "-":
        sys.stdout.write(out)
    else:
        atomic_write(args.output, out, what="-o")
    return status


def _pass_listing(pipeline):
    lines = []
    for phase in pipeline.PHASES:
        lines.append(f"{phase.name}:")
        lines.extend(f"  {entry.name}" for entry in phase.passes)
    if pipeline.STANDALONE:
        lines.append("standalone:")
        lines.extend(f"  {entry.name}" for entry in pipeline.STANDALONE)
    return "\n".join(lines)


def _split_input(text):
    """Split at ``// -----`` lines; each chunk is padded with blank lines so that reported
    line numbers stay those of the whole file."""
    chunks, start, lines = [], 0, text.split("\n")
    for i, line in enumerate(lines + ["// -----"]):
        if line.strip() == "// -----":
            chunks.append("\n" * start + "\n".join(lines[start:i]))
            start = i + 1
    return chunks
