"""``rt-decompose-linalg-ext``: the ``iree_linalg_ext`` index/sort family as ``linalg.generic``s.

Each op becomes a few generics on tensors (``compiler/helpers/linalg_ext``; a sort a host
``scf.while`` of them), which the rest of the pipeline forms into dispatches and compiles on
every device like any linalg (``b``: a scatter's update batch):

=====================  ==========================================================  ===========
op                     generics                                                    work
=====================  ==========================================================  ===========
sort, topk, topk_v2    host loop of merge passes (sequential merge along the dim)  O(n log n)
scan                   one generic, the scan dim a sequential reduction loop       O(n)
arg_compare            one reduction generic over (value, index)                   O(n)
gather, map_load       one gathering generic over the output (``tensor.extract``)   O(output)
scatter (rows)         sort of the row keys, sequential fold per row, pull         O(b log b + upd + out)
map_store              the same, each source element an entry (its region's row)   O(s log s + out)
scatter (window)       one pulling generic over (output, updates)                  O(out x upd)
winograd.*             constant-matrix generics (F(6, 3))                          O(64) / tile
fft                    one butterfly generic per stage (``linalg_ext/fft.py``)      O(n)/stage
(de)quantize_affine    one elementwise generic with the op's indexing maps          O(output)
=====================  ==========================================================  ===========

Example::

    %r:2 = iree_linalg_ext.arg_compare dimension(0) ins(%x : tensor<5xf32>)
             outs(%v, %i : tensor<f32>, tensor<i32>) { ^bb0(%a: f32, %b: f32): ... }
    // ->
    %r:2 = linalg.generic {iterator_types = ["reduction"]} ins(%x) outs(%v, %i) {
      ^bb0(%a: f32, %best: f32, %idx: i32):  (region(%a, %best) selects value and index) }

``affine.linearize_index`` / ``delinearize_index`` (which map_load/map_store regions use)
become ``arith`` index arithmetic wherever they are. Ops of other families (``attention``) are
left for their own lowering. Ops on buffers (memref operands) are a located error: rt takes
them on tensors.

Source followed: IREE's ``iree-linalg-ext-*`` decompositions and the ``generateScalarImplementation``
of each op (``LinalgExt/IR/TilingInterfaceImpl.cpp``), which define the semantics kept here.
"""
import dataclasses

from xdsl.dialects.builtin import TensorType
from xdsl.rewriter import Rewriter

from rt.compiler.dialects import _linalg_ext_fft as ext_fft
from rt.compiler.dialects import _linalg_ext_ops as ext
from rt.compiler.dialects import _linalg_ext_quant as quant
from rt.compiler.dialects import affine
from rt.compiler.frontend.diagnostics import error_at_op
from rt.compiler.helpers.linalg_ext import builders, fft, indexed, quantize, rows, winograd
from rt.compiler.helpers.stablehlo.elementwise import OpSink
from rt.compiler.op_handlers import OpHandlers, handles
from rt.compiler.passes.base import Pass


@dataclasses.dataclass(frozen=True)
class DecomposeLinalgExtPass(Pass):
    """Replace every sort/topk/scan/arg_compare/gather/scatter/map_load/map_store/winograd/fft/
    (de)quantize_affine op."""

    name = "rt-decompose-linalg-ext"
    handler = OpHandlers()

    def run(self, module, ctx):
        # the index ops last: the linalg_ext regions that hold them are inlined first
        ext_ops = ext.OPS + ext_fft.OPS + quant.OPS
        for family in (ext_ops, (affine.LinearizeIndexOp, affine.DelinearizeIndexOp)):
            for op in [o for o in module.walk() if isinstance(o, family) and self.handler(o) is not None]:
                if isinstance(op, ext_ops) and not all(isinstance(v.type, TensorType) for v in op.outputs):
                    raise error_at_op(op, f"'{op.name}' on buffers is not supported by rt; use tensor operands")
                b = OpSink(op.location)
                results = self.handler(op)(op, b)
                Rewriter.replace_op(op, b.ops, list(results))

    @handles(ext.SortOp)
    def _sort(self, op, b):
        return rows.sort(b, op)

    @handles(ext.TopkOp, ext.TopkV2Op)
    def _topk(self, op, b):
        return rows.topk(b, op)

    @handles(ext.ScanOp)
    def _scan(self, op, b):
        return rows.scan(b, op)

    @handles(ext.ArgCompareOp)
    def _arg_compare(self, op, b):
        return rows.arg_compare(b, op)

    @handles(ext.GatherOp)
    def _gather(self, op, b):
        return indexed.gather(b, op)

    @handles(ext.ScatterOp)
    def _scatter(self, op, b):
        return indexed.scatter(b, op)

    @handles(ext.MapLoadOp)
    def _map_load(self, op, b):
        return indexed.map_load(b, op)

    @handles(ext.MapStoreOp)
    def _map_store(self, op, b):
        return indexed.map_store(b, op)

    @handles(affine.LinearizeIndexOp)
    def _linearize(self, op, b):
        return builders.linearize(b, op)

    @handles(affine.DelinearizeIndexOp)
    def _delinearize(self, op, b):
        return builders.delinearize(b, op)

    @handles(ext.WinogradInputTransformOp, ext.WinogradFilterTransformOp, ext.WinogradOutputTransformOp)
    def _winograd(self, op, b):
        return winograd.transform(b, op)

    @handles(ext_fft.FftOp)
    def _fft(self, op, b):
        return fft.fft_stage(b, op)

    @handles(quant.QuantizeAffineOp)
    def _quantize(self, op, b):
        return quantize.quantize(b, op)

    @handles(quant.DequantizeAffineOp)
    def _dequantize(self, op, b):
        return quantize.dequantize(b, op)
