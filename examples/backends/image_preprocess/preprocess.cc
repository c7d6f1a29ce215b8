// SPDX-License-Identifier: Apache-2.0
#include "preprocess.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace image_preprocess {
namespace {

// For one axis: the two source indices and the weight of the second one for
// every destination index.
struct Taps {
  std::vector<int> lo, hi;
  std::vector<float> weight;
};

Taps ComputeTaps(int in, int out) {
  Taps taps;
  taps.lo.resize(out);
  taps.hi.resize(out);
  taps.weight.resize(out);
  const double scale = static_cast<double>(in) / out;
  for (int i = 0; i < out; ++i) {
    double src = (i + 0.5) * scale - 0.5;
    src = std::clamp(src, 0.0, static_cast<double>(in - 1));
    const int lo = static_cast<int>(std::floor(src));
    taps.lo[i] = lo;
    taps.hi[i] = std::min(lo + 1, in - 1);
    taps.weight[i] = static_cast<float>(src - lo);
  }
  return taps;
}

}  // namespace

void ResizeNormalize(const RgbImage& image, const PreprocessOptions& options, float* out) {
  const int out_h = options.height;
  const int out_w = options.width;
  const Taps ys = ComputeTaps(image.height, out_h);
  const Taps xs = ComputeTaps(image.width, out_w);
  // (v / 255 - mean) / std == v * scale + offset
  float scale[3], offset[3];
  for (int c = 0; c < 3; ++c) {
    scale[c] = 1.0f / (255.0f * options.std[c]);
    offset[c] = -options.mean[c] / options.std[c];
  }
  const size_t plane = static_cast<size_t>(out_h) * out_w;
  const size_t stride = static_cast<size_t>(image.width) * 3;
  const uint8_t* pixels = image.pixels.data();
  for (int y = 0; y < out_h; ++y) {
    const uint8_t* row0 = pixels + ys.lo[y] * stride;
    const uint8_t* row1 = pixels + ys.hi[y] * stride;
    const float wy = ys.weight[y];
    for (int x = 0; x < out_w; ++x) {
      const size_t x0 = static_cast<size_t>(xs.lo[x]) * 3;
      const size_t x1 = static_cast<size_t>(xs.hi[x]) * 3;
      const float wx = xs.weight[x];
      for (int c = 0; c < 3; ++c) {
        const float top = row0[x0 + c] + (row0[x1 + c] - row0[x0 + c]) * wx;
        const float bottom = row1[x0 + c] + (row1[x1 + c] - row1[x0 + c]) * wx;
        const float value = top + (bottom - top) * wy;
        const int channel = options.bgr ? 2 - c : c;
        out[channel * plane + static_cast<size_t>(y) * out_w + x] =
            value * scale[channel] + offset[channel];
      }
    }
  }
}

}  // namespace image_preprocess
