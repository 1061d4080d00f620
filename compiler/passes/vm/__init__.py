"""VM-phase passes: conversion of the hal-level module to VM bytecode (registered in ../pipeline.py)."""
