"""The ``util`` dialect: globals, functions, initializers and IREE's test helpers.

Ops (IREE's printed form):
``util.global private mutable? @x {attrs}? (= initial_value)? (: type)?``,
``util.global.load immutable? @x : type``, ``util.global.store %v, @x : type``,
``util.func public @f(%a: t) -> t attributes {...} { ... util.return %v : t }``,
``util.call @f(%a) : (t) -> t``, ``util.initializer { ... util.return }`` (older dumps end it
with ``util.initializer.return``), ``util.unfoldable_constant dense<...> : tensor<4xf32>``,
``util.optimization_barrier %v : t``, ``util.null : !hal.fence``,
``util.buffer.constant {alignment = 64 : index} : !util.buffer = #util.composite<64xi8, [...]>``;
attributes ``#util.inline.never`` / ``#util.inline.always`` (inlining policies, kept as given).

Source followed: IREE ``compiler/src/iree/compiler/Dialect/Util/IR/UtilOps.td``.
"""
from typing import ClassVar

from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FunctionType,
    IntegerAttr,
    StringAttr,
    SymbolRefAttr,
    UnitAttr,
)
from xdsl.dialects.func import FuncOpCallableInterface
from xdsl.dialects.utils import parse_func_op_like, print_func_op_like
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute, TypedAttribute
from xdsl.irdl import (
    irdl_attr_definition,
    irdl_op_definition,
    opt_prop_def,
    param_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
    operand_def,
)
from xdsl.parser import Parser
from xdsl.traits import (
    IsolatedFromAbove,
    IsTerminator,
    Pure,
    SymbolOpInterface,
)
from xdsl.utils.exceptions import VerifyException

from rt.compiler.dialects import _syntax as syn
from rt.compiler.dialects._directives import FunctionalType, TypedAttr
from rt.compiler.dialects._regions import Body, SymbolName, Visibility
from rt.compiler.dialects._format import (
    RETURN_VALUES,
    Attr,
    AttrDict,
    Custom,
    Directive,
    Flag,
    FormattedOp,
    Operand,
    Operands,
    OpFormat,
    Opt,
    Str,
    SymbolRef,
    Type,
    Types,
)
from rt.compiler.dialects.hal_attrs import DeviceTargetAttr
from rt.compiler.dialects.hal_types import DeviceType


BufferType = syn.opaque_type(__name__, "BufferType", "util.buffer",
                             "``!util.buffer``: a host byte buffer (constant pools, rodata).")


@irdl_attr_definition
class InlineNeverAttr(ParametrizedAttribute):
    """``#util.inline.never``: an inlining policy (IREE's importers put it on ABI functions)."""

    name = "util.inline.never"


@irdl_attr_definition
class InlineAlwaysAttr(ParametrizedAttribute):
    """``#util.inline.always``: an inlining policy."""

    name = "util.inline.always"


@irdl_attr_definition
class CompositeAttr(ParametrizedAttribute):
    """``#util.composite<64xi8, [attr, ...]>``: a byte buffer built from concatenated values."""

    name = "util.composite"
    total_length: IntegerAttr = param_def()
    values: ArrayAttr = param_def()

    @classmethod
    def parse_parameters(cls, parser):
        parser.parse_punctuation("<")
        dims, elem = parser.parse_ranked_shape()
        if len(dims) != 1 or str(elem) != "i8":
            parser.raise_error("#util.composite: expected a byte length like 64xi8")
        parser.parse_punctuation(",")
        values = parser.parse_comma_separated_list(Parser.Delimiter.SQUARE, parser.parse_attribute)
        parser.parse_optional_punctuation(",")
        parser.parse_punctuation(">")
        return (IntegerAttr(dims[0], 64), ArrayAttr(values))

    def print_parameters(self, printer):
        printer.print_string(f"<{self.total_length.value.data}xi8, [")
        printer.print_list(self.values.data, printer.print_attribute)
        printer.print_string("]>")


