"""VM-phase passes: conversion of the hal-level module to VM bytecode."""

PASSES = {
    "iree-vm-conversion": "conversion:ConversionPass",
}
