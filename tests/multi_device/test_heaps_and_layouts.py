"""Issue 5: devices keep their own heaps; buffers on the wrong device or in the wrong layout are
rejected with errors naming both sides.

* ``PLACE``: @a doubles x, @b squares a transferred copy; each result stays on its device.
* ``HANDOFF``: packed (data-tiled) tensors cross the ABI: @encode_a packs an LHS operand on
  the vmvx device, the decoders expect it packed for their device and operand. The compiler
  records each binding's layout in the executable metadata (``binding_encodings``) and tags
  exported packed buffers, so the wrong layout is an error instead of garbage.
"""
import gc

import numpy as np
import pytest

import rt
from rt.runtime.errors import InvalidArgumentError
from rt.runtime.vm import Module

DEVICES = ["local-task://vmvx", "local-task://llvm-cpu"]
FLAGS = ["a=vmvx", "b=llvm-cpu"]

PLACE = """
func.func @place(%x: tensor<1024xf32>) -> (tensor<1024xf32>, tensor<1024xf32>)
    attributes {stream.affinity = #hal.device.affinity<@a>} {
  %y = arith.addf %x, %x : tensor<1024xf32>
  %xb = flow.tensor.transfer %x : tensor<1024xf32> to #hal.device.affinity<@b>
  %z = arith.mulf %xb, %xb {stream.affinity = #hal.device.affinity<@b>} : tensor<1024xf32>
  return %y, %z : tensor<1024xf32>, tensor<1024xf32>
}
"""

HANDOFF = """
#m = affine_map<(m, n, k) -> (m, k)>
#n = affine_map<(m, n, k) -> (k, n)>
#o = affine_map<(m, n, k) -> (m, n)>
#lhs = #iree_encoding.encoding<operand_index = 0 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [#m, #n, #o]>
#rhs = #iree_encoding.encoding<operand_index = 1 : index, op_type = matmul, element_types = [f32, f32, f32], user_indexing_maps = [#m, #n, #o]>
func.func @encode_a(%x: tensor<16x16xf32>) -> tensor<16x16xf32, #lhs> attributes {stream.affinity = #hal.device.affinity<@a>} {
  %e = iree_encoding.set_encoding %x : tensor<16x16xf32> -> tensor<16x16xf32, #lhs>
  return %e : tensor<16x16xf32, #lhs>
}
func.func @decode_a(%x: tensor<16x16xf32, #lhs>) -> tensor<16x16xf32> attributes {stream.affinity = #hal.device.affinity<@a>} {
  %e = iree_encoding.unset_encoding %x : tensor<16x16xf32, #lhs> -> tensor<16x16xf32>
  return %e : tensor<16x16xf32>
}
func.func @decode_b(%x: tensor<16x16xf32, #lhs>) -> tensor<16x16xf32> attributes {stream.affinity = #hal.device.affinity<@b>} {
  %e = iree_encoding.unset_encoding %x : tensor<16x16xf32, #lhs> -> tensor<16x16xf32>
  return %e : tensor<16x16xf32>
}
func.func @decode_rhs_a(%x: tensor<16x16xf32, #rhs>) -> tensor<16x16xf32> attributes {stream.affinity = #hal.device.affinity<@a>} {
  %e = iree_encoding.unset_encoding %x : tensor<16x16xf32, #rhs> -> tensor<16x16xf32>
  return %e : tensor<16x16xf32>
}
"""


@pytest.fixture(scope="module")
def place():
    with rt.load(rt.compile(PLACE, devices=FLAGS), devices=DEVICES) as m:
        yield m


@pytest.fixture(scope="module")
def handoff_vmfb():
    return rt.compile(HANDOFF, devices=FLAGS)


@pytest.fixture(scope="module")
def handoff(handoff_vmfb):
    with rt.load(handoff_vmfb, devices=DEVICES) as m:
        yield m


def _live(module):
    return [d.allocator.query_statistics() for d in module.devices]


def test_each_device_keeps_its_own_heap(place):
    x = np.arange(1024, dtype=np.float32)
    assert [r.device for r in place.place.abi.results] == [0, 1]
    arg = place.to_device(x, 0)
    before = _live(place)
    y, z = place.place(arg, to_host=False)
    after = _live(place)
    assert (y.device, z.device) == place.devices
    np.testing.assert_array_equal(y.to_host(), 2 * x)
    np.testing.assert_array_equal(z.to_host(), x * x)
    a, b = (new.bytes_live - old.bytes_live for old, new in zip(before, after))
    assert (a, b) == (4096, 4096), "each result lives in the heap of the device that produced it"
    assert after[1].bytes_allocated - before[1].bytes_allocated >= 2 * 4096, \
        "the transferred copy of x was allocated on @b"
    assert after[0].allocation_count - before[0].allocation_count == 1
    del y, z
    gc.collect()
    assert [s.bytes_live for s in _live(place)] == [s.bytes_live for s in before]


def test_a_buffer_on_the_wrong_device_is_rejected_naming_both(place):
    """Raw VM values skip rt.load's transfer: @a's dispatch gets a buffer of @b's heap."""
    x = np.ones(1024, np.float32)
    on_b = place.to_device(x, 1)
    with pytest.raises(InvalidArgumentError) as info:
        place.place.invoke([on_b.buffer_view])
    text = str(info.value)
    a, b = (d.label for d in place.devices)
    assert f"lives on {b}, which {a} cannot reach" in text
    assert "place_dispatch_" in text and "transfer it with queue_copy first" in text


