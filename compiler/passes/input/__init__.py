"""Input-phase passes: verify, canonicalize, cse, elementwise-to-linalg, named-op normalization."""
