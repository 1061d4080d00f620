"""ABI passes: public functions get IREE's buffer-view calling convention (registered in ../pipeline.py)."""
