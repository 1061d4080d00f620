"""``python -m rt``: compile | run | benchmark | dump | devices | opt (IREE-style flags)."""
import argparse
import sys

from rt.runtime.errors import RtError


def _cmd_dump(args):
    from rt.runtime.vm import dump

    sys.stdout.write(dump.dump_module_file(args.module))
    return 0


def _cmd_opt(argv):
    from rt.compiler.tools import opt_main

    return opt_main(argv)


def build_parser():
    parser = argparse.ArgumentParser(prog="python -m rt", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("dump", help="print a .vmfb: manifest, segments and disassembly")
    p.add_argument("module", help="path to a .vmfb file")
    p.set_defaults(func=_cmd_dump)
    sub.add_parser("opt", help="run compiler passes on an .mlir file and print the result")
    return parser


# Subcommands that own their whole argument list (their flags are parsed by the tool itself).
_PASSTHROUGH = {"opt": _cmd_opt}


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in _PASSTHROUGH:
        try:
            return _PASSTHROUGH[argv[0]](argv[1:])
        except RtError as e:
            print(f"rt {argv[0]}: {e}", file=sys.stderr)
            return 1
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except RtError as e:
        print(f"rt {args.command}: {e}", file=sys.stderr)
        return 1
