"""Stream-phase passes (IREE's ``iree-stream-*``): tensors -> async resources -> explicit commands.

Only implemented passes are registered; :mod:`.pipeline` lists the phase order.
"""

PASSES = {
    "iree-stream-verify-input": "verify_input:VerifyInputPass",
    "iree-stream-outline-constants": "outline_constants:OutlineConstantsPass",
    "iree-stream-convert-to-stream": "convert_to_stream:ConvertToStreamPass",
    "iree-stream-specialize-encodings": "specialize_encodings:SpecializeEncodingsPass",
    "iree-stream-encode-host-tensors": "encode_host_tensors:EncodeHostTensorsPass",
    "iree-stream-encode-device-tensors": "encode_device_tensors:EncodeDeviceTensorsPass",
    "iree-stream-materialize-builtins": "materialize_builtins:MaterializeBuiltinsPass",
    "iree-stream-schedule-execution": "schedule_execution:ScheduleExecutionPass",
    "iree-stream-schedule-concurrency": "schedule_concurrency:ScheduleConcurrencyPass",
    "iree-stream-propagate-timepoints": "propagate_timepoints:PropagateTimepointsPass",
    "iree-stream-schedule-allocation": "schedule_allocation:ScheduleAllocationPass",
    "iree-stream-pack-constants": "pack_constants:PackConstantsPass",
    "iree-stream-layout-slices": "layout_slices:LayoutSlicesPass",
    "iree-stream-elide-timepoints": "elide_timepoints:ElideTimepointsPass",
    "iree-stream-materialize-copy-on-write": "materialize_copy_on_write:MaterializeCopyOnWritePass",
    "iree-stream-elide-async-copies": "elide_async_copies:ElideAsyncCopiesPass",
    "iree-stream-refine-usage": "refine_usage:RefineUsagePass",
    "iree-stream-fuse-dispatch-bindings": "fuse_dispatch_bindings:FuseDispatchBindingsPass",
    "iree-stream-pack-dispatch-operands": "pack_dispatch_operands:PackDispatchOperandsPass",
    "iree-stream-fold-uniform-operands": "fold_uniform_operands:FoldUniformOperandsPass",
    "iree-stream-annotate-dispatch-arguments": "annotate_dispatch_arguments:AnnotateDispatchArgumentsPass",
}
