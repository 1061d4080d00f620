"""Kernel IR: the contract between dispatch lowering and the per-target code generators.

The hal phase lowers the body of every dispatch (linalg on tensors, read from and written to
bindings) into a ``Kernel``: a short sequence of loop-nest operations over buffers, all
distributed over the same workgroup grid. ``compiler/codegen/llvm_cpu`` turns a Kernel into
LLVM IR (then a relocatable object); ``compiler/codegen/vmvx`` turns it into VM bytecode
calling the vmvx microkernels. Keeping this layer small, explicit and target-neutral is what
lets the two backends be tested against each other (vmvx is the reference).

It plays the role of IREE's post-bufferization linalg-on-memrefs inside
``hal.executable.variant`` (compiler/src/iree/compiler/Codegen): every operand is a strided
view of a binding, every loop bound is a static int or a push constant, and the workgroup grid
is a tiling of the root operation's parallel loops.

Conventions
-----------
* ``Size``: an ``int`` (static), ``Constant(ordinal)`` -- the value of 32-bit push constant
  ``ordinal`` of the dispatch, read at run time (dynamic dims, offsets) -- or an ``Expr`` of
  sizes (e.g. ``ceildiv(Constant(0), 16)`` for a packed dim).
* Element types are MLIR scalar type names: ``f32 f64 i1 i8 i16 i32 i64``, the narrow floats
  ``f16 bf16 f8E5M2 f8E4M3FN f8E5M2FNUZ f8E4M3FNUZ f8E8M0FNU f4E2M1FN`` and the sub-byte
  integers ``i2 i4``. i1 is stored as one byte. Narrow floats are storage types: loaded as f32 and
  computed in f32, rounded to their type (nearest even) as IREE's llvm-cpu rounds them:
  f16 and the f8 types after every op that yields one (``ROUNDED_EVERY_OP``: LLVM's half
  arithmetic; IREE's convert-unsupported-float-arith); bf16 only where it is stored
  (``ROUNDED_ON_STORE``): when a body yields it into an output (every step of a reduction
  included: the accumulator is the output's type), at ``arith.truncf`` and ``arith.bitcast``,
  values in between staying f32, as IREE's bf16-to-f32 conversion computes them (its
  extf/truncf pairs carry ``contract`` and fold away) and the seed's bf16 legalizer +
  eliminator do. Sub-byte types (i2, i4 and the 4-bit float f4E2M1FN, ``PACKED``)
  are packed (two i4 / four i2 per byte, element 0 in the low bits, as IREE packs them): a
  view's element ``k`` is at bit ``k * bits`` of its binding.
* Views are row-major over their binding: element (i0..in) lives at byte
  ``offset + sum(i_k * strides[k]) * sizeof(element)``; ``strides=None`` means the contiguous
  row-major strides of ``shape``.
* Loop dims are numbered ``d0..d(n-1)`` in the op's iteration domain, like linalg.
* Buffer ordinals: a View's ``binding`` is a dispatch binding ``0..binding_count-1``, or one of
  the kernel's own buffers numbered after them: ``Kernel.rodata_binding(i)`` for constant data
  compiled into the executable (``Kernel.rodata``, read-only) and ``Kernel.scratch_binding(j)``
  for per-workgroup temporaries (``Kernel.scratch``).
* Body scalars may read push constants: ScalarOp ``hal.interface.constant.load`` (attr
  ``ordinal``, result ``i32``), as IREE dispatch bodies do for dynamic scalar operands.
* A ScalarOp's operation is an ``Opcode``, Kernel IR's own scalar instruction set (spelled and
  defined like the MLIR ops the lowering reads, but not MLIR ops: backends never see xDSL).
  Codegen finds an op's code by its opcode (tables keyed by ``Opcode`` members), so grepping
  ``Opcode.ADDF`` finds the lowering's entry and both backends' code for ``arith.addf``.
"""
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Union

from rt.runtime.errors import CompileError


