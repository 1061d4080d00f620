"""``iree_linalg_ext`` sort/topk/scan/arg_compare/gather/scatter/map_load/map_store/winograd against numpy on
llvm-cpu and vmvx: dynamic shapes, empty tensors, repeated and out-of-range indices."""
import numpy as np
import pytest

import rt

PROGRAM = """
func.func @sort_pairs(%k: tensor<?x?xf32>, %v: tensor<?x?xi32>) -> (tensor<?x?xf32>, tensor<?x?xi32>) {
  %r:2 = iree_linalg_ext.sort dimension(1) outs(%k, %v : tensor<?x?xf32>, tensor<?x?xi32>) {
  ^bb0(%a: f32, %b: f32, %c: i32, %d: i32):
    %lt = arith.cmpf olt, %a, %b : f32
    iree_linalg_ext.yield %lt : i1
  } -> tensor<?x?xf32>, tensor<?x?xi32>
  return %r#0, %r#1 : tensor<?x?xf32>, tensor<?x?xi32>
}

func.func @sort_long_descending(%k: tensor<2x100xi32>, %v: tensor<2x100xf32>) -> (tensor<2x100xi32>, tensor<2x100xf32>) {
  %r:2 = iree_linalg_ext.sort dimension(1) outs(%k, %v : tensor<2x100xi32>, tensor<2x100xf32>) {
  ^bb0(%a: i32, %b: i32, %c: f32, %d: f32):
    %gt = arith.cmpi sgt, %a, %b : i32
    iree_linalg_ext.yield %gt : i1
  } -> tensor<2x100xi32>, tensor<2x100xf32>
  return %r#0, %r#1 : tensor<2x100xi32>, tensor<2x100xf32>
}

func.func @topk3(%x: tensor<2x?xf32>) -> (tensor<2x3xf32>, tensor<2x3xi32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %z = arith.constant 0 : i32
  %ev = tensor.empty() : tensor<2x3xf32>
  %ei = tensor.empty() : tensor<2x3xi32>
  %v = linalg.fill ins(%ninf : f32) outs(%ev : tensor<2x3xf32>) -> tensor<2x3xf32>
  %i = linalg.fill ins(%z : i32) outs(%ei : tensor<2x3xi32>) -> tensor<2x3xi32>
  %r:2 = iree_linalg_ext.topk dimension(1) ins(%x : tensor<2x?xf32>) outs(%v, %i : tensor<2x3xf32>, tensor<2x3xi32>) {
  ^bb0(%a: f32, %b: f32):
    %gt = arith.cmpf ogt, %a, %b : f32
    iree_linalg_ext.yield %gt : i1
  } -> tensor<2x3xf32>, tensor<2x3xi32>
  return %r#0, %r#1 : tensor<2x3xf32>, tensor<2x3xi32>
}

func.func @jax_top_k(%x: tensor<2x10xf32>) -> (tensor<2x3xf32>, tensor<2x3xi32>) {
  %values, %indices = chlo.top_k(%x, k = 3) : tensor<2x10xf32> -> (tensor<2x3xf32>, tensor<2x3xi32>)
  return %values, %indices : tensor<2x3xf32>, tensor<2x3xi32>
}

func.func @scans(%x: tensor<?x4xi32>, %acc: tensor<4xi32>) -> (tensor<?x4xi32>, tensor<4xi32>, tensor<?x4xi32>, tensor<4xi32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x4xi32>
  %e = tensor.empty(%n) : tensor<?x4xi32>
  %a:2 = iree_linalg_ext.scan dimension(0) inclusive(true) ins(%x : tensor<?x4xi32>) outs(%e, %acc : tensor<?x4xi32>, tensor<4xi32>) {
  ^bb0(%p: i32, %q: i32):
    %s = arith.subi %p, %q : i32
    iree_linalg_ext.yield %s : i32
  } -> tensor<?x4xi32>, tensor<4xi32>
  %b:2 = iree_linalg_ext.scan dimension(0) inclusive(false) ins(%x : tensor<?x4xi32>) outs(%e, %acc : tensor<?x4xi32>, tensor<4xi32>) {
  ^bb0(%p: i32, %q: i32):
    %s = arith.subi %p, %q : i32
    iree_linalg_ext.yield %s : i32
  } -> tensor<?x4xi32>, tensor<4xi32>
  return %a#0, %a#1, %b#0, %b#1 : tensor<?x4xi32>, tensor<4xi32>, tensor<?x4xi32>, tensor<4xi32>
}

func.func @argmin(%x: tensor<3x?xf32>) -> (tensor<3xf32>, tensor<3xi64>) {
  %inf = arith.constant 0x7F800000 : f32
  %z = arith.constant 0 : i64
  %base = arith.constant 10 : index
  %ev = tensor.empty() : tensor<3xf32>
  %ei = tensor.empty() : tensor<3xi64>
  %v = linalg.fill ins(%inf : f32) outs(%ev : tensor<3xf32>) -> tensor<3xf32>
  %i = linalg.fill ins(%z : i64) outs(%ei : tensor<3xi64>) -> tensor<3xi64>
  %r:2 = iree_linalg_ext.arg_compare dimension(1) ins(%x : tensor<3x?xf32>) outs(%v, %i : tensor<3xf32>, tensor<3xi64>)
      index_base(%base : index) {
  ^bb0(%a: f32, %b: f32):
    %lt = arith.cmpf olt, %a, %b : f32
    iree_linalg_ext.yield %lt : i1
  } -> tensor<3xf32>, tensor<3xi64>
  return %r#0, %r#1 : tensor<3xf32>, tensor<3xi64>
}

func.func @gather_rows(%src: tensor<5x3xf32>, %idx: tensor<?xi32>) -> tensor<?x3xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %idx, %c0 : tensor<?xi32>
  %e = tensor.empty(%n) : tensor<?x3xf32>
  %r = iree_linalg_ext.gather dimension_map = [0] ins(%src, %idx : tensor<5x3xf32>, tensor<?xi32>)
      outs(%e : tensor<?x3xf32>) -> tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}

func.func @scatter_add(%orig: tensor<6x2xi32>, %upd: tensor<?x2xi32>, %idx: tensor<?x1xi32>, %mask: tensor<?xi1>) -> tensor<6x2xi32> {
  %r = iree_linalg_ext.scatter dimension_map = [0] unique_indices(false)
      ins(%upd, %idx, %mask : tensor<?x2xi32>, tensor<?x1xi32>, tensor<?xi1>) outs(%orig : tensor<6x2xi32>) {
  ^bb0(%u: i32, %o: i32):
    %t = arith.muli %o, %u : i32
    %s = arith.addi %t, %u : i32
    iree_linalg_ext.yield %s : i32
  } -> tensor<6x2xi32>
  return %r : tensor<6x2xi32>
}

func.func @masked_store(%x: tensor<6xf32>) -> tensor<2x3xf32> {
  %c5 = arith.constant 5 : index
  %z = arith.constant 0.5 : f32
  %e = tensor.empty() : tensor<2x3xf32>
  %o = linalg.fill ins(%z : f32) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = iree_linalg_ext.map_store %x into %o {
  ^bb0(%i: index):
    %p:2 = affine.delinearize_index %i into (2, 3) : index, index
    %m = arith.cmpi ult, %i, %c5 : index
    iree_linalg_ext.yield %p#0, %p#1, %m : index, index, i1
  } : tensor<6xf32> into tensor<2x3xf32> -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

func.func @winograd_conv(%img: tensor<1x14x14x2xf32>, %w: tensor<3x3x2x3xf32>) -> tensor<1x12x12x3xf32> {
  %zero = arith.constant 0.0 : f32
  %ei = tensor.empty() : tensor<8x8x1x2x2x2xf32>
  %u = iree_linalg_ext.winograd.input_transform output_tile_size(6) kernel_size(3) image_dimensions([1, 2])
      ins(%img : tensor<1x14x14x2xf32>) outs(%ei : tensor<8x8x1x2x2x2xf32>) -> tensor<8x8x1x2x2x2xf32>
  %ef = tensor.empty() : tensor<8x8x2x3xf32>
  %v = iree_linalg_ext.winograd.filter_transform output_tile_size(6) kernel_size(3) image_dimensions([0, 1])
      ins(%w : tensor<3x3x2x3xf32>) outs(%ef : tensor<8x8x2x3xf32>) -> tensor<8x8x2x3xf32>
  %em = tensor.empty() : tensor<8x8x1x2x2x3xf32>
  %fm = linalg.fill ins(%zero : f32) outs(%em : tensor<8x8x1x2x2x3xf32>) -> tensor<8x8x1x2x2x3xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(i, j, n, h, w, f, c) -> (i, j, n, h, w, c)>,
                                        affine_map<(i, j, n, h, w, f, c) -> (i, j, c, f)>,
                                        affine_map<(i, j, n, h, w, f, c) -> (i, j, n, h, w, f)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%u, %v : tensor<8x8x1x2x2x2xf32>, tensor<8x8x2x3xf32>) outs(%fm : tensor<8x8x1x2x2x3xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x8x1x2x2x3xf32>
  %eo = tensor.empty() : tensor<1x12x12x3xf32>
  %o = iree_linalg_ext.winograd.output_transform output_tile_size(6) kernel_size(3) image_dimensions([1, 2])
      ins(%m : tensor<8x8x1x2x2x3xf32>) outs(%eo : tensor<1x12x12x3xf32>) -> tensor<1x12x12x3xf32>
  return %o : tensor<1x12x12x3xf32>
}

func.func @shifted_load(%src: tensor<?xf32>) -> tensor<8xf32> {
  %pad = arith.constant -1.0 : f32
  %c3 = arith.constant 3 : index
  %e = tensor.empty() : tensor<8xf32>
  %r = iree_linalg_ext.map_load %src into %e {
  ^bb0(%i: index):
    %j = arith.subi %i, %c3 : index
    iree_linalg_ext.yield %j, %pad : index, f32
  } : tensor<?xf32> into tensor<8xf32> -> tensor<8xf32>
  return %r : tensor<8xf32>
}
"""

