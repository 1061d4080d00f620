"""``python -m rt``: compile | run | benchmark | dump | devices | opt (IREE-style flags)."""
import argparse
import sys

from rt.runtime.errors import RtError


def _cmd_dump(args):
    from rt.runtime.vm import dump

    sys.stdout.write(dump.dump_module_file(args.module))
    return 0


def build_parser():
    parser = argparse.ArgumentParser(prog="python -m rt", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("dump", help="print a .vmfb: manifest, segments and disassembly")
    p.add_argument("module", help="path to a .vmfb file")
    p.set_defaults(func=_cmd_dump)
    return parser


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except RtError as e:
        print(f"rt {args.command}: {e}", file=sys.stderr)
        return 1