@dataclass(frozen=True)
class Constant:
    """A 32-bit push constant of the dispatch (zero-extended to index when used as a size)."""

    ordinal: int


@dataclass(frozen=True)
class Expr:
    """Index arithmetic on sizes, for bounds derived inside the dispatch from push constants.

    op: ``add sub mul floordiv ceildiv rem min max`` (unsigned index semantics);
    operands: two Sizes.
    """

    op: str
    operands: tuple


Size = Union[int, Constant, Expr]


@dataclass(frozen=True)
class AffineExpr:
    """``sum(coeff * d_dim for dim, coeff in terms) + constant``: enough for linalg's
    projected permutations, broadcasts and the strided/dilated windows of convs and pooling."""

    terms: tuple = ()  # ((dim, coeff), ...)
    constant: int = 0

    @staticmethod
    def dim(d, coeff=1):
        return AffineExpr(((d, coeff),), 0)


@dataclass(frozen=True)
class View:
    """A strided view of one binding.

    binding: binding ordinal of the dispatch; element_type: scalar type name; shape: Size per
    dim (rank 0 allowed); offset: element offset of element (0, .., 0) inside the binding;
    strides: element strides per dim or None for contiguous row-major. extent: ``(offset,
    count)`` Sizes in elements of the tensor the view lies in -- the range its
    ``hal.interface.binding.subspan`` declares inside the binding (one binding may hold many
    tensors: a transient slab) -- or None (the whole buffer). Not part of equality: two views
    of the same elements are the same view. vmvx checks every access against it.
    """

    binding: int
    element_type: str
    shape: tuple
    offset: Size = 0
    strides: tuple = None
    extent: tuple = field(default=None, compare=False)


