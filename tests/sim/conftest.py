"""Shared fixtures of the simulation tests: small compiled programs (compiled once per session)."""
import functools

import numpy as np
import pytest

import rt

MATMUL = """
func.func @mm(%a: tensor<64x32xf32>, %b: tensor<32x16xf32>) -> tensor<64x16xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x16xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<64x16xf32>) -> tensor<64x16xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x16xf32>)
                     outs(%f : tensor<64x16xf32>) -> tensor<64x16xf32>
  return %m : tensor<64x16xf32>
}
"""

# Two devices: negate on @a, the result moved to @b, doubled there, moved back to @a.
TWO_DEVICES = """
#map = affine_map<(i) -> (i)>
func.func @hop(%x: tensor<1024xf32>) -> tensor<1024xf32> attributes {stream.affinity = #hal.device.affinity<@a>} {
  %e0 = tensor.empty() : tensor<1024xf32>
  %n = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%x : tensor<1024xf32>) outs(%e0 : tensor<1024xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.negf %v : f32
    linalg.yield %r : f32
  } -> tensor<1024xf32>
  %nb = flow.tensor.transfer %n : tensor<1024xf32> to #hal.device.affinity<@b>
  %e1 = tensor.empty() : tensor<1024xf32>
  %d = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]}
      ins(%nb : tensor<1024xf32>) outs(%e1 : tensor<1024xf32>) attrs = {stream.affinity = #hal.device.affinity<@b>} {
  ^bb0(%v: f32, %o: f32):
    %r = arith.addf %v, %v : f32
    linalg.yield %r : f32
  } -> tensor<1024xf32>
  %back = flow.tensor.transfer %d : tensor<1024xf32> to #hal.device.affinity<@a>
  return %back : tensor<1024xf32>
}
"""


@pytest.fixture(scope="session")
def matmul_vmfb():
    return rt.compile(MATMUL, data_tiling=False)


@pytest.fixture(scope="session")
def two_device_vmfb():
    return rt.compile(TWO_DEVICES, devices=["a=llvm-cpu", "b=llvm-cpu"])


# An elementwise exp of 65536 f32 on each of RANKS SPMD ranks (one dispatch per rank).
SPMD_EXP = """
shard.grid @grid(shape = RANKS)
func.func @f(%x: tensor<65536xf32>) -> tensor<65536xf32> {
  %e = tensor.empty() : tensor<65536xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]} ins(%x : tensor<65536xf32>) outs(%e : tensor<65536xf32>) {
  ^bb0(%v: f32, %o: f32):
    %y = math.exp %v : f32
    linalg.yield %y : f32
  } -> tensor<65536xf32>
  return %r : tensor<65536xf32>
}
"""


@pytest.fixture(scope="session")
def spmd_exp_vmfb():
    """``vmfb(ranks)``: SPMD_EXP compiled for ``ranks`` ranks (once per rank count)."""
    return functools.cache(lambda ranks: rt.compile(SPMD_EXP.replace("RANKS", str(ranks)),
                                                    devices=["llvm-cpu"]))


@pytest.fixture(scope="session")
def spmd_exp_call_us(spmd_exp_vmfb):
    """``call_us(topology, ranks)``: simulated µs of one dry-run ``f.spmd`` call of SPMD_EXP."""
    def call_us(topology, ranks):
        with rt.load(spmd_exp_vmfb(ranks), topology=topology, ranks=ranks, dry_run=True) as module:
            before = module.simulation.drain()
            module.f.spmd([[np.ones(65536, np.float32)]] * ranks, to_host=False)
            return module.simulation.drain() - before
    return call_us
