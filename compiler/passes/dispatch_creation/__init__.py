"""Dispatch-creation passes: host tensor ops to flow, dispatch regions, workgroups and executables."""

PASSES = {
    "iree-dispatch-creation-set-encoding": "set_encoding:SetEncodingPass",
    "iree-util-hoist-into-globals": "hoist_into_globals:HoistIntoGlobalsPass",
    "iree-flow-convert-to-flow": "convert_to_flow:ConvertToFlowPass",
    "iree-dispatch-creation-form-dispatch-regions": "form_dispatch_regions:FormDispatchRegionsPass",
    "iree-dispatch-creation-convert-dispatch-regions-to-workgroups":
        "convert_dispatch_regions_to_workgroups:ConvertDispatchRegionsToWorkgroupsPass",
    "iree-flow-outline-dispatch-regions": "outline_dispatch_regions:OutlineDispatchRegionsPass",
}