class Opcode(StrEnum):
    """The operation of a ScalarOp: Kernel IR's own scalar instruction set, defined here once.

    Backends route a ScalarOp by its Opcode (``OP_TABLE[s.opcode]``, ``s.opcode is Opcode.ADDF``),
    never by MLIR op classes: Kernel IR does not depend on xDSL, and kernels are built directly
    (tests, benchmarks, backend fast paths) as well as lowered from MLIR. Each opcode is spelled
    like the MLIR op it stands for and has that op's semantics (MLIR's arith and math dialects,
    ``linalg.index``, ``tensor.extract``, IREE's ``hal.interface.constant.load``), so a kernel
    reads like the linalg body it came from and messages name the op the user wrote; the one
    place MLIR op classes meet opcodes is the lowering's table (``lowering/scalars.py``).
    """

    CONSTANT = "arith.constant"
    INDEX = "linalg.index"
    EXTRACT = "tensor.extract"
    CONSTANT_LOAD = "hal.interface.constant.load"
    ASSERT = "cf.assert"
    SELECT = "arith.select"
    CMPF = "arith.cmpf"
    CMPI = "arith.cmpi"
    # float arithmetic
    ADDF = "arith.addf"
    SUBF = "arith.subf"
    MULF = "arith.mulf"
    DIVF = "arith.divf"
    REMF = "arith.remf"
    NEGF = "arith.negf"
    MAXIMUMF = "arith.maximumf"
    MINIMUMF = "arith.minimumf"
    MAXNUMF = "arith.maxnumf"
    MINNUMF = "arith.minnumf"
    SCALING_EXTF = "arith.scaling_extf"
    SCALING_TRUNCF = "arith.scaling_truncf"
    # integer arithmetic
    ADDI = "arith.addi"
    SUBI = "arith.subi"
    MULI = "arith.muli"
    DIVSI = "arith.divsi"
    DIVUI = "arith.divui"
    REMSI = "arith.remsi"
    REMUI = "arith.remui"
    FLOORDIVSI = "arith.floordivsi"
    CEILDIVSI = "arith.ceildivsi"
    CEILDIVUI = "arith.ceildivui"
    MAXSI = "arith.maxsi"
    MINSI = "arith.minsi"
    MAXUI = "arith.maxui"
    MINUI = "arith.minui"
    ANDI = "arith.andi"
    ORI = "arith.ori"
    XORI = "arith.xori"
    SHLI = "arith.shli"
    SHRSI = "arith.shrsi"
    SHRUI = "arith.shrui"
    # casts
    EXTF = "arith.extf"
    TRUNCF = "arith.truncf"
    EXTSI = "arith.extsi"
    EXTUI = "arith.extui"
    TRUNCI = "arith.trunci"
    INDEX_CAST = "arith.index_cast"
    INDEX_CASTUI = "arith.index_castui"
    SITOFP = "arith.sitofp"
    UITOFP = "arith.uitofp"
    FPTOSI = "arith.fptosi"
    FPTOUI = "arith.fptoui"
    BITCAST = "arith.bitcast"
    # math
    ABSF = "math.absf"
    ABSI = "math.absi"
    FMA = "math.fma"
    POWF = "math.powf"
    ATAN2 = "math.atan2"
    COPYSIGN = "math.copysign"
    SQRT = "math.sqrt"
    RSQRT = "math.rsqrt"
    CBRT = "math.cbrt"
    EXP = "math.exp"
    EXP2 = "math.exp2"
    EXPM1 = "math.expm1"
    LOG = "math.log"
    LOG2 = "math.log2"
    LOG10 = "math.log10"
    LOG1P = "math.log1p"
    FLOOR = "math.floor"
    CEIL = "math.ceil"
    ROUND = "math.round"
    ROUNDEVEN = "math.roundeven"
    TRUNC = "math.trunc"
    SIN = "math.sin"
    COS = "math.cos"
    TAN = "math.tan"
    ASIN = "math.asin"
    ACOS = "math.acos"
    ATAN = "math.atan"
    SINH = "math.sinh"
    COSH = "math.cosh"
    TANH = "math.tanh"
    ASINH = "math.asinh"
    ACOSH = "math.acosh"
    ATANH = "math.atanh"
    ERF = "math.erf"
    ERFC = "math.erfc"
    CTPOP = "math.ctpop"
    CTLZ = "math.ctlz"
    CTTZ = "math.cttz"
    ISNAN = "math.isnan"
    ISINF = "math.isinf"
    ISFINITE = "math.isfinite"


@dataclass(frozen=True)
class ScalarOp:
    """One SSA scalar operation of a loop body.

    opcode: the op's ``Opcode`` (``Opcode.ADDF``; its spelling ``"arith.addf"`` is accepted and
    converted, anything else is a CompileError naming it); operands: value ids; result_type:
    scalar type name;
    attrs: op attributes as plain Python values (``predicate`` as its MLIR keyword, ``value``
    for constants, ``dim`` for linalg.index, ``ordinal`` for a push constant, ``message`` for
    ``cf.assert``, ``fastmath`` ignored).

    ``cf.assert`` checks its i1 operand: where it is false the dispatch fails with a
    DeviceError carrying ``message`` (the assert's ``file:line:col`` and its text); its value
    is its operand.

    ``tensor.extract`` reads one element of a whole View at data-dependent indices (a gather,
    as a ``linalg.generic`` body reading a captured tensor): attr ``view`` is the View (any
    binding or rodata; never a tiled scratch), operands are one ``index`` value per view dim.
    Indices are clamped into ``[0, dim - 1]`` (MLIR leaves an out-of-range extract undefined;
    rt never reads outside the view).
    """

    opcode: Opcode
    operands: tuple
    result_type: str
    attrs: tuple = ()  # sorted ((key, value), ...) so the op stays hashable

    def __post_init__(self):
        if type(self.opcode) is not Opcode:
            try:
                object.__setattr__(self, "opcode", Opcode(self.opcode))
            except ValueError:
                raise CompileError(f"Kernel IR scalar op {self.opcode!r} is not an Opcode; expected one of "
                                   f"{', '.join(Opcode)}") from None

    def attr(self, key, default=None):
        return dict(self.attrs).get(key, default)


