"""Integer DenseArrayBase values are shared once make_context() installed the cache."""
from xdsl.dialects.builtin import DenseArrayBase, f32, i32, i64

from rt.compiler.dialects import make_context


def test_equal_integer_arrays_are_one_attribute_with_xdsls_value():
    make_context()
    a = DenseArrayBase.from_list(i32, [1, 2, -3])
    assert DenseArrayBase.from_list(i32, (1, 2, -3)) is a
    assert list(a.get_values()) == [1, 2, -3] and a.elt_type == i32
    assert DenseArrayBase.from_list(i64, [1, 2, -3]) is not a  # the element type is part of the key
    assert list(DenseArrayBase.from_list(i32, []).get_values()) == []


def test_float_arrays_are_built_each_time():
    make_context()
    zero, negative_zero = DenseArrayBase.from_list(f32, [0.0]), DenseArrayBase.from_list(f32, [-0.0])
    assert zero is not negative_zero
    assert zero.data != negative_zero.data


def test_values_are_unpacked_once_and_equality_ignores_the_memo():
    make_context()
    a = DenseArrayBase.from_list(f32, [1.5, -2.0])
    values = a.get_values()
    assert values == (1.5, -2.0) and a.get_values() is values
    fresh = DenseArrayBase.from_list(f32, [1.5, -2.0])
    assert fresh == a and hash(fresh) == hash(a)