DEVICES = [("llvm-cpu", "local-task://llvm-cpu"), ("vmvx", "local-sync://vmvx")]


@pytest.fixture(scope="module", params=DEVICES, ids=[d for d, _ in DEVICES])
def module(request):
    target, uri = request.param
    return rt.load(rt.compile(PROGRAM, devices=[target]), devices=[uri])


def test_sort_is_stable_and_permutes_every_operand(module):
    rng = np.random.default_rng(1)
    keys = rng.integers(0, 4, (3, 9)).astype(np.float32)
    vals = np.arange(27, dtype=np.int32).reshape(3, 9)
    got_k, got_v = module.sort_pairs(keys, vals)
    order = np.argsort(keys, axis=1, kind="stable")
    np.testing.assert_array_equal(np.asarray(got_k), np.take_along_axis(keys, order, 1))
    np.testing.assert_array_equal(np.asarray(got_v), np.take_along_axis(vals, order, 1))


def test_long_rows_are_merge_sorted_stably(module):
    rng = np.random.default_rng(2)
    keys = rng.integers(-20, 20, (2, 100)).astype(np.int32)
    vals = rng.standard_normal((2, 100)).astype(np.float32)
    got_k, got_v = module.sort_long_descending(keys, vals)
    order = np.argsort(-keys, axis=1, kind="stable")
    np.testing.assert_array_equal(np.asarray(got_k), np.take_along_axis(keys, order, 1))
    np.testing.assert_array_equal(np.asarray(got_v), np.take_along_axis(vals, order, 1))