@dataclass(frozen=True)
class Generic:
    """A linalg.generic over views: the workhorse of every kernel.

    domain: Size per loop dim; iterator_types: "parallel" | "reduction" per loop dim;
    inputs / outputs: Views; indexing_maps: for each input then each output, a tuple of
    AffineExpr (one per view dim) over the loop dims; body: ScalarOps whose value ids are
    numbered after the block arguments (ids 0..len(inputs)+len(outputs)-1 are the elements of
    inputs then outputs, like linalg's block arguments); yields: one value id per output.
    kind: a hint the backends may use for a fast path -- "elementwise", "fill", "copy",
    "matmul" (d0=m, d1=n, d2=k, C[m,n] += A[m,k]*B[k,n]), "batch_matmul", "matvec",
    "mmt4d" / "batch_mmt4d" (packed contractions, see Mmt4d), "reduction", "conv",
    "packed_conv" (a conv over a data-tiled filter: lowering/packed_conv.py), "pooling",
    "transpose", "broadcast" or "generic". Backends must be
    correct for any Generic regardless of the hint.

    bounds: None, or -- on a ``"batch_mmt4d"`` Generic only -- ``(M, N)`` Sizes when views are
    per-batch row-major matrices viewed in place (``Mmt4d.bounds``, one batch slice at a time:
    strided views of ``B[b, K, N]`` and ``C[b, M, N]``, lowering/fold_relayouts.py). Such a
    Generic and the zero fill of its strided OUT right before it reach only backends naming
    ``"in_place_mmt4d"`` in ``kernel_ir_features``, which must run them with the tile kernel
    (the views reach past the matrices, which plain loops would read and write).
    """

    domain: tuple
    iterator_types: tuple
    inputs: tuple
    outputs: tuple
    indexing_maps: tuple
    body: tuple
    yields: tuple
    kind: str = "generic"
    bounds: tuple = None

    @property
    def gathers(self):
        """The Views the body reads through ``tensor.extract`` (in body order)."""
        return tuple(s.attr("view") for s in self.body if s.opcode is Opcode.EXTRACT)


@dataclass(frozen=True)
class Mmt4d:
    """``OUT[m1,n1,m0,n0] (+)= sum_{k1,k0} LHS[m1,k1,m0,k0] * RHS[n1,k1,n0,k0]`` (linalg.mmt4d).

    lhs/rhs/out: 4-D views; element types f32xf32->f32, i8xi8->i32, f16xf16->f32 or
    f16xf16->f16 (inputs widened to OUT's type, products accumulated in it; f16 OUT is
    storage only, as everywhere in Kernel IR); accumulate: False overwrites OUT (the fill is
    folded in). Loop dims: d0=m1, d1=n1 (parallel), k1 reduced. Narrow contractions keep
    this form with unit dims: a matvec is ``N1 = N0 = 1`` (RHS ``[1, K1, 1, K0]``, OUT
    ``[M1, 1, M0, 1]``), a vecmat ``M1 = M0 = 1``.

    bounds: None, or ``(M, N)`` Sizes when some views are row-major matrices viewed in place
    (strided views of ``A[M, K]``, ``B[K, N]``, ``C[M, N]`` with K0 = 1 and no padding, see
    lowering/fold_relayouts.py): elements of LHS rows ``m1*M0+m0 >= M`` and RHS columns
    ``n1*N0+n0 >= N`` are read as zero (never loaded: the views reach past the matrices there),
    and a strided OUT is written only where both are in range (a contiguous, packed OUT gets
    whole tiles, its padding zeros). Only f32 operands.

    Batched data tiling (linalg.batch_mmt4d, from batch_matmul / batch_matvec) reaches the
    backends as a Generic with kind hint ``"batch_mmt4d"``: domain (B, M1, N1, K1, M0, N0, K0)
    in linalg's loop order d0..d6, inputs LHS ``[B, M1, K1, M0, K0]`` (d0, d1, d3, d4, d6) and
    RHS ``[B, N1, K1, N0, K0]`` (d0, d2, d3, d5, d6), output OUT ``[B, M1, N1, M0, N0]``
    (d0, d1, d2, d4, d5), multiply-add body, preceded by the fill Generic of OUT. A backend may
    run it as a loop over d0 of this op's kernel on the 4-D slices ``[b]`` of each view (with
    the Generic's ``bounds`` per slice when it has them).
    """

    lhs: View
    rhs: View
    out: View
    accumulate: bool = False
    bounds: tuple = None


