/* Vectorizable f32 elementwise loops of the vmvx microkernels (contiguous rows).
 *
 * exp, log and tanh are the polynomial approximations rt's llvm-cpu backend inlines
 * (compiler/codegen/llvm_cpu/math_approximation.py: Cephes expf/logf/tanhf coefficients,
 * Cody-Waite range reduction, exponents applied by bit manipulation), written branch-free so
 * the compiler vectorizes the loops. Accuracy against the exact result (float64), measured
 * over every 97th f32 bit pattern (tests/devices/vmvx/test_vmvx_elementwise.py checks a sparser
 * sweep): exp 1.3 ulp max on normal results (subnormal results within 1 subnormal step), log
 * 0.8 ulp, tanh 1.4 ulp; exp(+inf) = inf, exp(-inf) = 0, log(+-0) = -inf, log(x < 0) = NaN,
 * tanh(+-inf) = +-1, NaN in gives NaN out. The file is built with -ffp-contract=off: no
 * multiply-add is fused, so every host computes bit-identical results (vmvx is the
 * deterministic reference device).
 *
 * Each loop is compiled three times (AVX-512F, AVX2, baseline x86-64) and picked at load by
 * the CPU (GCC target_clones), like IREE's ukernels select an architecture-specific tile
 * function. Rows may alias exactly (an in-place operand): every iteration reads its inputs
 * before it writes, and no iteration reads what another writes.
 *
 * Source: IREE runtime/src/iree/builtins/ukernel (arch-specific variants selected at run time)
 * and MLIR's math-polynomial-approximation (the same algorithms on vectors).
 */
#ifndef RT_VMVX_ELEMENTWISE_SIMD_H
#define RT_VMVX_ELEMENTWISE_SIMD_H

#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define RT_SIMD_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define RT_SIMD_CLONES
#endif

static inline float rt_bits_to_f32(int32_t bits) {
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

static inline int32_t rt_f32_to_bits(float f) {
  int32_t bits;
  memcpy(&bits, &f, sizeof bits);
  return bits;
}

static inline float rt_exp_f32(float x) {
  int nan = x != x;
  float xs = nan ? 0.0f : x;
  xs = xs < -104.0f ? -104.0f : xs;
  xs = xs > 89.0f ? 89.0f : xs;
  const float magic = 12582912.0f;
  float n = (xs * 1.44269504088896341f + magic) - magic;
  float r = xs - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * (r * r) + (r + 1.0f);
  int32_t ni = (int32_t)n;
  int32_t half = ni >> 1;
  float s1 = rt_bits_to_f32((half + 127) << 23);
  float s2 = rt_bits_to_f32((ni - half + 127) << 23);
  float result = (p * s1) * s2;
  return nan ? x : result;
}

static inline float rt_log_f32(float x) {
  int tiny = x < 1.17549435e-38f;
  float xs = tiny ? x * 8388608.0f : x;
  int32_t bits = rt_f32_to_bits(xs);
  int32_t exponent = (int32_t)((uint32_t)bits >> 23) - 126;
  exponent = tiny ? exponent - 23 : exponent;
  float m = rt_bits_to_f32((bits & (int32_t)0x807FFFFF) | 0x3F000000);
  float e = (float)exponent;
  int small = m < 0.707106781186547524f;
  e = small ? e - 1.0f : e;
  m = (small ? m + m : m) - 1.0f;
  float z = m * m;
  float p = 7.0376836292e-2f;
  p = p * m + -1.1514610310e-1f;
  p = p * m + 1.1676998740e-1f;
  p = p * m + -1.2420140846e-1f;
  p = p * m + 1.4249322787e-1f;
  p = p * m + -1.6668057665e-1f;
  p = p * m + 2.0000714765e-1f;
  p = p * m + -2.4999993993e-1f;
  p = p * m + 3.3333331174e-1f;
  float y = (p * z) * m;
  y = e * -2.12194440e-4f + y;
  y = z * -0.5f + y;
  float result = e * 0.693359375f + (m + y);
  const float inf = rt_bits_to_f32(0x7F800000);
  result = x == inf ? inf : result;
  result = x == 0.0f ? -inf : result;
  result = x < 0.0f ? rt_bits_to_f32(0x7FC00000) : result;
  return x != x ? x : result;
}

static inline float rt_tanh_f32(float x) {
  float ax = x < 0.0f ? -x : x;
  float z = x * x;
  float p = -5.70498872745e-3f;
  p = p * z + 2.06390887954e-2f;
  p = p * z + -5.37397155531e-2f;
  p = p * z + 1.33314422036e-1f;
  p = p * z + -3.33332819422e-1f;
  float small = (x * z) * p + x;
  float e = rt_exp_f32(ax + ax);
  float large = 1.0f - 2.0f / (e + 1.0f);
  large = x < 0.0f ? -large : large;
  return ax < 0.625f ? small : large;
}

/* arith.maximumf / minimumf: NaN-propagating, -0.0 < +0.0. */
static inline float rt_max_f32(float a, float b) {
  float r = a > b ? a : b;
  r = a == b ? ((rt_f32_to_bits(a) < 0) ? b : a) : r;
  r = b != b ? b : r;
  return a != a ? a : r;
}

static inline float rt_min_f32(float a, float b) {
  float r = a < b ? a : b;
  r = a == b ? ((rt_f32_to_bits(a) < 0) ? a : b) : r;
  r = b != b ? b : r;
  return a != a ? a : r;
}

#define RT_UNARY_LOOP(name, expr)                                               \
  RT_SIMD_CLONES static void name(float* o, const float* a, int64_t n) {       \
    _Pragma("GCC ivdep") for (int64_t i = 0; i < n; ++i) {                      \
      float x = a[i];                                                           \
      o[i] = (expr);                                                            \
    }                                                                           \
  }

#define RT_BINARY_LOOP(name, expr)                                                      \
  RT_SIMD_CLONES static void name(float* o, const float* a, const float* b, int64_t n) { \
    _Pragma("GCC ivdep") for (int64_t i = 0; i < n; ++i) {                              \
      float x = a[i], y = b[i];                                                         \
      o[i] = (expr);                                                                    \
    }                                                                                   \
  }

RT_UNARY_LOOP(rt_vmvx_exp_f32, rt_exp_f32(x))
RT_UNARY_LOOP(rt_vmvx_log_f32, rt_log_f32(x))
RT_UNARY_LOOP(rt_vmvx_tanh_f32, rt_tanh_f32(x))
RT_BINARY_LOOP(rt_vmvx_add_f32, x + y)
RT_BINARY_LOOP(rt_vmvx_sub_f32, x - y)
RT_BINARY_LOOP(rt_vmvx_mul_f32, x * y)
RT_BINARY_LOOP(rt_vmvx_div_f32, x / y)
RT_BINARY_LOOP(rt_vmvx_max_f32, rt_max_f32(x, y))
RT_BINARY_LOOP(rt_vmvx_min_f32, rt_min_f32(x, y))

#endif /* RT_VMVX_ELEMENTWISE_SIMD_H */
