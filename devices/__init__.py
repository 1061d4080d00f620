"""rt.devices: the device implementations (``llvm_cpu``, ``vmvx``) behind the HAL."""
