"""Tests that ``rt.runtime.record.Record`` classes behave as the frozen dataclasses they replace:
construction, defaults, equality, hash, repr, immutability, pickling and argument errors."""
import copy
import pickle

import pytest

from rt.runtime.hal.commands import BarrierCommand, BufferRef, FillCommand
from rt.runtime.hal.executable_library import ExportInfo


def test_fields_defaults_equality_hash_and_repr():
    e = ExportInfo("mm", 3, 1)
    assert (e.name, e.binding_count, e.constant_count, e.workgroup_size) == ("mm", 3, 1, (1, 1, 1))
    same = ExportInfo(name="mm", binding_count=3, constant_count=1, workgroup_size=(1, 1, 1))
    assert e == same and hash(e) == hash(same) and len({e, same}) == 1
    assert e != ExportInfo("mm", 3, 2)
    assert repr(e) == "ExportInfo(name='mm', binding_count=3, constant_count=1, workgroup_size=(1, 1, 1))"
    assert repr(BufferRef(slot=2, length=16)) == "BufferRef(buffer=None, slot=2, offset=0, length=16)"
    assert BarrierCommand() == BarrierCommand() and repr(BarrierCommand()) == "BarrierCommand()"
    ref = BufferRef(None, 1, 0, 4)
    assert FillCommand(ref, 0, 1) != FillCommand(ref, 0, 2)
    assert (BufferRef(None, 0, 0, None) == (None, 0, 0, None)) is False


def test_immutable_and_pickled_by_fields():
    e = ExportInfo("mm", 3, 1)
    with pytest.raises(AttributeError, match="'name': a ExportInfo is immutable"):
        e.name = "other"
    with pytest.raises(AttributeError):
        del e.binding_count
    assert pickle.loads(pickle.dumps(e)) == e and copy.deepcopy(e) == e
    ref = BufferRef(None, 2, 8, 16)
    assert pickle.loads(pickle.dumps(ref)) == ref


@pytest.mark.parametrize("build, message", [
    (lambda: ExportInfo("mm"), "missing required argument 'binding_count'"),
    (lambda: ExportInfo("mm", 1, 2, (1, 1, 1), 5), r"takes 4 arguments .* got 5"),
    (lambda: ExportInfo("mm", 1, 2, nme=3), "unexpected keyword argument 'nme'"),
    (lambda: ExportInfo("mm", 1, 2, name="b"), "multiple values for argument 'name'"),
])
def test_bad_arguments_raise_type_error(build, message):
    with pytest.raises(TypeError, match=message):
        build()
