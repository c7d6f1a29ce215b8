// SPDX-License-Identifier: Apache-2.0
// Resizes an RGB image with bilinear interpolation and writes it as a
// normalized float CHW tensor: out[c][y][x] = (pixel / 255 - mean[c]) / std[c].
#ifndef IMAGE_PREPROCESS_PREPROCESS_H_
#define IMAGE_PREPROCESS_PREPROCESS_H_

#include <array>

#include "decode.h"

namespace image_preprocess {

struct PreprocessOptions {
  int height = 48;  // PaddleOCR's text-direction classifier takes 3 x 48 x 192
  int width = 192;
  std::array<float, 3> mean = {0.5f, 0.5f, 0.5f};
  std::array<float, 3> std = {0.5f, 0.5f, 0.5f};
  bool bgr = false;  // channel 0 is blue (OpenCV-trained models) instead of red
};

// Writes 3 * options.height * options.width floats to `out`.
//
// Bilinear resize with half-pixel centres, the convention of OpenCV's
// INTER_LINEAR and PyTorch's align_corners=False: output pixel (x, y) samples
// the source at sx = (x + 0.5) * in_w / out_w - 0.5 (same for y), clamped to
// [0, in - 1], and mixes the 2 x 2 neighbours by their distance. No
// anti-aliasing filter is applied when shrinking (OpenCV does the same; PIL's
// resize does filter, so it differs when downscaling).
void ResizeNormalize(const RgbImage& image, const PreprocessOptions& options, float* out);

}  // namespace image_preprocess

#endif  // IMAGE_PREPROCESS_PREPROCESS_H_