def test_a_device_array_on_another_device_is_transferred(place):
    x = np.linspace(-1, 1, 1024, dtype=np.float32)
    y, z = place.place(place.to_device(x, 1))
    np.testing.assert_array_equal(y, 2 * x)
    np.testing.assert_array_equal(z, x * x)


def test_no_transfer_path_is_an_error_naming_both(place, monkeypatch):
    other = rt.hal.create_device("local-sync://llvm-cpu")
    try:
        monkeypatch.setattr(other, "transfer_domain", "remote")
        far = rt.DeviceArray(rt.hal.BufferView(other.allocator.allocate_from(np.ones(1024, np.float32)),
                                               (1024,), rt.hal.ElementType.FLOAT_32), other)
        with pytest.raises(InvalidArgumentError, match=rf"lives on {other.label}, which "
                                                       rf"{place.devices[0].label} cannot reach: no "
                                                       r"transfer path"):
            place.place(far)
    finally:
        other.release()


#: the executable each function dispatches: decode_a and decode_b have the same body, so
#: iree-flow-deduplicate-executables gives them one executable, which specialize-encodings
#: then copies for the llvm-cpu device (same export name, another layout)
DISPATCHES = {"encode_a": ("encode_a", "vmvx"), "decode_a": ("decode_a", "vmvx"),
              "decode_b": ("decode_a", "llvm-cpu"), "decode_rhs_a": ("decode_rhs_a", "vmvx")}


def _layouts(vmfb):
    """{function: binding_encodings entry of the export it dispatches} (see DISPATCHES)."""
    table = {}
    for exe in Module.from_bytes(vmfb).executables:
        backend = "vmvx" if exe.format.startswith("vmvx") else "llvm-cpu"
        for name, entries in exe.metadata.get("binding_encodings", {}).items():
            table[(name.split("_dispatch_")[0], backend)] = entries
    assert sorted(table) == sorted(DISPATCHES.values())
    return {function: table[key] for function, key in DISPATCHES.items()}


def test_executables_record_the_layout_of_each_binding(handoff_vmfb):
    by_kind = _layouts(handoff_vmfb)
    vmvx_lhs = by_kind["encode_a"][1]
    assert by_kind["encode_a"] == [None, vmvx_lhs] and vmvx_lhs.startswith("packed<f32, innerDimsPos = [0, 1]")
    assert by_kind["decode_a"] == [vmvx_lhs, None]
    assert by_kind["decode_b"][1] is None and by_kind["decode_b"][0] != vmvx_lhs
    assert by_kind["decode_rhs_a"][0].startswith("packed<f32, innerDimsPos = [1, 0]")


def test_packed_results_round_trip_and_carry_their_layout(handoff, handoff_vmfb):
    x = np.arange(256, dtype=np.float32).reshape(16, 16)
    packed = handoff.encode_a(x, to_host=False)
    layouts = _layouts(handoff_vmfb)
    assert packed.buffer_view.buffer.encoding == layouts["encode_a"][1]
    np.testing.assert_array_equal(handoff.decode_a(packed), x)


@pytest.mark.parametrize("decoder", ["decode_b", "decode_rhs_a"])
def test_a_packed_tensor_in_another_layout_is_rejected(handoff, handoff_vmfb, decoder):
    """decode_b: packed for vmvx, read on llvm-cpu (the transfer keeps the tag);
    decode_rhs_a: an LHS packing where an RHS packing is expected, on the same device."""
    layouts = _layouts(handoff_vmfb)
    packed = handoff.encode_a(np.ones((16, 16), np.float32), to_host=False)
    with pytest.raises(InvalidArgumentError) as info:
        handoff[decoder](packed)
    text = str(info.value)
    assert f"binding 0 expects encoding {layouts[decoder][0]!r}" in text
    assert f"holds encoding {layouts['encode_a'][1]!r}" in text
    assert f"{DISPATCHES[decoder][0]}_dispatch_" in text


def test_layout_tags_follow_whole_buffer_copies_only():
    """hal.buffer.set_encoding tags a buffer; a copy of a whole buffer into a whole buffer (a
    transfer) carries the tag (or its absence), a partial copy does not; an empty tag clears it."""
    from rt.runtime.hal.module import HalModule

    a, b = (rt.hal.create_device(uri) for uri in ("local-sync://vmvx", "local-sync://llvm-cpu"))
    try:
        hal_module = HalModule([a, b])
        source = a.allocator.allocate_from(np.arange(16, dtype=np.float32))
        hal_module.buffer_set_encoding(source, b"packed<f32, x>")
        assert source.encoding == "packed<f32, x>"
        whole, part, bigger = (b.allocator.allocate_buffer(n) for n in (64, 32, 128))
        b.queue_copy(source, 0, whole, 0, 64).wait(timeout=10)
        b.queue_copy(source, 0, part, 0, 32).wait(timeout=10)
        cb = b.create_command_buffer()
        cb.begin()
        cb.copy_buffer(source, 0, bigger, 64, 64)
        cb.end()
        b.queue_execute([cb]).wait(timeout=10)
        assert (whole.encoding, part.encoding, bigger.encoding) == ("packed<f32, x>", None, None)
        np.testing.assert_array_equal(whole.to_numpy(np.float32), np.arange(16, dtype=np.float32))
        hal_module.buffer_set_encoding(source, b"")
        assert source.encoding is None
        b.queue_copy(source, 0, whole, 0, 64).wait(timeout=10)
        assert whole.encoding is None, "a whole copy of untagged data clears the tag"
    finally:
        a.release()
        b.release()
