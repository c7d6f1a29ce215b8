// SPDX-License-Identifier: Apache-2.0
// IEEE 754 binary16 (FP16) to float, for code that reads FP16 tensors on the
// CPU (JSON encoding, classification) without a half-precision library.
#pragma once

#include <cmath>
#include <cstdint>

namespace inferd::core {

inline float HalfToFloat(uint16_t h) {
  const uint32_t exponent = (h >> 10) & 0x1f;
  const uint32_t mantissa = h & 0x3ffu;
  float magnitude;
  if (exponent == 0) {
    magnitude = std::ldexp(static_cast<float>(mantissa), -24);  // zero or subnormal
  } else if (exponent == 31) {
    magnitude = mantissa == 0 ? INFINITY : NAN;
  } else {
    magnitude = std::ldexp(static_cast<float>(mantissa | 0x400u), static_cast<int>(exponent) - 25);
  }
  return (h & 0x8000u) != 0 ? -magnitude : magnitude;
}

}  // namespace inferd::core
