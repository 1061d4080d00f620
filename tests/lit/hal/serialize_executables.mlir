// RUN: python -m rt opt --pass=iree-hal-materialize-interfaces --pass=iree-hal-translate-executables --pass=iree-hal-serialize-executables %s | filecheck %s
// RUN: (python -m rt opt --pass=iree-hal-serialize-executables %S/serialize_executables_bad.mlir.in 2>&1; echo "exit=$?") | filecheck %s --check-prefix=BAD

// Tests that a freshly translated executable passes unchanged.
// CHECK-LABEL: hal.executable private @ex {
// CHECK: hal.executable.binary public @llvm_cpu_object_x86_64 format("llvm-cpu-object-x86_64") metadata("{{.+}}") data(dense<"0x7F454C46{{[0-9A-F]+}}"> : vector<{{[0-9]+}}xi8>)

// Tests that a binary whose metadata is not a JSON object is rejected at the binary.
// BAD: serialize_executables_bad.mlir.in:3:5: error: hal.executable.binary @v: metadata is not a JSON object
// BAD: exit=1
module attributes {stream.affinity.default = #hal.device.affinity<@__device_0>} {
  util.global private @__device_0 = #hal.device.target<"local", [#hal.executable.target<"llvm-cpu", "llvm-cpu-object-x86_64">]> : !hal.device
  stream.executable private @ex {
    stream.executable.export public @add workgroups(%arg0: index) -> (index, index, index) {
      %x, %y, %z = flow.dispatch.workgroup_count_from_slice %arg0
      stream.return %x, %y, %z : index, index, index
    }
    builtin.module {
      func.func @add(%a: !stream.binding, %b: !stream.binding, %n32: i32, %o: !stream.binding) {
        %c0 = arith.constant 0 : index
        %n = arith.index_cast %n32 : i32 to index
        %0 = stream.binding.subspan %a[%c0] : !stream.binding -> !flow.dispatch.tensor<readonly:tensor<?xf32>>{%n}
        %1 = stream.binding.subspan %b[%c0] : !stream.binding -> !flow.dispatch.tensor<readonly:tensor<?xf32>>{%n}
        %2 = stream.binding.subspan %o[%c0] : !stream.binding -> !flow.dispatch.tensor<writeonly:tensor<?xf32>>{%n}
        %3 = flow.dispatch.tensor.load %0, offsets = [0], sizes = [%n], strides = [1] : !flow.dispatch.tensor<readonly:tensor<?xf32>>{%n} -> tensor<?xf32>
        %4 = flow.dispatch.tensor.load %1, offsets = [0], sizes = [%n], strides = [1] : !flow.dispatch.tensor<readonly:tensor<?xf32>>{%n} -> tensor<?xf32>
        %5 = tensor.empty(%n) : tensor<?xf32>
        %6 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%3, %4 : tensor<?xf32>, tensor<?xf32>) outs(%5 : tensor<?xf32>) {
        ^bb0(%in: f32, %in_0: f32, %out: f32):
          %7 = arith.addf %in, %in_0 : f32
          linalg.yield %7 : f32
        } -> tensor<?xf32>
        flow.dispatch.tensor.store %6, %2, offsets = [0], sizes = [%n], strides = [1] : tensor<?xf32> -> !flow.dispatch.tensor<writeonly:tensor<?xf32>>{%n}
        return
      }
    }
  }
}
