"""bf16, f8 and i4 on llvm-cpu against IREE 3.13 in the same process (benchmarks/iree_peer.py).

Cases (each compiled by rt and by iree-compile for the host CPU, data tiling on, local-task):

* ``matmul_bf16_f32``: 256x512 @ 512x256, bf16 inputs, f32 result (rt: bf16 mmt4d path);
* ``matmul_bf16_bf16``: the same with a bf16 result (the accumulator is bf16: rounded every step);
* ``truncf_f8``: 1M f32 -> f8E4M3FN (round to nearest even, NaN on overflow);
* ``dequant_i4``: 1M packed i4 (a constant) -> f32 (extsi, sitofp, a scale); IREE's Python
  bindings take no int4 arrays, so the input is a module constant on both sides.

Prints one row per case: rt and IREE median ms per call, their ratio, and whether the results
agree (bit for bit where the types are exact). Usage::

    python benchmarks/small_types.py [--rounds=5]
"""
import argparse
import os
import sys

import ml_dtypes
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import rt  # noqa: E402
from iree_peer import compare, iree_module, load_iree, machine  # noqa: E402

M, K, N = 256, 512, 256
COUNT = 1 << 20

SOURCE = f"""
func.func @matmul_bf16_f32(%a: tensor<{M}x{K}xbf16>, %b: tensor<{K}x{N}xbf16>) -> tensor<{M}x{N}xf32> {{
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{M}x{N}xf32>
  %i = linalg.fill ins(%z : f32) outs(%e : tensor<{M}x{N}xf32>) -> tensor<{M}x{N}xf32>
  %c = linalg.matmul ins(%a, %b : tensor<{M}x{K}xbf16>, tensor<{K}x{N}xbf16>) outs(%i : tensor<{M}x{N}xf32>) -> tensor<{M}x{N}xf32>
  return %c : tensor<{M}x{N}xf32>
}}
func.func @matmul_bf16_bf16(%a: tensor<{M}x{K}xbf16>, %b: tensor<{K}x{N}xbf16>) -> tensor<{M}x{N}xbf16> {{
  %z = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<{M}x{N}xbf16>
  %i = linalg.fill ins(%z : bf16) outs(%e : tensor<{M}x{N}xbf16>) -> tensor<{M}x{N}xbf16>
  %c = linalg.matmul ins(%a, %b : tensor<{M}x{K}xbf16>, tensor<{K}x{N}xbf16>) outs(%i : tensor<{M}x{N}xbf16>) -> tensor<{M}x{N}xbf16>
  return %c : tensor<{M}x{N}xbf16>
}}
func.func @truncf_f8(%x: tensor<{COUNT}xf32>) -> tensor<{COUNT}xf8E4M3FN> {{
  %t = arith.truncf %x : tensor<{COUNT}xf32> to tensor<{COUNT}xf8E4M3FN>
  return %t : tensor<{COUNT}xf8E4M3FN>
}}
func.func @dequant_i4() -> tensor<{COUNT}xf32> {{
  %x = util.unfoldable_constant dense<-3> : tensor<{COUNT}xi4>
  %e = tensor.empty() : tensor<{COUNT}xf32>
  %r = linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}}
      ins(%x : tensor<{COUNT}xi4>) outs(%e : tensor<{COUNT}xf32>) {{
  ^bb0(%v: i4, %o: f32):
    %w = arith.extsi %v : i4 to i32
    %f = arith.sitofp %w : i32 to f32
    %s = arith.constant 0.125 : f32
    %m = arith.mulf %f, %s : f32
    linalg.yield %m : f32
  }} -> tensor<{COUNT}xf32>
  return %r : tensor<{COUNT}xf32>
}}
"""


def _inputs():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((M, K)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((K, N)).astype(ml_dtypes.bfloat16)
    x = (rng.standard_normal(COUNT) * 100).astype(np.float32)
    return {"matmul_bf16_f32": (a, b), "matmul_bf16_bf16": (a, b), "truncf_f8": (x,), "dequant_i4": ()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    ic, ireert = load_iree()
    mine = rt.load(rt.compile(SOURCE, devices=["llvm-cpu"]), devices=["local-task://llvm-cpu"])
    vmfb = ic.compile_str(SOURCE, target_backends=["llvm-cpu"],
                          extra_args=["--iree-llvmcpu-target-cpu=host", "--iree-opt-data-tiling"])
    peer, _keep = iree_module(ireert, vmfb)
    print(f"# {machine()}")
    print("| case | rt ms | IREE 3.13 ms | rt/IREE | results |")
    print("|---|---|---|---|---|")
    for name, inputs in _inputs().items():
        ours, theirs = getattr(mine, name), getattr(peer, name)
        r, p = np.asarray(ours(*inputs)), np.asarray(theirs(*inputs))
        if r.dtype.kind == "V" or p.dtype.kind == "V":
            same = np.array_equal(r.view(np.uint8), p.view(np.uint8))
            agree = "bit-identical" if same else f"{np.mean(r.view(np.uint8) != p.view(np.uint8)):.2%} bytes differ"
        else:
            agree = f"max |diff| {np.max(np.abs(r.astype(np.float64) - p.astype(np.float64))):.3g}"
        t = compare({"rt": lambda: ours(*inputs), "iree": lambda: theirs(*inputs)}, rounds=args.rounds)
        print(f"| {name} | {t['rt'] * 1e3:.3f} | {t['iree'] * 1e3:.3f} | {t['rt/iree']:.2f} | {agree} |")


if __name__ == "__main__":
    main()