class TypeOrAttr(Directive):
    """IREE's ``custom<TypeOrAttr>``: `` = value`` and/or `` : type`` of a global. The type may be
    left out when the value gives it (a typed value of that type, or a ``#hal.device.target``
    for ``!hal.device``), and is printed only then."""

    field = "type"

    def parse(self, state):
        parser = state.parser
        initial = None
        pos = parser.pos
        if parser.parse_optional_punctuation("="):
            initial = parser.parse_attribute()
            state.set_prop("initial_value", initial)
        type_ = None
        if parser.parse_optional_punctuation(":"):
            type_ = parser.parse_type()
        if type_ is None:
            if isinstance(initial, TypedAttribute):
                type_ = initial.get_type()
            elif isinstance(initial, DeviceTargetAttr):
                type_ = DeviceType()
            else:
                parser.raise_error("util.global needs a type (': type') or a typed initial value", pos)
        state.set_prop(self.field, type_)

    def print(self, op, printer):
        initial = op.initial_value
        if initial is not None:
            printer.print_string(" = ")
            printer.print_attribute(initial)
            if isinstance(initial, TypedAttribute) and initial.get_type() == op.type:
                return
            if isinstance(initial, DeviceTargetAttr):
                return
        printer.print_string(" : ")
        printer.print_attribute(op.type)


@irdl_op_definition
class GlobalOp(FormattedOp):
    """``util.global private mutable? @name (= value)? : type``: a module-level variable."""

    name = "util.global"
    sym_name = prop_def(StringAttr)
    sym_visibility = opt_prop_def(StringAttr)
    type = prop_def(Attribute)
    is_mutable = opt_prop_def(UnitAttr)
    initial_value = opt_prop_def(Attribute)
    traits = traits_def(SymbolOpInterface())

    FORMAT: ClassVar = OpFormat(Visibility(), Flag(" mutable", "is_mutable"), " ", SymbolName(), AttrDict(),
                                TypeOrAttr())


@irdl_op_definition
class GlobalLoadOp(FormattedOp):
    """``util.global.load immutable? @name : type``."""

    name = "util.global.load"
    global_name = prop_def(SymbolRefAttr, prop_name="global")
    is_immutable = opt_prop_def(UnitAttr)
    result = result_def()
    FORMAT: ClassVar = OpFormat(Flag(" immutable", "is_immutable"), " ", SymbolRef("global_name"), AttrDict(), " : ",
                                Type("result"))


@irdl_op_definition
class GlobalStoreOp(FormattedOp):
    """``util.global.store %value, @name : type``."""

    name = "util.global.store"
    value = operand_def()
    global_name = prop_def(SymbolRefAttr, prop_name="global")
    FORMAT: ClassVar = OpFormat(" ", Operand("value"), ", ", SymbolRef("global_name"), AttrDict(), " : ", Type("value"))


@irdl_op_definition
class FuncOp(FormattedOp):
    """``util.func public @name(%a: t) -> t attributes {...} { ... }`` (IREE's function op)."""

    name = "util.func"
    body = region_def()
    sym_name = prop_def(StringAttr)
    function_type = prop_def(FunctionType)
    sym_visibility = opt_prop_def(StringAttr)
    arg_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    res_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    traits = traits_def(IsolatedFromAbove(), SymbolOpInterface(), FuncOpCallableInterface())

    FORMAT: ClassVar = OpFormat(Custom())

    @classmethod
    def parse_syntax(cls, parser):
        visibility = syn.parse_optional_visibility(parser)
        name, inputs, outputs, region, extra, arg_attrs, res_attrs = parse_func_op_like(
            parser, reserved_attr_names=("sym_name", "function_type", "sym_visibility")
        )
        props = {"sym_name": StringAttr(name), "function_type": FunctionType.from_lists(inputs, outputs)}
        if visibility is not None:
            props["sym_visibility"] = visibility
        if arg_attrs is not None:
            props["arg_attrs"] = arg_attrs
        if res_attrs is not None:
            props["res_attrs"] = res_attrs
        return cls.build(properties=props, regions=[region], attributes=extra.data if extra else {})

    def print_syntax(self, printer):
        syn.print_visibility(printer, self.sym_visibility, default="public")
        print_func_op_like(
            printer, self.sym_name, self.function_type, self.body, self.attributes,
            arg_attrs=self.arg_attrs, res_attrs=self.res_attrs,
            reserved_attr_names=("sym_name", "function_type", "sym_visibility", "arg_attrs"),
        )

    def verify_(self):
        if self.body.blocks and tuple(self.body.blocks[0].arg_types) != self.function_type.inputs.data:
            raise VerifyException(f"util.func @{self.sym_name.data}: entry block argument types differ from the signature")


class _ReturnLike(FormattedOp):
    values = var_operand_def()
    traits = traits_def(IsTerminator(), Pure())
    FORMAT: ClassVar = OpFormat(AttrDict(), RETURN_VALUES)


