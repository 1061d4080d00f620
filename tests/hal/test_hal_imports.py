"""The ``hal`` module's imports come from one table (rt.runtime.hal.imports): the Python
methods, the C entries and the generated argument positions all agree with it."""
import pathlib

import pytest

from rt.runtime.hal import imports
from rt.runtime.hal.imports import IMPORTS, Segment
from rt.runtime.hal.module import HalModule, hal_import

GENERATED = pathlib.Path(imports.__file__).parent / "_generated" / "imports.pxi"


def test_every_row_is_a_method_and_every_method_a_row():
    assert set(HalModule.exports) == set(IMPORTS)
    for name, (method, signature) in HalModule.exports.items():
        assert getattr(HalModule, method).__rt_native__[0] == name


def test_every_c_entry_is_an_import_of_the_table():
    c_entries = HalModule().native_functions()
    assert c_entries and set(c_entries) <= set(IMPORTS)
    assert "command_buffer.dispatch" in c_entries and "fence.await" in c_entries
    assert "command_buffer.collective" in c_entries


def test_the_built_argument_positions_are_those_of_the_table():
    assert GENERATED.read_text() == imports.pxi_text()


def test_positions_follow_the_argument_order():
    text = imports.pxi_text()
    assert "    DEVICE_QUEUE_ALLOCA__SIZE = 7\n" in text
    assert "    COMMAND_BUFFER_DISPATCH__CONSTANTS = 7\n" in text
    assert "    COMMAND_BUFFER_DISPATCH__BINDINGS__SPAN = 1\n" in text
    assert "    COMMAND_BUFFER_DISPATCH__BINDINGS__STRIDE = 5\n" in text
    assert "    COMMAND_BUFFER_DISPATCH__BINDINGS__BUFFER = 2\n" in text
    assert "    FENCE_AWAIT__FENCES = 2\n" in text


def test_queue_execute_and_its_indirect_form_share_their_leading_arguments():
    plain = IMPORTS["device.queue.execute"].arguments
    indirect = IMPORTS["device.queue.execute.indirect"].arguments
    assert indirect[:len(plain)] == plain
    assert indirect[len(plain)] == Segment("table", ("buffer", "offset", "length"))


def test_a_method_whose_parameters_differ_from_the_table_is_refused():
    with pytest.raises(TypeError, match=r"hal.buffer.subspan is declared with \('buffer', 'offset', 'length'\)"):
        @hal_import("buffer.subspan")
        def buffer_subspan(self, buffer, length, offset):
            return None


def test_a_row_whose_arguments_do_not_match_its_calling_convention_is_refused():
    with pytest.raises(ValueError, match="do not match the calling convention"):
        imports._parse(("buffer.subspan", "0rII_r", "buffer, offset", "buffer"))
    with pytest.raises(ValueError, match="do not match the calling convention"):
        imports._parse(("fence.join", "0ICrD_r", "flags, fences", "fence"))