def mmt4d_body(lhs_type, rhs_type, out_type):
    """The ScalarOps of one Mmt4d step ``out += lhs * rhs`` over block arguments (lhs, rhs, out):
    operands converted to the compute type (OUT's; f32 for an f16 / bf16 OUT) with extf/truncf
    or extsi/trunci, a multiply and an add; an f16 / bf16 OUT rounds the sum once per step
    (truncf), as IREE's mmt4d ukernels compute. The last op's value is the yield."""
    compute = "f32" if out_type in ("f16", "bf16") else out_type
    floating = is_float(out_type)
    body, values = [], [0, 1, 2]
    for i, t in enumerate((lhs_type, rhs_type, out_type)):
        if t != compute:
            wider = element_bits(compute) > element_bits(t)
            opcode = (Opcode.EXTF if wider else Opcode.TRUNCF) if floating and is_float(t) else \
                (Opcode.SITOFP if floating else Opcode.FPTOSI) if floating != is_float(t) else \
                (Opcode.EXTSI if wider else Opcode.TRUNCI)
            body.append(ScalarOp(opcode, (i,), compute))
            values[i] = 2 + len(body)
    body.append(ScalarOp(Opcode.MULF if floating else Opcode.MULI, (values[0], values[1]), compute))
    body.append(ScalarOp(Opcode.ADDF if floating else Opcode.ADDI, (values[2], 2 + len(body)), compute))
    if compute != out_type:
        body.append(ScalarOp(Opcode.TRUNCF, (2 + len(body),), out_type))
    return tuple(body)


@dataclass(frozen=True)
class Pack:
    """linalg.pack (tensor.pack): tile a 2-D source into ``[outer..., inner tiles...]``.

    inner_dims_pos / inner_tiles / outer_dims_perm follow IREE's tensor.pack; padding_value is
    used for the partial tiles at the edges (None: the source must divide evenly).
    """

    source: View
    dest: View
    inner_dims_pos: tuple
    inner_tiles: tuple
    outer_dims_perm: tuple = None
    padding_value: float = None


@dataclass(frozen=True)
class Unpack:
    """linalg.unpack (tensor.unpack): the inverse of Pack, dropping the padding."""

    source: View
    dest: View
    inner_dims_pos: tuple
    inner_tiles: tuple
    outer_dims_perm: tuple = None


@dataclass(frozen=True)
class Attention:
    """``OUT[b,m,n] = sum_j softmax_j(scale * sum_k Q[b,m,k] K[b,j,k]) V[b,j,n]``: one attention
    head per batch entry, in one pass over blocks of keys (iree_linalg_ext.attention with an
    identity score region; lowering/attention.py). With ``mask`` ``[B, M, K2]`` (i1: false
    drops the key, -inf; float: added to the scaled score) the scores are masked first.

    q ``[B, M, K1]``, k ``[B, K2, K1]``, v ``[B, K2, N]``, out ``[B, M, N]``: views of any
    float type, computed in f32 (strides may be 0: a broadcast mask); scale: a Python float.
    Loop dims: d0 = B, d1 = M (parallel,
    distributed), d2 = N, d3 = K1, d4 = K2. Only backends naming ``"attention"`` in
    ``kernel_ir_features`` receive it; the others get the same op as Generics.
    """

    q: View
    k: View
    v: View
    out: View
    scale: float
    mask: View = None


