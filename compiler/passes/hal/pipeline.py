"""The hal phase's passes in pipeline order (the driver runs TARGET_PASS_NAMES first)."""

#: run before dispatch creation: device globals and the default affinity
TARGET_PASS_NAMES = [
    "iree-hal-assign-target-devices",
    "iree-hal-materialize-target-devices",
]

#: run after the stream phase
PASS_NAMES = [
    "iree-hal-materialize-interfaces",
    "iree-hal-translate-executables",
    "iree-hal-convert-to-hal",
    "iree-hal-serialize-executables",
]
