"""Stream-phase passes (IREE's ``iree-stream-*``): tensors -> async resources -> explicit commands.

Only implemented passes are registered; :mod:`.pipeline` lists the phase order.
"""

PASSES = {
    "iree-stream-convert-to-stream": "convert_to_stream:ConvertToStreamPass",
    "iree-stream-encode-host-tensors": "encode_host_tensors:EncodeHostTensorsPass",
    "iree-stream-layout-slices": "layout_slices:LayoutSlicesPass",
}
