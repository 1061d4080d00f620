// RUN: python -m rt opt %S/../../../examples/matmul_f32.mlir --pass=verify --pass=canonicalize --pass=cse --pass=convert-elementwise-to-linalg --pass=linalg-normalize-named-ops --pass=iree-abi-wrap-entry-points --pass=iree-flow-convert-to-flow --pass=iree-dispatch-creation-form-dispatch-regions --pass=iree-dispatch-creation-convert-dispatch-regions-to-workgroups --pass=iree-flow-outline-dispatch-regions | filecheck %s --check-prefix=MATMUL
// RUN: python -m rt opt %S/../../../examples/mlp.mlir --pass=verify --pass=canonicalize --pass=cse --pass=convert-elementwise-to-linalg --pass=linalg-normalize-named-ops --pass=iree-abi-wrap-entry-points --pass=iree-flow-convert-to-flow --pass=iree-dispatch-creation-form-dispatch-regions --pass=iree-dispatch-creation-convert-dispatch-regions-to-workgroups --pass=iree-flow-outline-dispatch-regions | filecheck %s --check-prefix=MLP
// RUN: python -m rt opt %S/../../../examples/predict.mlir --pass=verify --pass=canonicalize --pass=cse --pass=convert-elementwise-to-linalg --pass=linalg-normalize-named-ops --pass=iree-abi-wrap-entry-points --pass=iree-flow-convert-to-flow --pass=iree-dispatch-creation-form-dispatch-regions --pass=iree-dispatch-creation-convert-dispatch-regions-to-workgroups --pass=iree-flow-outline-dispatch-regions | filecheck %s --check-prefix=PREDICT
// RUN: python -m rt opt %S/../../../examples/test_constant_add.mlir --pass=verify --pass=canonicalize --pass=cse --pass=convert-elementwise-to-linalg --pass=linalg-normalize-named-ops --pass=iree-abi-wrap-entry-points --pass=iree-flow-convert-to-flow --pass=iree-dispatch-creation-form-dispatch-regions --pass=iree-dispatch-creation-convert-dispatch-regions-to-workgroups --pass=iree-flow-outline-dispatch-regions | filecheck %s --check-prefix=TEST

// Tests that the dynamic matmul example (fill + matmul) becomes one dispatch over M x N with its dims as operands.
// MATMUL: flow.executable private @foo_dispatch_0 {
// MATMUL: flow.executable.export public @foo_dispatch_0_matmul_DxDxD_f32
// MATMUL-NOT: flow.executable private
// MATMUL-LABEL: util.func public @foo(%lhs: !hal.buffer_view, %rhs: !hal.buffer_view) -> !hal.buffer_view
// MATMUL: %[[M:.+]] = hal.buffer_view.dim<%lhs : !hal.buffer_view>[0] : index
// MATMUL: %[[K:.+]] = hal.buffer_view.dim<%lhs : !hal.buffer_view>[1] : index
// MATMUL: %[[L:.+]] = hal.tensor.import %lhs "input0" : !hal.buffer_view -> tensor<?x?xf32>{%[[M]], %[[K]]}
// MATMUL: %[[K2:.+]] = hal.buffer_view.dim<%rhs : !hal.buffer_view>[0] : index
// MATMUL: %[[N:.+]] = hal.buffer_view.dim<%rhs : !hal.buffer_view>[1] : index
// MATMUL: %[[R:.+]] = hal.tensor.import %rhs "input1" : !hal.buffer_view -> tensor<?x?xf32>{%[[K2]], %[[N]]}
// MATMUL: %[[D:.+]] = flow.dispatch @foo_dispatch_0::@foo_dispatch_0_matmul_DxDxD_f32[%[[M]], %[[N]]](%[[L]], %[[R]], %[[M]], %[[N]], %[[K]], %[[K2]]) : (tensor<?x?xf32>{%[[M]], %[[K]]}, tensor<?x?xf32>{%[[K2]], %[[N]]}, index, index, index, index) -> tensor<?x?xf32>{%[[M]], %[[N]]}
// MATMUL: hal.tensor.export %[[D]] "output0" : tensor<?x?xf32>{%[[M]], %[[N]]} -> !hal.buffer_view

// Tests that the MLP gives three dispatches, each matmul with its bias add (+ relu) fused.
// MLP: flow.executable.export public @mlp_dispatch_0_matmul_64x512x784_f32
// MLP: linalg.matmul
// MLP: arith.maximumf
// MLP: flow.executable.export public @mlp_dispatch_1_matmul_64x512x512_f32
// MLP: flow.executable.export public @mlp_dispatch_2_matmul_64x10x512_f32
// MLP: linalg.matmul
// MLP-NOT: arith.maximumf
// MLP-LABEL: util.func public @mlp
// MLP: %[[A1:.+]] = flow.dispatch @mlp_dispatch_0::@mlp_dispatch_0_matmul_64x512x784_f32[%{{.+}}, %{{.+}}](%{{.+}}, %{{.+}}, %{{.+}}) : (tensor<64x784xf32>, tensor<784x512xf32>, tensor<512xf32>) -> tensor<64x512xf32>
// MLP: %[[A2:.+]] = flow.dispatch @mlp_dispatch_1::@mlp_dispatch_1_matmul_64x512x512_f32[%{{.+}}, %{{.+}}](%[[A1]], %{{.+}}, %{{.+}}) : (tensor<64x512xf32>, tensor<512x512xf32>, tensor<512xf32>) -> tensor<64x512xf32>
// MLP: %[[A3:.+]] = flow.dispatch @mlp_dispatch_2::@mlp_dispatch_2_matmul_64x10x512_f32[%{{.+}}, %{{.+}}](%[[A2]], %{{.+}}, %{{.+}}) : (tensor<64x512xf32>, tensor<512x10xf32>, tensor<10xf32>) -> tensor<64x10xf32>
// MLP-NOT: flow.dispatch @
// MLP: hal.tensor.export %[[A3]]

