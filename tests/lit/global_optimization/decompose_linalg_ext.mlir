// RUN: python -m rt opt --pass=rt-decompose-linalg-ext --split-input-file %s | filecheck %s

// Tests that arg_compare becomes one reduction generic whose body selects value and index by the region.
// CHECK-LABEL: func.func @argmax
// CHECK-NOT: iree_linalg_ext
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
// CHECK: arith.cmpf ogt
// CHECK: linalg.index 1
// CHECK: arith.select
// CHECK: arith.select
func.func @argmax(%x: tensor<2x6xf32>, %v: tensor<2xf32>, %i: tensor<2xi32>) -> (tensor<2xf32>, tensor<2xi32>) {
  %r:2 = iree_linalg_ext.arg_compare dimension(1) ins(%x : tensor<2x6xf32>) outs(%v, %i : tensor<2xf32>, tensor<2xi32>) {
  ^bb0(%a: f32, %b: f32):
    %c = arith.cmpf ogt, %a, %b : f32
    iree_linalg_ext.yield %c : i1
  } -> tensor<2xf32>, tensor<2xi32>
  return %r#0, %r#1 : tensor<2xf32>, tensor<2xi32>
}

// -----

// Tests that a sort is a host loop of merge passes, one generic per doubling of the run width (a
// loop-carried index): the row dim a sequential loop carrying the two read positions.
// CHECK-LABEL: func.func @static_sort
// CHECK: scf.while
// CHECK: arith.cmpi ult
// CHECK: scf.condition
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
// CHECK: arith.andi
// CHECK: arith.cmpf olt
// CHECK: scf.yield
// CHECK-NOT: scf.while
// CHECK-NOT: iree_linalg_ext.sort
func.func @static_sort(%x: tensor<100xf32>) -> tensor<100xf32> {
  %r = iree_linalg_ext.sort dimension(0) outs(%x : tensor<100xf32>) {
  ^bb0(%a: f32, %b: f32):
    %c = arith.cmpf olt, %a, %b : f32
    iree_linalg_ext.yield %c : i1
  } -> tensor<100xf32>
  return %r : tensor<100xf32>
}

// -----

// Tests that a dynamic sort along dim 1 loops up to the row's run-time length, dim 0 parallel.
// CHECK-LABEL: func.func @dynamic_sort
// CHECK: tensor.dim
// CHECK: scf.while
// CHECK: iterator_types = ["parallel", "reduction"]
// CHECK-NOT: scf.while
func.func @dynamic_sort(%x: tensor<3x?xi32>) -> tensor<3x?xi32> {
  %r = iree_linalg_ext.sort dimension(1) outs(%x : tensor<3x?xi32>) {
  ^bb0(%a: i32, %b: i32):
    %c = arith.cmpi slt, %a, %b : i32
    iree_linalg_ext.yield %c : i1
  } -> tensor<3x?xi32>
  return %r : tensor<3x?xi32>
}

// -----

// Tests that a scatter addressing whole rows sorts the row keys of its updates, folds each row's
// updates in batch order by a sequential scan, finds each row's last entry and pulls it.
// CHECK-LABEL: func.func @scatter
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
// CHECK: tensor.extract %i
// CHECK: scf.while
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]
// CHECK: arith.addi
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel"]
// CHECK: arith.cmpi sle
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
// CHECK: arith.select
func.func @scatter(%u: tensor<3x2xi32>, %i: tensor<3x1xi32>, %o: tensor<5x2xi32>) -> tensor<5x2xi32> {
  %r = iree_linalg_ext.scatter dimension_map = [0] unique_indices(false) ins(%u, %i : tensor<3x2xi32>, tensor<3x1xi32>) outs(%o : tensor<5x2xi32>) {
  ^bb0(%a: i32, %b: i32):
    %c = arith.addi %a, %b : i32
    iree_linalg_ext.yield %c : i32
  } -> tensor<5x2xi32>
  return %r : tensor<5x2xi32>
}

// -----

// Tests that a scatter whose index lands in a slice dim (a window at an offset) pulls: a generic
// over (original, updates) whose update dims are reductions.
// CHECK-LABEL: func.func @window_scatter
// CHECK-NOT: scf.while
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// CHECK: tensor.extract %i
// CHECK: arith.cmpi eq
// CHECK: arith.select
func.func @window_scatter(%u: tensor<2x3xi32>, %i: tensor<2x1xi32>, %o: tensor<4x8xi32>) -> tensor<4x8xi32> {
  %r = iree_linalg_ext.scatter dimension_map = [1] unique_indices(false) ins(%u, %i : tensor<2x3xi32>, tensor<2x1xi32>) outs(%o : tensor<4x8xi32>) {
  ^bb0(%a: i32, %b: i32):
    %c = arith.addi %a, %b : i32
    iree_linalg_ext.yield %c : i32
  } -> tensor<4x8xi32>
  return %r : tensor<4x8xi32>
}

// -----

// Tests that map_store goes the row-scatter way: keys from the region (mask folded in), a host
// sort loop, the sequential fold (a copy) and the pull; no generic over (output, source).
// CHECK-LABEL: func.func @map_store
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel"]
// CHECK: arith.cmpi ult
// CHECK: scf.while
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction"]
// CHECK-NOT: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: return
func.func @map_store(%x: tensor<6xf32>, %o: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %c5 = arith.constant 5 : index
  %r = iree_linalg_ext.map_store %x into %o {
  ^bb0(%i: index):
    %p:2 = affine.delinearize_index %i into (2, 3) : index, index
    %m = arith.cmpi ult, %i, %c5 : index
    iree_linalg_ext.yield %p#0, %p#1, %m : index, index, i1
  } : tensor<6xf32> into tensor<2x3xf32> -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// Tests that a topk_v2 with k = 2 selects by slots: the outputs split into 2 x 2 slots, one
// reduction generic carrying them (an insertion, then the is_sorted bubble sort), and the slots
// assembled back.
// CHECK-LABEL: func.func @topk_slots
// CHECK: linalg.generic {indexing_maps = [affine_map<() -> (0)>, affine_map<() -> ()>]
// CHECK: linalg.generic {indexing_maps = [affine_map<() -> (1)>, affine_map<() -> ()>]
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction"]
// CHECK-COUNT-3: arith.cmpf ogt
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel"]
// CHECK-NOT: scf.while
func.func @topk_slots(%x: tensor<9xf32>, %v: tensor<2xf32>, %i: tensor<2xi32>) -> (tensor<2xf32>, tensor<2xi32>) {
  %r:2 = iree_linalg_ext.topk_v2 dimension(0) is_sorted ins(%x : tensor<9xf32>) outs(%v, %i : tensor<2xf32>, tensor<2xi32>) {
  ^bb0(%a: f32, %b: f32):
    %c = arith.cmpf ogt, %a, %b : f32
    iree_linalg_ext.yield %c : i1
  } -> tensor<2xf32>, tensor<2xi32>
  return %r#0, %r#1 : tensor<2xf32>, tensor<2xi32>
}

// -----

// Tests that affine.delinearize_index becomes division and remainder by the basis strides.
// CHECK-LABEL: func.func @delinearize
// CHECK-NOT: affine.delinearize_index
// CHECK: arith.divsi
// CHECK: arith.divsi
// CHECK: arith.remsi
func.func @delinearize(%l: index) -> (index, index) {
  %r:2 = affine.delinearize_index %l into (4, 8) : index, index
  return %r#0, %r#1 : index, index
}
