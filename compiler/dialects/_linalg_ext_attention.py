"""``iree_linalg_ext.attention``, ``online_attention`` and the ``yield`` of their score region.

Printed as IREE prints them::

    %r = iree_linalg_ext.attention {indexing_maps = [#q, #k, #v, #scale, (#mask,) #out]}
           ins(%q, %k, %v, %scale(, %mask) : tq, tk, tv, f32(, tmask)) outs(%out : tout) {
         ^bb0(%score: f32):
           iree_linalg_ext.yield %score : f32
         } -> tout

``online_attention`` has three outputs (``outs(%acc, %max, %sum : ...)``) and three maps for them.

Semantics (IREE's ``AggregatedOpInterfaceImpl.cpp`` decomposition, which rt's kernels follow):
the iteration dims fall into five roles by which operands index them -- batch (Q, K, V, out),
M (Q, out), K1 (Q, K), K2 (K, V), N (V, out). ``S = (Q * scale) @ K^T`` over K1, computed in
f32 and multiplied by log2(e) (IREE's exp2 form); the region maps each score; a float mask is
added (times log2(e)), an i1 mask adds 0 where true and -inf where false; then
``P = exp2(S - rowmax)`` and ``out = P @ V / rowsum(P)``. ``online_attention`` updates running
``acc``/``max``/``sum`` instead (``max' = max(max, rowmax(S))``, ``acc' = acc * exp2(max -
max') + P @ V``, ``sum' = sum * exp2(max - max') + rowsum(P)``) and leaves the division to
its user.

Source followed: IREE ``compiler/src/iree/compiler/Dialect/LinalgExt/IR/LinalgExtOps.td``
(AttentionOp, OnlineAttentionOp, the assembly format) and ``LinalgExtOps.cpp`` (verifiers).
"""
from typing import ClassVar