def test_sort_of_empty_rows(module):
    got_k, got_v = module.sort_pairs(np.zeros((2, 0), np.float32), np.zeros((2, 0), np.int32))
    assert np.asarray(got_k).shape == (2, 0) and np.asarray(got_v).shape == (2, 0)


def test_topk_takes_the_largest_first_index_on_ties(module):
    x = np.array([[1, 7, 3, 7, 2, 0], [5, 4, 3, 2, 1, 9]], np.float32)
    values, indices = module.topk3(x)
    np.testing.assert_array_equal(np.asarray(values), [[7, 7, 3], [9, 5, 4]])
    np.testing.assert_array_equal(np.asarray(indices), [[1, 3, 2], [5, 0, 1]])


def test_chlo_top_k_as_jax_writes_it(module):
    x = np.array([[1, 7, 3, 7, 2, 0, 5, 5, 9, -1], [5, 4, 3, 2, 1, 9, 9, 0, 0, 8]], np.float32)
    values, indices = module.jax_top_k(x)
    order = np.argsort(-x, axis=1, kind="stable")[:, :3]
    np.testing.assert_array_equal(np.asarray(indices), order)
    np.testing.assert_array_equal(np.asarray(values), np.take_along_axis(x, order, 1))


def test_scan_inclusive_and_exclusive_with_a_non_commutative_region(module):
    x = np.arange(1, 21, dtype=np.int32).reshape(5, 4) * np.array([1, -2, 3, 5], np.int32)
    acc = np.array([100, 0, -7, 2], np.int32)
    inc, inc_acc, exc, exc_acc = (np.asarray(a) for a in module.scans(x, acc))
    want_inc = x.copy()
    for i in range(1, 5):
        want_inc[i] = want_inc[i - 1] - x[i]
    want_exc = np.empty_like(x)
    want_exc[0] = acc
    for i in range(1, 5):
        want_exc[i] = want_exc[i - 1] - x[i - 1]
    np.testing.assert_array_equal(inc, want_inc)
    np.testing.assert_array_equal(inc_acc, want_inc[-1])
    np.testing.assert_array_equal(exc, want_exc)
    np.testing.assert_array_equal(exc_acc, want_exc[-1])


