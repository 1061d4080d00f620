"""The vm phase's passes in pipeline order."""

PASS_NAMES = ["iree-vm-conversion"]