from xdsl.dialects.builtin import AnyFloat, ArrayAttr, DictionaryAttr, IntegerType, TensorType
from xdsl.ir.affine import AffineDimExpr
from xdsl.irdl import (
    AttrSizedOperandSegments,
    irdl_op_definition,
    opt_attr_def,
    opt_operand_def,
    operand_def,
    region_def,
    attr_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.utils.exceptions import VerifyException

from rt.compiler.dialects import _syntax as syn
from rt.compiler.dialects._format import Custom, FormattedOp, OpFormat
from rt.compiler.dialects._linalg_ext_ops import YieldOp

#: the five roles of an attention iteration dim, in the order kernels nest them
ROLES = ("batch", "m", "k1", "k2", "n")
#: per role, which of (Q, K, V, out) index a dim of that role
_ROLE_OPERANDS = {"batch": (True, True, True, True), "m": (True, False, False, True),
                  "k1": (True, True, False, False), "k2": (False, True, True, False),
                  "n": (False, False, True, True)}


def dim_roles(maps):
    """Per iteration dim, its role (one of ``ROLES``), from the Q, K, V and out maps.

    maps: xDSL AffineMaps of (query, key, value, output), each a projection of the iteration dims.
    Raises VerifyException naming the dim that no role fits.
    """
    n = maps[0].num_dims
    used = [{r.position for r in m.results if isinstance(r, AffineDimExpr)} for m in maps]
    roles = []
    for d in range(n):
        key = tuple(d in u for u in used)
        role = next((r for r, k in _ROLE_OPERANDS.items() if k == key), None)
        if role is None:
            raise VerifyException(
                f"iteration dim d{d} is indexed by {', '.join(w for w, u in zip(('query', 'key', 'value', 'output'), key) if u) or 'no operand'}; "
                "expected a batch dim (query, key, value, output), M (query, output), K1 (query, key), "
                "K2 (key, value) or N (value, output)")
        roles.append(role)
    for role in ROLES[1:]:
        if role not in roles:
            raise VerifyException(f"the indexing maps give no {role.upper()} dim; expected at least one "
                                  f"(query/key/value/output maps of IREE's attention)")
    return roles


#: the op's inherent attributes, printed in its ``<...>`` clause as IREE 3.13 prints them
_PROPERTIES = ("indexing_maps", "decomposition_config")


def _parse_properties(parser):
    """``<indexing_maps = [...], decomposition_config = {...}>`` (IREE 3.13's printed form) or
    nothing (older IREE writes them in the attribute dictionary) -> {name: attribute}."""
    attrs = {}
    if parser.parse_optional_punctuation("<") is None:
        return attrs
    while True:
        pos = parser.pos
        name = parser.parse_identifier()
        if name not in _PROPERTIES:
            parser.raise_error(f"unknown property '{name}'; expected one of {', '.join(_PROPERTIES)}", pos)
        parser.parse_punctuation("=")
        attrs[name] = parser.parse_attribute()
        if parser.parse_optional_punctuation(",") is None:
            break
    parser.parse_punctuation(">")
    return attrs


class _AttentionBase(FormattedOp):
    """Fields, syntax and verifier shared by attention and online_attention."""

    query = operand_def()
    key = operand_def()
    value = operand_def()
    scale = operand_def()
    mask = opt_operand_def()
    outputs = var_operand_def()
    results_ = var_result_def()
    indexing_maps = attr_def(ArrayAttr)
    decomposition_config = opt_attr_def(DictionaryAttr)
    region = region_def("single_block")
    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    FORMAT: ClassVar = OpFormat(Custom())
    #: how many outputs the op has (1: out; 3: acc, max, sum)
    OUTPUTS: ClassVar[int]

    @classmethod
    def parse_syntax(cls, parser):
        pos = parser.pos
        attrs = _parse_properties(parser)
        attrs |= parser.parse_optional_attr_dict()
        ins = syn.parse_operand_group(parser, "ins")
        outs = syn.parse_operand_group(parser, "outs")
        if len(ins) not in (4, 5):
            parser.raise_error(f"{cls.name} takes ins(query, key, value, scale[, mask]); got {len(ins)} operands", pos)
        if len(outs) != cls.OUTPUTS:
            parser.raise_error(f"{cls.name} takes {cls.OUTPUTS} outs operand(s); got {len(outs)}", pos)
        region = parser.parse_region()
        results = []
        if parser.parse_optional_punctuation("->"):
            results = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_type)
        return cls.build(operands=[*ins[:4], ins[4:], outs], result_types=[results], regions=[region],
                         attributes=attrs)

    def print_syntax(self, printer):
        printer.print_string(" <")
        props = [(k, v) for k, v in self.attributes.items() if k in _PROPERTIES]
        for i, (k, v) in enumerate(props):
            printer.print_string(f"{', ' if i else ''}{k} = ")
            printer.print_attribute(v)
        printer.print_string(">")
        syn.print_attr_dict(printer, {k: v for k, v in self.attributes.items() if k not in _PROPERTIES})
        ins = [self.query, self.key, self.value, self.scale, *self.masks()]
        for keyword, values in ((" ins(", ins), (" outs(", list(self.outputs))):
            printer.print_string(keyword)
            printer.print_list(values, printer.print_operand)
            printer.print_string(" : ")
            printer.print_list([v.type for v in values], printer.print_attribute)
            printer.print_string(")")
        printer.print_string(" ")
        printer.print_region(self.region, print_entry_block_args=True)
        if self.results:
            printer.print_string(" -> ")
            printer.print_list([r.type for r in self.results], printer.print_attribute)

    def maps(self):
        """The indexing maps as xDSL AffineMaps: Q, K, V, scale, [mask,] then each output."""
        return [m.data for m in self.indexing_maps.data]

    def roles(self):
        """Per iteration dim, its role (``ROLES``)."""
        maps = self.maps()
        return dim_roles([maps[0], maps[1], maps[2], maps[4 + len(self.masks())]])

    def masks(self):
        """``[mask]`` when the op has one, else ``[]``."""
        return [] if self.mask is None else [self.mask]

    def verify_(self):
        operands = [("query", self.query), ("key", self.key), ("value", self.value), ("scale", self.scale),
                    *(("mask", m) for m in self.masks()),
                    *((f"output {i}", o) for i, o in enumerate(self.outputs))]
        maps = self.maps()
        if len(maps) != len(operands):
            raise VerifyException(f"expected {len(operands)} indexing maps (one per operand: "
                                  f"{', '.join(n for n, _ in operands)}); got {len(maps)}")
        if not isinstance(self.scale.type, AnyFloat):
            raise VerifyException(f"scale must be a float scalar; got {self.scale.type}")
        sizes = {}
        for (what, v), m in zip(operands, maps):
            if m.num_dims != maps[0].num_dims or m.num_symbols:
                raise VerifyException(f"the indexing map of {what} has {m.num_dims} dims and {m.num_symbols} "
                                      f"symbols; expected {maps[0].num_dims} dims, no symbols, like the query's")
            if what == "scale":
                if m.results:
                    raise VerifyException(f"the scale's indexing map must have no results; got {m}")
                continue
            if not isinstance(v.type, TensorType):
                raise VerifyException(f"{what} must be a ranked tensor; got {v.type}")
            shape = v.type.get_shape()
            if len(m.results) != len(shape) or not all(isinstance(r, AffineDimExpr) for r in m.results):
                raise VerifyException(f"the indexing map of {what} ({m}) must name one iteration dim per dim "
                                      f"of its type {v.type}")
            ety = v.type.element_type
            if what == "mask":
                if not (isinstance(ety, AnyFloat) or (isinstance(ety, IntegerType) and ety.width.data == 1)):
                    raise VerifyException(f"the mask's elements must be i1 or float; got {ety}")
            elif not isinstance(ety, AnyFloat):
                raise VerifyException(f"{what} must have float elements; got {ety}")
            for r, size in zip(m.results, shape):
                if size < 0:
                    continue
                seen = sizes.setdefault(r.position, (size, what))
                if seen[0] != size:
                    raise VerifyException(f"iteration dim d{r.position} is {seen[0]} in {seen[1]} but {size} in "
                                          f"{what}; the operands must agree on every dim")
        self.roles()
        outputs = list(self.outputs)
        if self.results and [r.type for r in self.results] != [o.type for o in outputs]:
            raise VerifyException(f"result types ({', '.join(str(r.type) for r in self.results)}) must equal "
                                  f"the outs types ({', '.join(str(o.type) for o in outputs)})")
        self._verify_region()

    def _verify_region(self):
        block = self.region.block
        if len(block.args) != 1 or not isinstance(block.args[0].type, AnyFloat):
            raise VerifyException(f"the region takes one float argument (the score); got "
                                  f"({', '.join(str(a.type) for a in block.args)})")
        last = block.last_op
        if not isinstance(last, YieldOp) or len(last.values) != 1 or not isinstance(last.values[0].type, AnyFloat):
            raise VerifyException("the region must end in 'iree_linalg_ext.yield' of one float (the new score)")


@irdl_op_definition
class AttentionOp(_AttentionBase):
    """``iree_linalg_ext.attention``: ``softmax(region(Q @ K^T * scale) + mask) @ V`` in one op."""

    name = "iree_linalg_ext.attention"
    OUTPUTS: ClassVar[int] = 1


@irdl_op_definition
class OnlineAttentionOp(_AttentionBase):
    """``iree_linalg_ext.online_attention``: one step of attention with running acc/max/sum.

    The max and sum outputs are indexed by the batch and M dims; acc as attention's output."""

    name = "iree_linalg_ext.online_attention"
    OUTPUTS: ClassVar[int] = 3


#: op classes of this module, registered by iree_linalg_ext.build_dialect
OPS = (AttentionOp, OnlineAttentionOp)
#: attribute classes of this module
ATTRIBUTES = ()
