"""``iree_linalg_ext`` sort/scatter/topk at sizes an O(n^2) lowering would not finish in time
(issue 21), against numpy on llvm-cpu and vmvx: dynamic sorts stay stable, a scatter-add with
repeated indices (an embedding gradient) applies them in order, a map_store relayout, topk keeps
IREE's tie order."""
import numpy as np
import pytest

import rt

PROGRAM = """
func.func @sort_pairs(%k: tensor<?xf32>, %v: tensor<?xi32>) -> (tensor<?xf32>, tensor<?xi32>) {
  %r:2 = iree_linalg_ext.sort dimension(0) outs(%k, %v : tensor<?xf32>, tensor<?xi32>) {
  ^bb0(%a: f32, %b: f32, %c: i32, %d: i32):
    %lt = arith.cmpf olt, %a, %b : f32
    iree_linalg_ext.yield %lt : i1
  } -> tensor<?xf32>, tensor<?xi32>
  return %r#0, %r#1 : tensor<?xf32>, tensor<?xi32>
}

func.func @sort_rows_descending(%k: tensor<?x?xi32>) -> tensor<?x?xi32> {
  %r = iree_linalg_ext.sort dimension(1) outs(%k : tensor<?x?xi32>) {
  ^bb0(%a: i32, %b: i32):
    %gt = arith.cmpi sgt, %a, %b : i32
    iree_linalg_ext.yield %gt : i1
  } -> tensor<?x?xi32>
  return %r : tensor<?x?xi32>
}

func.func @embedding_grad(%table: tensor<?x16xf32>, %upd: tensor<?x16xf32>, %idx: tensor<?x1xi32>) -> tensor<?x16xf32> {
  %r = iree_linalg_ext.scatter dimension_map = [0] unique_indices(false)
      ins(%upd, %idx : tensor<?x16xf32>, tensor<?x1xi32>) outs(%table : tensor<?x16xf32>) {
  ^bb0(%u: f32, %o: f32):
    %s = arith.addf %u, %o : f32
    iree_linalg_ext.yield %s : f32
  } -> tensor<?x16xf32>
  return %r : tensor<?x16xf32>
}

func.func @scatter_elements(%orig: tensor<?xi32>, %upd: tensor<?xi32>, %idx: tensor<?x1xi32>) -> tensor<?xi32> {
  %r = iree_linalg_ext.scatter dimension_map = [0] unique_indices(true)
      ins(%upd, %idx : tensor<?xi32>, tensor<?x1xi32>) outs(%orig : tensor<?xi32>) {
  ^bb0(%u: i32, %o: i32):
    iree_linalg_ext.yield %u : i32
  } -> tensor<?xi32>
  return %r : tensor<?xi32>
}

func.func @scatter_narrow_slices(%orig: tensor<5x?xi32>, %upd: tensor<?x?xi32>, %idx: tensor<?x1xi32>)
    -> tensor<5x?xi32> {
  %r = iree_linalg_ext.scatter dimension_map = [0] unique_indices(false)
      ins(%upd, %idx : tensor<?x?xi32>, tensor<?x1xi32>) outs(%orig : tensor<5x?xi32>) {
  ^bb0(%u: i32, %o: i32):
    %s = arith.addi %u, %o : i32
    iree_linalg_ext.yield %s : i32
  } -> tensor<5x?xi32>
  return %r : tensor<5x?xi32>
}

func.func @transpose_store(%x: tensor<60000xf32>, %o: tensor<300x200xf32>) -> tensor<300x200xf32> {
  %true = arith.constant true
  %r = iree_linalg_ext.map_store %x into %o {
  ^bb0(%i: index):
    %p:2 = affine.delinearize_index %i into (200, 300) : index, index
    iree_linalg_ext.yield %p#1, %p#0, %true : index, index, i1
  } : tensor<60000xf32> into tensor<300x200xf32> -> tensor<300x200xf32>
  return %r : tensor<300x200xf32>
}

func.func @top8(%x: tensor<?xf32>) -> (tensor<8xf32>, tensor<8xi32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %z = arith.constant 0 : i32
  %ev = tensor.empty() : tensor<8xf32>
  %ei = tensor.empty() : tensor<8xi32>
  %v = linalg.fill ins(%ninf : f32) outs(%ev : tensor<8xf32>) -> tensor<8xf32>
  %i = linalg.fill ins(%z : i32) outs(%ei : tensor<8xi32>) -> tensor<8xi32>
  %r:2 = iree_linalg_ext.topk dimension(0) ins(%x : tensor<?xf32>) outs(%v, %i : tensor<8xf32>, tensor<8xi32>) {
  ^bb0(%a: f32, %b: f32):
    %gt = arith.cmpf ogt, %a, %b : f32
    iree_linalg_ext.yield %gt : i1
  } -> tensor<8xf32>, tensor<8xi32>
  return %r#0, %r#1 : tensor<8xf32>, tensor<8xi32>
}

func.func @top20(%x: tensor<?xf32>) -> (tensor<20xf32>, tensor<20xi32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %z = arith.constant 0 : i32
  %ev = tensor.empty() : tensor<20xf32>
  %ei = tensor.empty() : tensor<20xi32>
  %v = linalg.fill ins(%ninf : f32) outs(%ev : tensor<20xf32>) -> tensor<20xf32>
  %i = linalg.fill ins(%z : i32) outs(%ei : tensor<20xi32>) -> tensor<20xi32>
  %r:2 = iree_linalg_ext.topk dimension(0) ins(%x : tensor<?xf32>) outs(%v, %i : tensor<20xf32>, tensor<20xi32>) {
  ^bb0(%a: f32, %b: f32):
    %gt = arith.cmpf ogt, %a, %b : f32
    iree_linalg_ext.yield %gt : i1
  } -> tensor<20xf32>, tensor<20xi32>
  return %r#0, %r#1 : tensor<20xf32>, tensor<20xi32>
}

func.func @top5_sorted(%x: tensor<10xf32>, %v: tensor<5xf32>, %i: tensor<5xi32>) -> (tensor<5xf32>, tensor<5xi32>) {
  %r:2 = iree_linalg_ext.topk_v2 dimension(0) is_sorted ins(%x : tensor<10xf32>)
      outs(%v, %i : tensor<5xf32>, tensor<5xi32>) {
  ^bb0(%a: f32, %b: f32):
    %gt = arith.cmpf ogt, %a, %b : f32
    iree_linalg_ext.yield %gt : i1
  } -> tensor<5xf32>, tensor<5xi32>
  return %r#0, %r#1 : tensor<5xf32>, tensor<5xi32>
}
"""

