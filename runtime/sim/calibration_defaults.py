"""What ``rt calibrate`` measures by default, apart from the measuring code so the CLI can
describe its flags without importing it (rt.runtime.sim.calibration)."""

#: The device a calibration measures when given a count (``--devices=N``): one thread per
#: device, so N devices share the host's cores as N ranks of a job would.
DEFAULT_URI = "local-task://llvm-cpu?threads=1"
#: Which measured figures a calibrated topology's links take (``--links``).
LINKS = ("collective", "copy", "mpi")
