"""Input-phase passes: verify, canonicalize, cse, elementwise-to-linalg, named-op normalization."""

PASSES = {
    "verify": "verify:VerifyPass",
    "canonicalize": "canonicalize:CanonicalizePass",
    "cse": "cse:CSEPass",
    "convert-elementwise-to-linalg": "convert_elementwise_to_linalg:ConvertElementwiseToLinalgPass",
    "linalg-normalize-named-ops": "normalize_named_ops:NormalizeNamedOpsPass",
}