// Tests that @predict gives IREE's five dispatches: matmul, max-reduce, sub+exp, sum-reduce, div.
// PREDICT: flow.executable.export public @predict_dispatch_0_matmul_1x10x2_f32
// PREDICT: flow.executable.export public @predict_dispatch_1_reduction_1x10_f32
// PREDICT: arith.maximumf
// PREDICT: flow.executable.export public @predict_dispatch_2_elementwise_broadcast_1x10_f32
// PREDICT: math.exp
// PREDICT: flow.executable.export public @predict_dispatch_3_reduction_1x10_f32
// PREDICT: arith.addf
// PREDICT: flow.executable.export public @predict_dispatch_4_elementwise_broadcast_1x10_f32
// PREDICT: arith.divf
// PREDICT-LABEL: util.func public @predict(%x: !hal.buffer_view) -> !hal.buffer_view
// PREDICT: %[[X:.+]] = hal.tensor.import %x "input0" : !hal.buffer_view -> tensor<1x2xf32>
// PREDICT: %[[W:.+]] = arith.constant dense<{{.+}}> : tensor<2x10xf32>
// PREDICT: %[[L:.+]] = flow.dispatch @predict_dispatch_0::@predict_dispatch_0_matmul_1x10x2_f32[%[[C1:.+]], %[[C10:.+]]](%[[X]], %[[W]]) : (tensor<1x2xf32>, tensor<2x10xf32>) -> tensor<1x10xf32>
// PREDICT: %[[MAX:.+]] = flow.dispatch @predict_dispatch_1::@predict_dispatch_1_reduction_1x10_f32[%[[C1]]](%[[L]]) : (tensor<1x10xf32>) -> tensor<f32>
// PREDICT: %[[EX:.+]] = flow.dispatch @predict_dispatch_2::@predict_dispatch_2_elementwise_broadcast_1x10_f32[%[[C1]], %[[C10]]](%[[L]], %[[MAX]]) : (tensor<1x10xf32>, tensor<f32>) -> tensor<1x10xf32>
// PREDICT: %[[SUM:.+]] = flow.dispatch @predict_dispatch_3::@predict_dispatch_3_reduction_1x10_f32[%[[C1]]](%[[EX]]) : (tensor<1x10xf32>) -> tensor<f32>
// PREDICT: %[[P:.+]] = flow.dispatch @predict_dispatch_4::@predict_dispatch_4_elementwise_broadcast_1x10_f32[%[[C1]], %[[C10]]](%[[EX]], %[[SUM]]) : (tensor<1x10xf32>, tensor<f32>) -> tensor<1x10xf32>
// PREDICT: hal.tensor.export %[[P]] "output0" : tensor<1x10xf32> -> !hal.buffer_view

// Tests that @test gives one elementwise dispatch between two flow.tensor.reshape ops, the constant passed as an operand.
// TEST: flow.executable private @test_dispatch_0 {
// TEST: flow.executable.export public @test_dispatch_0_elementwise_10_f32 workgroups(%{{.+}}: index) -> (index, index, index) {
// TEST: func.func @test_dispatch_0_elementwise_10_f32(%{{.+}}: !flow.dispatch.tensor<readonly:tensor<10xf32>>, %{{.+}}: !flow.dispatch.tensor<readonly:tensor<10xf32>>, %{{.+}}: !flow.dispatch.tensor<writeonly:tensor<10xf32>>)
// TEST-LABEL: util.func public @test(%arg0: !hal.buffer_view) -> !hal.buffer_view
// TEST: %[[IN:.+]] = hal.tensor.import %arg0 "input0" : !hal.buffer_view -> tensor<1x10xf32>
// TEST: %[[CST:.+]] = arith.constant dense<{{.+}}> : tensor<10xf32>
// TEST: %[[R:.+]] = flow.tensor.reshape %[[IN]] : tensor<1x10xf32> -> tensor<10xf32>
// TEST: %[[D:.+]] = flow.dispatch @test_dispatch_0::@test_dispatch_0_elementwise_10_f32[%{{.+}}](%[[R]], %[[CST]]) : (tensor<10xf32>, tensor<10xf32>) -> tensor<10xf32>
// TEST: %[[O:.+]] = flow.tensor.reshape %[[D]] : tensor<10xf32> -> tensor<1x10xf32>
// TEST: hal.tensor.export %[[O]] "output0" : tensor<1x10xf32> -> !hal.buffer_view