DEVICES = [("llvm-cpu", "local-task://llvm-cpu"), ("vmvx", "local-sync://vmvx")]


@pytest.fixture(scope="module", params=DEVICES, ids=[d for d, _ in DEVICES])
def module(request):
    target, uri = request.param
    return rt.load(rt.compile(PROGRAM, devices=[target]), devices=[uri])


def test_dynamic_sort_of_20000_pairs_is_stable(module):
    rng = np.random.default_rng(4)
    keys = rng.integers(0, 100, 20000).astype(np.float32)
    got_k, got_v = module.sort_pairs(keys, np.arange(20000, dtype=np.int32))
    order = np.argsort(keys, kind="stable")
    np.testing.assert_array_equal(np.asarray(got_k), keys[order])
    np.testing.assert_array_equal(np.asarray(got_v), order)


def test_dynamic_rows_sort_in_parallel_whatever_their_length(module):
    rng = np.random.default_rng(5)
    for shape in [(64, 777), (3, 1), (1, 4096)]:
        keys = rng.integers(-50, 50, shape).astype(np.int32)
        got = np.asarray(module.sort_rows_descending(keys))
        np.testing.assert_array_equal(got, -np.sort(-keys, axis=1))


def test_embedding_gradient_scatter_adds_repeated_rows_in_order(module):
    rng = np.random.default_rng(6)
    table = rng.integers(-8, 8, (3000, 16)).astype(np.float32)
    upd = rng.integers(-8, 8, (4000, 16)).astype(np.float32) * np.float32(0.125)
    idx = rng.integers(-5, 400, (4000, 1)).astype(np.int32)
    idx[::97] = 3000
    want = table.copy()
    inside = (idx[:, 0] >= 0) & (idx[:, 0] < 3000)
    np.add.at(want, idx[inside, 0], upd[inside])
    np.testing.assert_array_equal(np.asarray(module.embedding_grad(table, upd, idx)), want)


def test_scatter_of_30000_unique_indices_is_a_permutation(module):
    rng = np.random.default_rng(7)
    perm = rng.permutation(30000).astype(np.int32)
    upd = np.arange(30000, dtype=np.int32)
    orig = np.full(40000, -1, np.int32)
    want = orig.copy()
    want[perm] = upd
    np.testing.assert_array_equal(np.asarray(module.scatter_elements(orig, upd, perm.reshape(-1, 1))), want)


def test_scatter_slices_narrower_than_the_rows_leave_the_rest(module):
    orig = np.arange(20, dtype=np.int32).reshape(5, 4)
    upd = np.array([[100, 200], [1000, 2000], [7, 7]], np.int32)
    idx = np.array([[1], [1], [4]], np.int32)
    want = orig.copy()
    want[1, :2] += [1100, 2200]
    want[4, :2] += 7
    np.testing.assert_array_equal(np.asarray(module.scatter_narrow_slices(orig, upd, idx)), want)


def test_map_store_of_60000_elements_transposes(module):
    x = np.arange(60000, dtype=np.float32)
    got = np.asarray(module.transpose_store(x, np.zeros((300, 200), np.float32)))
    np.testing.assert_array_equal(got, x.reshape(200, 300).T)


def test_topk_of_30000_keeps_the_first_of_equal_values(module):
    rng = np.random.default_rng(8)
    x = rng.integers(0, 1000, 30000).astype(np.float32)
    order = np.argsort(-x, kind="stable")
    for fn, k in ((module.top8, 8), (module.top20, 20)):
        values, indices = fn(x)
        np.testing.assert_array_equal(np.asarray(indices), order[:k])
        np.testing.assert_array_equal(np.asarray(values), x[order[:k]])


def test_sorted_topk_v2_orders_ties_as_iree_and_merges_the_outputs(module):
    x = np.array([1.0, 1.5, 3.0, 5.0, 5.0, 3.0, 5.0, 2.0, 2.0, 10.0], np.float32)
    ninf = np.full(5, -np.inf, np.float32)
    values, indices = module.top5_sorted(x, ninf, np.zeros(5, np.int32))
    np.testing.assert_array_equal(np.asarray(values), [10, 5, 5, 5, 3])
    np.testing.assert_array_equal(np.asarray(indices), [9, 3, 6, 4, 2])
    # the outputs' initial contents are candidates, as in IREE (the last 5.0 is now bubbled out)
    initial = np.array([7, 6, -1, -2, -3], np.float32)
    values, indices = module.top5_sorted(x, initial, np.arange(100, 105, dtype=np.int32))
    np.testing.assert_array_equal(np.asarray(values), [10, 7, 6, 5, 5])
    np.testing.assert_array_equal(np.asarray(indices), [9, 100, 101, 3, 4])