def test_scan_of_an_empty_dim_keeps_the_accumulator(module):
    acc = np.array([1, 2, 3, 4], np.int32)
    results = [np.asarray(a) for a in module.scans(np.zeros((0, 4), np.int32), acc)]
    assert results[0].shape == (0, 4)
    np.testing.assert_array_equal(results[1], acc)


def test_arg_compare_gives_the_first_minimum_plus_index_base(module):
    x = np.array([[3, 1, 1, 5], [0, 0, 0, 0], [9, 8, 7, -1]], np.float32)
    values, indices = module.argmin(x)
    np.testing.assert_array_equal(np.asarray(values), x.min(axis=1))
    np.testing.assert_array_equal(np.asarray(indices), x.argmin(axis=1) + 10)


def test_gather_clamps_out_of_range_indices(module):
    src = np.arange(15, dtype=np.float32).reshape(5, 3)
    idx = np.array([4, 0, -3, 7, 2], np.int32)
    got = np.asarray(module.gather_rows(src, idx))
    np.testing.assert_array_equal(got, src[np.clip(idx, 0, 4)])
    assert np.asarray(module.gather_rows(src, np.zeros(0, np.int32))).shape == (0, 3)


def test_scatter_applies_repeated_updates_in_order_and_skips_out_of_range_and_masked(module):
    orig = np.arange(12, dtype=np.int32).reshape(6, 2)
    upd = np.array([[1, 2], [3, 4], [5, 6], [7, 8], [9, 10]], np.int32)
    idx = np.array([[2], [2], [-1], [6], [0]], np.int32)
    mask = np.array([True, True, True, True, False])
    want = orig.copy()
    for u, (i,), m in zip(upd, idx, mask):
        if m and 0 <= i < 6:
            want[i] = want[i] * u + u
    np.testing.assert_array_equal(np.asarray(module.scatter_add(orig, upd, idx, mask)), want)
    np.testing.assert_array_equal(
        np.asarray(module.scatter_add(orig, np.zeros((0, 2), np.int32), np.zeros((0, 1), np.int32),
                                      np.zeros(0, bool))), orig)


def test_map_store_writes_where_the_mask_is_true(module):
    got = np.asarray(module.masked_store(np.arange(6, dtype=np.float32)))
    np.testing.assert_array_equal(got, [[0, 1, 2], [3, 4, 0.5]])


def test_winograd_transforms_compute_a_convolution(module):
    rng = np.random.default_rng(3)
    img = rng.standard_normal((1, 14, 14, 2)).astype(np.float32)
    w = rng.standard_normal((3, 3, 2, 3)).astype(np.float32)
    want = np.zeros((1, 12, 12, 3), np.float32)
    for a in range(3):
        for b in range(3):
            want += np.einsum("nhwc,cf->nhwf", img[:, a:a + 12, b:b + 12, :], w[a, b])
    np.testing.assert_allclose(np.asarray(module.winograd_conv(img, w)), want, rtol=1e-3, atol=1e-3)


def test_map_load_pads_out_of_bounds_reads(module):
    src = np.array([1, 2, 3, 4], np.float32)
    np.testing.assert_array_equal(np.asarray(module.shifted_load(src)), [-1, -1, -1, 1, 2, 3, 4, -1])
