"""The attributes of the ``stablehlo`` dialect (``dialects/stablehlo.py``).

``#stablehlo<comparison_direction EQ>``, ``#stablehlo<comparison_type FLOAT>``,
``#stablehlo<precision DEFAULT>``, ``#stablehlo<fft_type FFT>`` (one keyword each, also read as ``#stablehlo.KIND<VALUE>``),
``#stablehlo.dot<...>`` (dot_general dimension numbers), ``#stablehlo.gather<...>``,
``#stablehlo.scatter<...>`` and
``#stablehlo.conv<...>`` (struct attributes read with ``_stablehlo_structs.py``).

Source followed: openxla/stablehlo ``StablehloAttrs.td`` and ``StablehloEnums.td``.
"""
from typing import ClassVar

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, StringAttr
from xdsl.ir import ParametrizedAttribute
from xdsl.irdl import irdl_attr_definition

from rt.compiler.dialects._stablehlo_structs import (CONV_FIELDS, parse_conv_dims, parse_dot_dims,
                                                     parse_struct_fields, print_dot_dims, struct_text)


class _EnumAttr(ParametrizedAttribute):
    """``#stablehlo<KIND VALUE>`` (or ``#stablehlo.KIND<VALUE>``): one keyword out of ``VALUES``."""

    VALUES: ClassVar[tuple] = ()
    value: StringAttr

    @classmethod
    def parse_parameters(cls, parser):
        bracketed = parser.parse_optional_punctuation("<") is not None
        pos = parser.pos
        word = parser.parse_identifier()
        if word not in cls.VALUES:
            parser.raise_error(f"{cls.name}: expected one of {', '.join(cls.VALUES)}, got '{word}'", pos)
        if bracketed:
            parser.parse_punctuation(">")
        return (StringAttr(word),)

    def print_parameters(self, printer):
        printer.print_string(f"<{self.value.data}>")


@irdl_attr_definition
class ComparisonDirectionAttr(_EnumAttr):
    name = "stablehlo.comparison_direction"
    VALUES: ClassVar[tuple] = ("EQ", "NE", "GE", "GT", "LE", "LT")


@irdl_attr_definition
class ComparisonTypeAttr(_EnumAttr):
    name = "stablehlo.comparison_type"
    VALUES: ClassVar[tuple] = ("NOTYPE", "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED")


@irdl_attr_definition
class PrecisionAttr(_EnumAttr):
    name = "stablehlo.precision"
    VALUES: ClassVar[tuple] = ("DEFAULT", "HIGH", "HIGHEST")


@irdl_attr_definition
class RngDistributionAttr(_EnumAttr):
    name = "stablehlo.rng_distribution"
    VALUES: ClassVar[tuple] = ("UNIFORM", "NORMAL")


@irdl_attr_definition
class RngAlgorithmAttr(_EnumAttr):
    name = "stablehlo.rng_algorithm"
    VALUES: ClassVar[tuple] = ("DEFAULT", "THREE_FRY", "PHILOX")


@irdl_attr_definition
class FftTypeAttr(_EnumAttr):
    """``#stablehlo<fft_type RFFT>``: forward/inverse, complex-to-complex or real/complex halves."""

    name = "stablehlo.fft_type"
    VALUES: ClassVar[tuple] = ("FFT", "IFFT", "RFFT", "IRFFT")


@irdl_attr_definition
class DotDimensionNumbersAttr(ParametrizedAttribute):
    """``#stablehlo.dot<lhs_batching_dimensions = [0], ..., rhs_contracting_dimensions = [1]>``."""

    name = "stablehlo.dot"
    lhs_batching_dimensions: ArrayAttr
    rhs_batching_dimensions: ArrayAttr
    lhs_contracting_dimensions: ArrayAttr
    rhs_contracting_dimensions: ArrayAttr

    @classmethod
    def parse_parameters(cls, parser):
        return parse_dot_dims(parser)

    def print_parameters(self, printer):
        print_dot_dims(self, printer)


class _StructAttr(ParametrizedAttribute):
    """``#stablehlo.NAME<key = [0, 1], key = 2, ...>``: named integers and integer lists
    (``FIELDS``; absent lists are empty); read with :meth:`get`."""

    FIELDS: ClassVar[tuple] = ()
    fields: DictionaryAttr

    @classmethod
    def parse_parameters(cls, parser):
        return (DictionaryAttr(parse_struct_fields(parser, cls.name, cls.FIELDS)),)

    def print_parameters(self, printer):
        printer.print_string("<" + ", ".join(f"{k} = {struct_text(v)}" for k, v in self.fields.data.items()) + ">")

    def get(self, key, default=()):
        """The integers of field ``key`` (a list, or an int for scalar fields)."""
        value = self.fields.data.get(key)
        if value is None:
            return list(default) if isinstance(default, (list, tuple)) else default
        if isinstance(value, ArrayAttr):
            return [v.value.data for v in value.data]
        return value.value.data


@irdl_attr_definition
class GatherDimensionNumbersAttr(_StructAttr):
    name = "stablehlo.gather"
    FIELDS: ClassVar[tuple] = ("offset_dims", "collapsed_slice_dims", "operand_batching_dims",
                               "start_indices_batching_dims", "start_index_map", "index_vector_dim")


@irdl_attr_definition
class ConvDimensionNumbersAttr(_StructAttr):
    """``#stablehlo.conv<raw input_batch_dimension = 0, ...>`` or the compact
    ``#stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>``."""

    name = "stablehlo.conv"
    FIELDS: ClassVar[tuple] = CONV_FIELDS

    @classmethod
    def parse_parameters(cls, parser):
        return (DictionaryAttr(parse_conv_dims(parser)),)


@irdl_attr_definition
class ScatterDimensionNumbersAttr(_StructAttr):
    name = "stablehlo.scatter"
    FIELDS: ClassVar[tuple] = ("update_window_dims", "inserted_window_dims", "input_batching_dims",
                               "scatter_indices_batching_dims", "scatter_dims_to_operand_dims", "index_vector_dim")
