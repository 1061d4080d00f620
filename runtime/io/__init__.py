"""rt.runtime.io: parameter files (IREE ``.irpa`` archives, ``.safetensors``) and the index of
named parameters the ``io_parameters`` VM module loads from (IREE ``runtime/src/iree/io``)."""