@irdl_op_definition
class ReturnOp(_ReturnLike):
    """``util.return %a, %b : t, t`` (util.func and util.initializer terminator)."""

    name = "util.return"

    def verify_(self):
        func = self.parent_op()
        if isinstance(func, FuncOp):
            expected = func.function_type.outputs.data
            got = tuple(v.type for v in self.values)
            if got != expected:
                raise VerifyException(
                    f"util.return types ({', '.join(map(str, got))}) do not match the result types "
                    f"of @{func.sym_name.data} ({', '.join(map(str, expected))})"
                )


@irdl_op_definition
class InitializerReturnOp(_ReturnLike):
    """``util.initializer.return``: the terminator older IREE dumps use in initializers."""

    name = "util.initializer.return"


@irdl_op_definition
class InitializerOp(FormattedOp):
    """``util.initializer attr-dict { ... }``: runs once when the module is loaded."""

    name = "util.initializer"
    body = region_def()
    traits = traits_def(IsolatedFromAbove())
    FORMAT: ClassVar = OpFormat(AttrDict(keyword=True), " ", Body(ensure_block=False, print_entry_block_args=True))


@irdl_op_definition
class CallOp(FormattedOp):
    """``util.call @callee(%a, %b) : (t, t) -> t``."""

    name = "util.call"
    callee = prop_def(SymbolRefAttr)
    arguments = var_operand_def()
    results_ = var_result_def()
    FORMAT: ClassVar = OpFormat(" ", Attr("callee"), Operands("arguments", "()"), AttrDict(), " : ",
                                FunctionalType("arguments", "results_"))


@irdl_op_definition
class UnfoldableConstantOp(FormattedOp):
    """``util.unfoldable_constant <attr>``: a constant the compiler must not fold (e2e tests).

    Deliberately without the Pure trait and without folders, so canonicalize, cse and the
    rest of the input phase keep it as an op (IREE's canonicalizer instead expands it into
    ``arith.constant`` + ``util.optimization_barrier``, ExpandUnfoldableConstantOp).
    """

    name = "util.unfoldable_constant"
    value = prop_def(Attribute)
    result = result_def()

    FORMAT: ClassVar = OpFormat(AttrDict(), " ", TypedAttr("value", "result"))

    def verify_(self):
        if not isinstance(self.value, TypedAttribute) or self.value.get_type() != self.result.type:
            value_type = self.value.get_type() if isinstance(self.value, TypedAttribute) else "untyped"
            raise VerifyException(f"value type {value_type} differs from result type {self.result.type}")


@irdl_op_definition
class OptimizationBarrierOp(FormattedOp):
    """``util.optimization_barrier %a, %b : t, t``: returns its operands, blocks folding across it."""

    name = "util.optimization_barrier"
    operands_ = var_operand_def()
    results_ = var_result_def()
    FORMAT: ClassVar = OpFormat(" ", Operands("operands_"), AttrDict(), " : ", Types(("operands_", "results_")))


@irdl_op_definition
class BufferConstantOp(FormattedOp):
    """``util.buffer.constant "name"? {alignment = 64 : index} : !util.buffer = <value>``."""

    name = "util.buffer.constant"
    value = prop_def(Attribute)
    name_hint = opt_prop_def(StringAttr, prop_name="name")
    result = result_def(BufferType)
    FORMAT: ClassVar = OpFormat(Opt(" ", Str("name_hint")), AttrDict(), " : ", Type("result"), " = ", Attr("value"))


@irdl_op_definition
class NullOp(FormattedOp):
    """``util.null : !hal.fence``: a null reference of a ref type (no fence, no buffer)."""

    name = "util.null"
    result = result_def()
    traits = traits_def(Pure())
    FORMAT: ClassVar = OpFormat(AttrDict(), " : ", Type("result"))


UTIL_OPS = [
    GlobalOp, GlobalLoadOp, GlobalStoreOp, FuncOp, ReturnOp, InitializerReturnOp, InitializerOp,
    CallOp, UnfoldableConstantOp, OptimizationBarrierOp, BufferConstantOp, NullOp,
]


def build_dialect():
    """The ``util`` Dialect."""
    return Dialect("util", UTIL_OPS, [BufferType, CompositeAttr, InlineNeverAttr, InlineAlwaysAttr])

