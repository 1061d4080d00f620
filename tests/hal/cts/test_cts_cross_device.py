"""CTS: devices own separate heaps (docs/ARCHITECTURE.md §6) and dispatches check binding encodings."""
import numpy as np
import pytest

from rt.runtime import hal
from rt.runtime.errors import InvalidArgumentError, ModuleFormatError

from fake_executables import FAKE_DATA, FAKE_FORMAT

ADD, SCALE = 1, 2  # export ordinals of the fake executable
LHS = "#iree_encoding.layout<mmt4d lhs 16x1>"
RHS = "#iree_encoding.layout<mmt4d rhs 16x1>"


def _recording(device):
    cb = device.create_command_buffer()
    cb.begin()
    return cb


def test_commands_reject_another_devices_buffer_naming_both(device, device_factory):
    other = device_factory()
    theirs = other.allocator.allocate_buffer(64)
    cb = _recording(device)
    for record in (lambda: cb.fill_buffer(theirs, 0, 64, 1, 1),
                   lambda: cb.update_buffer(b"abcd", 0, theirs, 0, 4)):
        with pytest.raises(InvalidArgumentError) as info:
            record()
        text = str(info.value)
        assert f"target {theirs.describe()} lives on {other.label}" in text
        assert f"which {device.label} cannot reach" in text and "transfer it with queue_copy" in text
    assert cb.command_count == 0 and cb.buffers == []


def test_queue_operations_reject_another_devices_buffer(device, device_factory):
    other = device_factory()
    theirs = other.allocator.allocate_from(bytes(64))
    with pytest.raises(InvalidArgumentError, match=rf"queue_fill on {device.label}: target "
                                                   rf".* lives on {other.label}, which "):
        device.queue_fill(theirs, 0, 64, 1, 1)
    with pytest.raises(InvalidArgumentError, match=r"queue_update .* lives on .*cannot reach"):
        device.queue_update(b"abcd", 0, theirs, 0, 4)
    with pytest.raises(InvalidArgumentError, match=rf"queue_dealloca on {device.label}: .* lives on "
                                                   rf"{other.label}, whose heap"):
        device.queue_dealloca(theirs)
    third = device_factory().allocator.allocate_buffer(64)
    with pytest.raises(InvalidArgumentError, match=r"neither source .* nor target .* lives on this "
                                                   r"device; submit the copy on one of theirs"):
        device.queue_copy(theirs, 0, third, 0, 64)
    assert theirs.read() == bytes(64)


def test_copies_are_the_way_across(device, device_factory):
    other = device_factory()
    theirs = other.allocator.allocate_from(np.arange(16, dtype=np.int32))
    mine = device.allocator.allocate_buffer(64)
    cb = _recording(device)
    cb.copy_buffer(theirs, 0, mine, 0, 32)
    cb.end()
    device.queue_execute([cb]).wait(timeout=10)
    device.queue_copy(mine, 0, theirs, 32, 32).wait(timeout=10)
    assert list(mine.to_numpy(np.int32)[:8]) == list(range(8))
    assert list(theirs.to_numpy(np.int32)) == list(range(8)) * 2
    cb = _recording(device)
    with pytest.raises(InvalidArgumentError, match=r"neither source .* nor target .* lives on"):
        cb.copy_buffer(theirs, 0, other.allocator.allocate_buffer(32), 0, 32)


def test_no_transfer_path_between_domains(device, device_factory, monkeypatch):
    other = device_factory()
    monkeypatch.setattr(other, "transfer_domain", "remote")
    theirs = other.allocator.allocate_buffer(64)
    mine = device.allocator.allocate_buffer(64)
    assert not device.can_transfer_with(other) and device.can_transfer_with(device)
    with pytest.raises(InvalidArgumentError, match=rf"source .* lives on {other.label}, which "
                                                   rf"{device.label} cannot reach: no transfer path"):
        device.queue_copy(theirs, 0, mine, 0, 64)
    with pytest.raises(InvalidArgumentError, match=r"copy_buffer .*no transfer path"):
        _recording(device).copy_buffer(mine, 0, theirs, 0, 64)


def _encoded_executable(device, encodings):
    return device.create_executable(FAKE_FORMAT, FAKE_DATA,
                                    {"binding_encodings": {"add_f32": encodings}})


def _add_buffers(device, lhs_encoding, rhs_encoding):
    a = device.allocator.allocate_from(np.arange(64, dtype=np.float32))
    b = device.allocator.allocate_from(np.ones(64, np.float32))
    a.set_encoding(lhs_encoding)
    b.set_encoding(rhs_encoding)
    return a, b, device.allocator.allocate_buffer(256)


def test_binding_with_the_expected_encoding_dispatches(device):
    exe = _encoded_executable(device, [LHS, RHS, None])
    assert exe.binding_encodings(ADD) == (LHS, RHS, None) and exe.binding_encodings(SCALE) is None
    a, b, out = _add_buffers(device, LHS, None)
    out.set_encoding("#anything")
    cb = _recording(device)
    cb.dispatch(exe, ADD, (1, 1, 1), [64], [a, b, out])
    cb.end()
    device.queue_execute([cb]).wait(timeout=10)
    np.testing.assert_array_equal(out.to_numpy(np.float32), np.arange(64) + 1)


def test_binding_with_another_encoding_is_rejected(device):
    exe = _encoded_executable(device, [LHS, RHS, None])
    a, b, out = _add_buffers(device, LHS, LHS)
    cb = _recording(device)
    with pytest.raises(InvalidArgumentError) as info:
        cb.dispatch(exe, ADD, (1, 1, 1), [64], [a, b.subspan(0, 256), out])
    assert str(info.value).startswith(f"command_buffer.dispatch (command 0) of {cb.label} of "
                                      "'add_f32': binding 1 expects encoding "
                                      f"'{RHS}' but buffer #")
    assert f"holds encoding '{LHS}'" in str(info.value)
    view = hal.BufferView(device.allocator.allocate_buffer(256), (64,), hal.ElementType.FLOAT_32,
                          encoding="#other")
    assert view.encoding == "#other"
    with pytest.raises(InvalidArgumentError, match=rf"binding 0 expects encoding '{LHS}' but .* "
                                                   r"holds encoding '#other'"):
        cb.dispatch(exe, ADD, (1, 1, 1), [64], [view, a, out])
    assert cb.command_count == 0 and cb.buffers == []  # a rejected command keeps no buffer
    a.release()
    cb.end()
    device.queue_execute([cb]).wait(timeout=10)


def test_malformed_binding_encodings_are_module_format_errors(device):
    cases = [
        ({"nope": [None]}, r"names export 'nope', which the executable lacks; exports: empty"),
        ({"add_f32": [LHS]}, r"for export 'add_f32' must list 3 entries"),
        ({"add_f32": [LHS, 7, None]}, r"binding 1: expected an encoding identifier or null, got 7"),
        (["add_f32"], r"must map export names to lists, got list"),
    ]
    for table, message in cases:
        with pytest.raises(ModuleFormatError, match=message):
            device.create_executable(FAKE_FORMAT, FAKE_DATA, {"binding_encodings": table})
    with pytest.raises(InvalidArgumentError, match=r"encoding must be a non-empty str or None"):
        device.allocator.allocate_buffer(4).set_encoding("")
