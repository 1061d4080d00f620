"""``stablehlo.rng_bit_generator`` (helpers/stablehlo/bit_generator.py) as JAX prints it matches the
bits XLA:CPU gives; bad states, output types and algorithms are located CompileErrors."""
import numpy as np
import pytest

import rt

#: ``jax.jit(lambda key: jax.lax.rng_bit_generator(key, (2, 3, 2), dtype=jnp.uint32,
#: algorithm=RNG_PHILOX)).lower(key).as_text()`` (JAX 0.10.2): the key goes through a
#: width-changing ``bitcast_convert`` to the ``tensor<2xui64>`` state and back
JAX_PHILOX = """
module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xui32>) -> (tensor<4xui32> {jax.result_info = "result[0]"}, tensor<2x3x2xui32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.reshape %arg0 : (tensor<4xui32>) -> tensor<2x2xui32>
    %1 = stablehlo.bitcast_convert %0 : (tensor<2x2xui32>) -> tensor<2xui64>
    %output_state, %output = stablehlo.rng_bit_generator %1, algorithm = PHILOX : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x3x2xui32>)
    %2 = stablehlo.bitcast_convert %output_state : (tensor<2xui64>) -> tensor<2x2xui32>
    %3 = stablehlo.reshape %2 : (tensor<2x2xui32>) -> tensor<4xui32>
    return %3, %output : tensor<4xui32>, tensor<2x3x2xui32>
  }
}
"""
KEY = np.array([0x12345678, 0x9ABCDEF0, 0xFFFFFFFE, 7], dtype=np.uint32)
#: what JAX returned on CPU for KEY: the counter (words 2, 3) advanced by 3 blocks, with a carry
JAX_STATE = np.array([305419896, 2596069104, 1, 8], dtype=np.uint32)
JAX_BITS = np.array([[[2514600568, 2808909667], [1597397139, 1328014116], [3448061529, 337508402]],
                     [[3842927453, 3999638770], [2994707563, 3364736552], [3146622503, 1998837911]]],
                    dtype=np.uint32)


@pytest.mark.parametrize("device", ["local-task://llvm-cpu", "local-sync://vmvx"])
def test_jax_philox_bits_and_state_match_xla_cpu(device):
    target = device.split("://")[1]
    module = rt.load(rt.compile(JAX_PHILOX, devices=[target]), devices=[device])
    state, bits = module.main(KEY)
    np.testing.assert_array_equal(np.asarray(state).view(np.uint32), JAX_STATE)
    np.testing.assert_array_equal(np.asarray(bits).view(np.uint32), JAX_BITS)


def _compile_error(body, state_type, out_type):
    text = f"""func.func @f(%s: {state_type}) -> {out_type} {{
  %0:2 = {body} : ({state_type}) -> ({state_type}, {out_type})
  return %0#1 : {out_type}
}}"""
    with pytest.raises(rt.CompileError) as info:
        rt.compile(text, devices=["vmvx"])
    return str(info.value)


def test_a_three_word_state_is_a_located_error_naming_the_forms_read():
    message = _compile_error("stablehlo.rng_bit_generator %s, algorithm = PHILOX", "tensor<3xui64>",
                             "tensor<8xui32>")
    assert "<input>:2:10: error:" in message and "tensor<2xui64>" in message and "tensor<4xi32>" in message


def test_a_float_output_is_a_located_error():
    message = _compile_error("stablehlo.rng_bit_generator %s, algorithm = THREE_FRY", "tensor<2xui64>",
                             "tensor<8xf32>")
    assert "<input>:2:10: error:" in message and "32- or 64-bit integer elements" in message


def test_an_unknown_algorithm_names_the_choices():
    message = _compile_error("stablehlo.rng_bit_generator %s, algorithm = MT19937", "tensor<2xui64>",
                             "tensor<8xui32>")
    assert "<input>:2:54: error:" in message and "DEFAULT, THREE_FRY, PHILOX" in message


def test_a_bitcast_convert_whose_shapes_do_not_fit_the_width_ratio_is_a_located_error():
    with pytest.raises(rt.CompileError) as info:
        rt.compile("""func.func @f(%a: tensor<2x3xui32>) -> tensor<2xui64> {
  %0 = stablehlo.bitcast_convert %a : (tensor<2x3xui32>) -> tensor<2xui64>
  return %0 : tensor<2xui64>
}""", devices=["vmvx"])
    assert "<input>:2:8: error:" in str(info.value) and "last dim of the width ratio" in str(info.value)