@dataclass(frozen=True)
class Distribution:
    """How the workgroup grid tiles the root op's parallel loops.

    dims: up to three loop dims of the root op, innermost first (x, y, z); tiles: tile size per
    entry of ``dims``. Loop dims of the non-Generic ops: Mmt4d d0=M1, d1=N1, d2=K1, d3=M0,
    d4=N0, d5=K0; Pack iterates the packed dest's dims; Unpack the packed source's dims
    (outer tile dims first). Workgroup (x, y, z) covers loop range
    ``[id * tile, min((id + 1) * tile, domain))`` on each distributed dim; every op of the
    kernel is restricted to the same ranges through ``op_dims`` (for each op, the loop dim that
    plays each distributed dim, or None when that op is not split along it).
    The host computes ``workgroup_count[i] = ceildiv(domain[dims[i]], tiles[i])``.

    op_offsets (empty: all 0): per op, a Size per entry of ``dims``: the op's index ``i``
    along ``op_dims[op][a]`` plays root index ``i + offset`` (an op writing a shifted
    sub-view of the root's output, as the copies of tensor.pad / concat / insert_slice do), so
    its range is ``[lo - offset, hi - offset)`` clamped to ``[0, extent)`` of its own domain.

    extents (empty: take them from the last op whose op_dims equal ``dims``): the root's
    extent (Size) along each distributed dim, so ``workgroup_count[i] = ceildiv(extents[i],
    tiles[i])`` -- needed when shifted copies follow the root (their op_dims match too).
    """

    dims: tuple = ()
    tiles: tuple = ()
    op_dims: tuple = ()  # per op: tuple aligned with `dims`
    op_offsets: tuple = ()  # per op: tuple of Sizes aligned with `dims` (default all 0)
    extents: tuple = ()  # Size per entry of `dims`: the root's extent

    def offset(self, op_index, axis):
        """The Size offset of op ``op_index`` along distributed axis ``axis`` (0 if unset)."""
        return self.op_offsets[op_index][axis] if self.op_offsets else 0


@dataclass(frozen=True)
class Rodata:
    """Constant data compiled into the executable: a dense tensor constant of a dispatch body.

    element_type: scalar type name; data: the elements as a binding stores them
    (little-endian, row-major; i1 one byte, f16 its bits). Read-only, through Views on
    ``Kernel.rodata_binding(i)`` (like IREE's executable constant data / rodata).
    """

    element_type: str
    data: bytes


@dataclass(frozen=True)
class Scratch:
    """A temporary buffer private to each workgroup, for intermediates of a dispatch that
    cannot be computed in place (a row max read by a later broadcast, a padded conv input...).

    element_type; shape: Sizes of the whole logical tensor; tiled (empty: all None): per dim,
    the distributed axis (index into Distribution.dims) along which the workgroup only ever
    touches its own tile, or None. A backend allocates, per workgroup, the row-major array of
    ``extent_k = tiles[tiled[k]]`` (tiled dims; clamped to a static ``shape[k]``) or
    ``shape[k]`` elements and addresses logical element (i_k) at ``sum((i_k - lo_k) * stride_k)`` with ``lo_k = workgroup_id * tile`` on
    tiled dims and 0 elsewhere. Views on ``Kernel.scratch_binding(j)`` use the logical shape;
    when any dim is tiled they must be the whole buffer (offset 0, strides None) and every op
    touching it must index each tiled dim with exactly its distributed loop dim (offset 0).
    Contents are undefined at the start of each workgroup (IREE: workgroup-private
    ``memref.alloca`` after bufferization).
    """

    element_type: str
    shape: tuple
    tiled: tuple = ()

    def axis(self, k):
        """The distributed axis dim ``k`` is tiled along, or None."""
        return self.tiled[k] if self.tiled else None


