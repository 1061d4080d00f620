"""The programs ``rt calibrate`` times: one module, one function per dispatch class and size.

Each function does one kind of work on static shapes (so the compiler records each matmul's and
conv's flops, as in any static program): ``mm_MxKxN`` a matmul (square ones, and skinny ones
whose weight matrix outweighs their arithmetic), ``conv_H`` a 3x3 conv over
1xHxHx16 to 16 channels, ``ew_N`` an elementwise ``exp(x) + x`` over N f32, ``red_R`` the row
sums of an Rx256 matrix. The dispatches the compiler forms from them (matmuls, encodings,
fused elementwise ops, reductions) each feed the class their export name gives
(rt.runtime.sim.dispatch_classes).

The matmul shapes span the small and skinny ones programs split across ranks run (rows 16-128,
a few hundred columns), so the class's flop and byte terms are both pinned down; none is a
shape of benchmarks/sim_accuracy_programs.py.

``collective_module(ranks, sizes)`` is the program the links and the host's call cost are
measured with (in-process ranks and ``mpiexec`` processes alike): ``@nop`` (one 4-element
dispatch: a call's host work and one queue round trip, nothing else), per size S ``@ar_S``
(one all_reduce of S bytes of the call's argument, as a program's first collective reads
its input) and ``@chain`` (``CHAIN`` rounds of a row sum of a 64x256 matrix and the matrix
minus it: a chain of small dependent dispatches in one queue operation, whose gaps are the
executor's time between dispatches, rt.runtime.sim.host_costs ``dispatch_us``).
"""
import numpy as np

SIZES = {"quick": {"mm": ((32, 32, 32), (64, 64, 64), (128, 128, 128), (16, 256, 256), (64, 256, 1024)),
                   "conv": (10, 18), "ew": (4096, 65536, 262144), "red": (64, 512, 2048)},
         "full": {"mm": ((48, 48, 48), (96, 96, 96), (128, 128, 128), (192, 192, 192), (256, 256, 256),
                         (384, 384, 384), (16, 256, 256), (32, 384, 768), (32, 768, 256), (32, 640, 384),
                         (48, 320, 192), (64, 192, 384), (64, 256, 1024), (96, 384, 160),
                         (128, 1024, 256)),
                  "conv": (10, 18, 34), "ew": (16384, 131072, 524288, 1048576), "red": (128, 1024, 4096)}}
COPY_SIZES = {"quick": (1 << 14, 1 << 18, 1 << 20), "full": (1 << 14, 1 << 18, 1 << 20, 1 << 22)}
_ID = "affine_map<(i) -> (i)>"


def _matmul(m, k, n):
    a, b, t = f"tensor<{m}x{k}xf32>", f"tensor<{k}x{n}xf32>", f"tensor<{m}x{n}xf32>"
    return (f"func.func @mm_{m}x{k}x{n}(%a: {a}, %b: {b}) -> {t} {{\n"
            f"  %z = arith.constant 0.0 : f32\n  %e = tensor.empty() : {t}\n"
            f"  %f = linalg.fill ins(%z : f32) outs(%e : {t}) -> {t}\n"
            f"  %m = linalg.matmul ins(%a, %b : {a}, {b}) outs(%f : {t}) -> {t}\n"
            f"  return %m : {t}\n}}\n")


def _conv(h):
    x, w, o = f"tensor<1x{h}x{h}x16xf32>", "tensor<3x3x16x16xf32>", f"tensor<1x{h - 2}x{h - 2}x16xf32>"
    return (f"func.func @conv_{h}(%x: {x}, %w: {w}) -> {o} {{\n"
            f"  %z = arith.constant 0.0 : f32\n  %e = tensor.empty() : {o}\n"
            f"  %f = linalg.fill ins(%z : f32) outs(%e : {o}) -> {o}\n"
            f"  %r = linalg.conv_2d_nhwc_hwcf {{dilations = dense<1> : tensor<2xi64>, strides = "
            f"dense<1> : tensor<2xi64>}} ins(%x, %w : {x}, {w}) outs(%f : {o}) -> {o}\n"
            f"  return %r : {o}\n}}\n")


def _elementwise(n):
    t = f"tensor<{n}xf32>"
    return (f"func.func @ew_{n}(%x: {t}) -> {t} {{\n  %e = tensor.empty() : {t}\n"
            f"  %r = linalg.generic {{indexing_maps = [{_ID}, {_ID}], iterator_types = [\"parallel\"]}}"
            f" ins(%x : {t}) outs(%e : {t}) {{\n  ^bb0(%v: f32, %o: f32):\n"
            f"    %p = math.exp %v : f32\n    %s = arith.addf %p, %v : f32\n    linalg.yield %s : f32\n"
            f"  }} -> {t}\n  return %r : {t}\n}}\n")


