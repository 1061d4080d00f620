"""Preprocessing-phase passes: IREE's HAL device assignment (``iree-hal-assign-target-devices``,
``-materialize-target-devices``, ``-resolve-device-promises``), which IREE runs right after abi.
"""