@dataclass(frozen=True)
class Kernel:
    """One dispatch export: ops run in order inside each workgroup, over its tile.

    name: export symbol; binding_count; constant_count (32-bit push constants);
    binding_access: "ro" | "wo" | "rw" per binding; ops: Generic | Mmt4d | Pack | Unpack | Attention;
    distribution: the workgroup grid. Later ops may read what earlier ops wrote to an output
    binding within the same tile (in-place epilogues such as matmul -> bias add -> relu).
    rodata: Rodata buffers; scratch: Scratch buffers (see the buffer ordinals above).
    """

    name: str
    binding_count: int
    constant_count: int
    ops: tuple
    distribution: Distribution = field(default_factory=Distribution)
    binding_access: tuple = ()
    rodata: tuple = ()
    scratch: tuple = ()

    def rodata_binding(self, i):
        """The View binding ordinal of ``rodata[i]``."""
        return self.binding_count + i

    def scratch_binding(self, j):
        """The View binding ordinal of ``scratch[j]``."""
        return self.binding_count + len(self.rodata) + j

    def buffer(self, ordinal):
        """``("binding", ordinal)``, ``("rodata", i)`` or ``("scratch", j)`` for a View binding
        ordinal; ValueError when it names no buffer of this kernel."""
        if 0 <= ordinal < self.binding_count:
            return "binding", ordinal
        i = ordinal - self.binding_count
        if 0 <= i < len(self.rodata):
            return "rodata", i
        j = i - len(self.rodata)
        if 0 <= j < len(self.scratch):
            return "scratch", j
        raise ValueError(f"kernel '{self.name}' has no buffer {ordinal}: {self.binding_count} "
                         f"bindings, {len(self.rodata)} rodata, {len(self.scratch)} scratch")


def element_size(element_type):
    """Bytes per element of a scalar type name as stored in a binding (i1 takes a byte).

    ValueError for sub-byte types (they have no whole byte size; see :func:`element_bits`)."""
    bits = element_bits(element_type)
    if bits < 8:
        raise ValueError(f"element type {element_type} is packed {8 // bits} to a byte; it has "
                         "no byte size (address it by bits)")
    return bits // 8


def element_bits(element_type):
    """Bits per element as stored in a binding (i1: 8; i4: 4; i2: 2)."""
    try:
        return _ELEMENT_BITS[element_type]
    except KeyError:
        raise ValueError(f"unknown element type {element_type!r}; expected one of "
                         f"{', '.join(_ELEMENT_BITS)}") from None


#: Floats stored narrow and computed in f32 (see Conventions).
NARROW_FLOATS = ("f16", "bf16", "f8E5M2", "f8E4M3FN", "f8E5M2FNUZ", "f8E4M3FNUZ", "f8E8M0FNU", "f4E2M1FN")
#: Narrow floats rounded after every op that yields one / only where they are stored.
ROUNDED_EVERY_OP = ("f16", "f8E5M2", "f8E4M3FN", "f8E5M2FNUZ", "f8E4M3FNUZ", "f8E8M0FNU", "f4E2M1FN")
ROUNDED_ON_STORE = ("bf16",)


def is_float(element_type):
    """True for the floating-point type names (f32, f64 and the narrow floats)."""
    return element_type in ("f32", "f64") or element_type in NARROW_FLOATS


#: Integers packed several to a byte.
SUB_BYTE_INTS = ("i2", "i4")
#: Every type packed several to a byte (element k at bit k * bits of its binding).
PACKED = SUB_BYTE_INTS + ("f4E2M1FN",)

_ELEMENT_BITS = {"i1": 8, "i2": 2, "i4": 4, "i8": 8, "i16": 16, "i32": 32, "i64": 64, "f16": 16,
                 "bf16": 16, "f8E5M2": 8, "f8E4M3FN": 8, "f8E5M2FNUZ": 8, "f8E4M3FNUZ": 8,
                 "f8E8M0FNU": 8, "f4E2M1FN": 4, "f32": 32, "f64": 64}
