// SPDX-License-Identifier: Apache-2.0
// Decodes a JPEG or PNG held in memory into 8-bit interleaved RGB, with
// libjpeg(-turbo) and libpng. The format is told by the magic bytes, not by a
// name. Never throws for bad data: a corrupt or unsupported image is an error
// string.
#ifndef IMAGE_PREPROCESS_DECODE_H_
#define IMAGE_PREPROCESS_DECODE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace image_preprocess {

struct RgbImage {
  int width = 0;
  int height = 0;
  std::vector<uint8_t> pixels;  // height * width * 3, row-major, R G B
};

// Largest width or height accepted (a decompression bomb is an error, not an
// allocation of gigabytes).
inline constexpr int kMaxSide = 16384;

// Fills `image` and returns true, or returns false with `error` set. Grey
// images become R = G = B; a PNG's alpha channel is composited over black;
// 16-bit PNGs are reduced to 8 bits.
bool DecodeImage(const uint8_t* data, size_t size, RgbImage* image, std::string* error);

}  // namespace image_preprocess

#endif  // IMAGE_PREPROCESS_DECODE_H_
