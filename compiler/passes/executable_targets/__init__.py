"""Executable-targets passes: ``iree-hal-translate-executables`` (dispatch lowering and the backends'
code generation) and the codegen rewrites it applies, which ``rt opt`` also runs on their own
(``iree-codegen-decompose-softmax``).
"""
