"""``rt calibrate -o host.yaml [--devices=N|URI,URI...] [--mpi] [--links=KIND] [--bind-to=core] [--quick]``: measure this host's
devices (kernel throughput per dispatch class, memory bandwidth), links (in-process ranks;
MPI loopback with ``--mpi``) and the host's cost of a call, and write a topology describing the machine
(rt.runtime.sim.calibration; docs/MULTI_DEVICE.md §10). The default takes about half a minute,
``--quick`` a few seconds (fewer sizes and repetitions).
"""
import sys

from rt.runtime.errors import InvalidArgumentError
from rt.runtime.sim.calibration_defaults import DEFAULT_URI, LINKS

MAX_DEVICES = 64


def add_parser(sub):
    """Register ``calibrate`` on the CLI's subparsers."""
    p = sub.add_parser("calibrate", help="measure this host's devices and links; write a topology")
    p.add_argument("-o", "--output", required=True, metavar="FILE.yaml", help="the topology to write")
    p.add_argument("--devices", default="2", metavar="N|URI,URI...",
                   help=f"the topology's devices: N copies of {DEFAULT_URI} (default 2) or a "
                        "comma-separated list of device URIs")
    p.add_argument("--mpi", action="store_true",
                   help="also measure MPI loopback between mpiexec -n 2 processes (rt's all_reduce over MPI, and a "
                        "ping-pong); device links take its figures")
    p.add_argument("--links", choices=LINKS, default=None,
                   help="which figures the links between devices take: collective (in-process ranks' "
                        "collectives; the default), copy (in-process device-to-device copies) or mpi "
                        "(MPI loopback; the default with --mpi)")
    p.add_argument("--bind-to", choices=["core"], default=None, dest="bind_to",
                   help="measure the in-process ranks' links and call cost with rank r's threads on "
                        "CPU r mod n (as programs run with rt run --ranks=N --bind-to=core)")
    p.add_argument("--quick", action="store_true", help="fewer sizes and repetitions (seconds)")
    p.set_defaults(func=run)


def device_uris(text):
    """The URIs of ``--devices``: a count of the default URI or a comma-separated list."""
    text = text.strip()
    if text.isdigit():
        count = int(text)
        if not 1 <= count <= MAX_DEVICES:
            raise InvalidArgumentError(f"--devices={text}: expected 1 to {MAX_DEVICES} devices")
        return [DEFAULT_URI] * count
    uris = [u.strip() for u in text.split(",")]
    if not text or any(not u for u in uris):
        raise InvalidArgumentError(f"--devices={text!r}: expected a count or device URIs separated "
                                   f"by commas, e.g. {DEFAULT_URI},{DEFAULT_URI}")
    return uris


def run(args):
    from rt.runtime.atomic_write import atomic_write, check_writable
    from rt.runtime.sim.calibration import calibrate
    from rt.runtime.sim.topology import Topology

    check_writable(args.output, f"-o {args.output}")
    uris = device_uris(args.devices)
    if args.links == "mpi" and not args.mpi:
        raise InvalidArgumentError("--links=mpi needs --mpi (the MPI loopback is measured only then)")
    for index, uri in enumerate(uris):
        Topology.from_dict({"devices": [{"name": "d", "uri": uri}]}, f"--devices (device {index})")
    result = calibrate(uris, quick=args.quick, mpi=args.mpi, bind=args.bind_to,
                       log=lambda text: print(text, file=sys.stderr, flush=True))
    links = args.links or ("mpi" if result.mpi_link is not None else "collective")
    if len(uris) == 1:
        links = "collective"  # one device: no links between devices
    text = result.yaml_text(links)
    Topology.from_yaml(text, args.output)
    atomic_write(args.output, text, what="topology")
    for line in result.header(links):
        print(line)
    print(f"wrote {args.output}: {len(uris)} device(s)")
    return 0