def _reduction(r):
    t, o = f"tensor<{r}x256xf32>", f"tensor<{r}xf32>"
    return (f"func.func @red_{r}(%x: {t}) -> {o} {{\n"
            f"  %z = arith.constant 0.0 : f32\n  %e = tensor.empty() : {o}\n"
            f"  %f = linalg.fill ins(%z : f32) outs(%e : {o}) -> {o}\n"
            f"  %r = linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i, j)>, "
            f"affine_map<(i, j) -> (i)>], iterator_types = [\"parallel\", \"reduction\"]}}"
            f" ins(%x : {t}) outs(%f : {o}) {{\n  ^bb0(%v: f32, %a: f32):\n"
            f"    %s = arith.addf %v, %a : f32\n    linalg.yield %s : f32\n"
            f"  }} -> {o}\n  return %r : {o}\n}}\n")


def module_text(mode):
    """The MLIR module of every calibration function for ``mode`` ("quick" or "full")."""
    sizes = SIZES[mode]
    parts = ([_matmul(*shape) for shape in sizes["mm"]] + [_conv(h) for h in sizes["conv"]]
             + [_elementwise(n) for n in sizes["ew"]] + [_reduction(r) for r in sizes["red"]])
    return "\n".join(parts)


def calls(mode):
    """``[(function name, [numpy inputs])]`` of every calibration function."""
    rng = np.random.default_rng(0)
    sizes = SIZES[mode]

    def arr(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    out = [(f"mm_{m}x{k}x{n}", [arr(m, k), arr(k, n)]) for m, k, n in sizes["mm"]]
    out += [(f"conv_{h}", [arr(1, h, h, 16), arr(3, 3, 16, 16)]) for h in sizes["conv"]]
    out += [(f"ew_{n}", [arr(n)]) for n in sizes["ew"]]
    out += [(f"red_{r}", [arr(r, 256)]) for r in sizes["red"]]
    return out


CHAIN = 8


def _chain(rounds, rows=64):
    t, v = f"tensor<{rows}x256xf32>", f"tensor<{rows}xf32>"
    lines, x = [], "%x"
    for i in range(rounds):
        lines += [f"  %e{i} = tensor.empty() : {v}",
                  f"  %f{i} = linalg.fill ins(%z : f32) outs(%e{i} : {v}) -> {v}",
                  f"  %s{i} = linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i, j)>, "
                  f"affine_map<(i, j) -> (i)>], iterator_types = [\"parallel\", \"reduction\"]}}"
                  f" ins({x} : {t}) outs(%f{i} : {v}) {{\n  ^bb0(%a: f32, %b: f32):\n"
                  f"    %c = arith.addf %a, %b : f32\n    linalg.yield %c : f32\n  }} -> {v}",
                  f"  %o{i} = tensor.empty() : {t}",
                  f"  %x{i} = linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i, j)>, "
                  f"affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = "
                  f"[\"parallel\", \"parallel\"]}} ins({x}, %s{i} : {t}, {v}) outs(%o{i} : {t}) {{\n"
                  f"  ^bb0(%a: f32, %b: f32, %o: f32):\n    %m = arith.mulf %b, %k : f32\n"
                  f"    %d = arith.subf %a, %m : f32\n    linalg.yield %d : f32\n  }} -> {t}"]
        x = f"%x{i}"
    return (f"func.func @chain(%x: {t}) -> {t} {{\n  %z = arith.constant 0.0 : f32\n"
            f"  %k = arith.constant 0.00390625 : f32\n" + "\n".join(lines) + f"\n  return {x} : {t}\n}}")


def collective_module(ranks, sizes):
    """The module of ``@nop`` and ``@ar_S`` per size S (bytes, a multiple of 4) over a grid of
    ``ranks`` (see the module docstring)."""
    parts = [f"shard.grid @g(shape = {ranks})",
             f"func.func @nop(%x: tensor<4xf32>) -> tensor<4xf32> {{\n  %e = tensor.empty() : tensor<4xf32>\n"
             f"  %r = linalg.generic {{indexing_maps = [{_ID}, {_ID}], iterator_types = [\"parallel\"]}}"
             f" ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {{\n  ^bb0(%v: f32, %o: f32):\n"
             f"    %s = arith.addf %v, %v : f32\n    linalg.yield %s : f32\n  }} -> tensor<4xf32>\n"
             f"  return %r : tensor<4xf32>\n}}"]
    parts.append(_chain(CHAIN))
    for size in sizes:
        t = f"tensor<{size // 4}xf32>"
        parts.append(f"func.func @ar_{size}(%x: {t}) -> {t} {{\n  %r = shard.all_reduce %x on @g "
                     f"grid_axes = [0] : {t} -> {t}\n  return %r : {t}\n}}")
    return "\n".join(parts) + "\n"
