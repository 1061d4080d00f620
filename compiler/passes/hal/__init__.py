"""HAL-phase passes: target devices, interfaces, executable translation, stream -> hal."""

PASSES = {
    "iree-hal-assign-target-devices": "assign_target_devices:AssignTargetDevicesPass",
    "iree-hal-materialize-target-devices": "materialize_target_devices:MaterializeTargetDevicesPass",
    "iree-hal-materialize-interfaces": "materialize_interfaces:MaterializeInterfacesPass",
    "iree-hal-translate-executables": "translate_executables:TranslateExecutablesPass",
    "iree-hal-convert-to-hal": "convert_to_hal:ConvertToHALPass",
    "iree-hal-serialize-executables": "serialize_executables:SerializeExecutablesPass",
}
