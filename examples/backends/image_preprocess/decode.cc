// SPDX-License-Identifier: Apache-2.0
#include "decode.h"

#include <csetjmp>
#include <cstdio>
#include <cstring>

// jpeglib.h needs FILE and size_t declared first.
#include <jpeglib.h>
// After jpeglib.h: the message codes (JWRN_JPEG_EOF).
#include <jerror.h>
#include <png.h>

namespace image_preprocess {
namespace {

bool IsJpeg(const uint8_t* data, size_t size) {
  return size >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF;
}

bool IsPng(const uint8_t* data, size_t size) {
  static constexpr uint8_t kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  return size >= sizeof(kSignature) && std::memcmp(data, kSignature, sizeof(kSignature)) == 0;
}

// libjpeg reports fatal errors through error_exit, which must not return: we
// longjmp back to DecodeJpegRows. Only trivially destructible objects live in
// the frames that the jump skips, which keeps longjmp well defined in C++.
struct JpegErrorManager {
  jpeg_error_mgr base;  // first member: libjpeg casts the pointer back and forth
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
  bool truncated;  // libjpeg only warns when the data ends early
};

void JpegErrorExit(j_common_ptr cinfo) {
  auto* manager = reinterpret_cast<JpegErrorManager*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, manager->message);
  std::longjmp(manager->jump, 1);
}

// Warnings (level -1) stay quiet, but the one for data that ends early is
// remembered: libjpeg would pad the image with grey, we call it an error.
// Other warnings (e.g. extraneous bytes between markers) are common in real
// files and harmless.
void JpegEmitMessage(j_common_ptr cinfo, int msg_level) {
  auto* manager = reinterpret_cast<JpegErrorManager*>(cinfo->err);
  if (msg_level < 0 && cinfo->err->msg_code == JWRN_JPEG_EOF) manager->truncated = true;
}

// Decodes into `pixels`, which the caller sized after the header: the two
// phases are split so that no std::vector is constructed between setjmp and
// a longjmp. Returns false with manager->message set on failure.
bool DecodeJpegRows(const uint8_t* data, size_t size, JpegErrorManager* manager,
                    jpeg_decompress_struct* cinfo, RgbImage* image, bool header_only) {
  if (setjmp(manager->jump) != 0) return false;
  if (header_only) {
    jpeg_mem_src(cinfo, data, static_cast<unsigned long>(size));
    jpeg_read_header(cinfo, TRUE);
    cinfo->out_color_space = JCS_RGB;  // libjpeg converts greyscale and YCbCr
    jpeg_start_decompress(cinfo);
    return true;
  }
  const size_t stride = static_cast<size_t>(cinfo->output_width) * 3;
  while (cinfo->output_scanline < cinfo->output_height) {
    JSAMPROW row = image->pixels.data() + cinfo->output_scanline * stride;
    jpeg_read_scanlines(cinfo, &row, 1);
  }
  jpeg_finish_decompress(cinfo);
  return true;
}

bool DecodeJpeg(const uint8_t* data, size_t size, RgbImage* image, std::string* error) {
  jpeg_decompress_struct cinfo;
  JpegErrorManager manager;
  std::memset(&manager, 0, sizeof(manager));
  cinfo.err = jpeg_std_error(&manager.base);
  manager.base.error_exit = &JpegErrorExit;
  manager.base.emit_message = &JpegEmitMessage;
  jpeg_create_decompress(&cinfo);
  bool ok = DecodeJpegRows(data, size, &manager, &cinfo, image, /*header_only=*/true);
  if (ok && (cinfo.output_components != 3 || cinfo.output_width == 0 || cinfo.output_height == 0 ||
             cinfo.output_width > kMaxSide || cinfo.output_height > kMaxSide)) {
    std::snprintf(manager.message, sizeof(manager.message),
                  "unsupported JPEG (%u x %u, %d components)", cinfo.output_width,
                  cinfo.output_height, cinfo.output_components);
    ok = false;
  }
  if (ok) {
    image->width = static_cast<int>(cinfo.output_width);
    image->height = static_cast<int>(cinfo.output_height);
    image->pixels.assign(static_cast<size_t>(image->width) * image->height * 3, 0);
    ok = DecodeJpegRows(data, size, &manager, &cinfo, image, /*header_only=*/false);
  }
  if (ok && manager.truncated) {
    std::snprintf(manager.message, sizeof(manager.message), "the data ends early (truncated)");
    ok = false;
  }
  jpeg_destroy_decompress(&cinfo);
  if (!ok) *error = std::string("invalid JPEG: ") + manager.message;
  return ok;
}

// libpng's simplified API reports errors through its return value and
// image.message, so no setjmp is needed here.
bool DecodePng(const uint8_t* data, size_t size, RgbImage* image, std::string* error) {
  png_image png;
  std::memset(&png, 0, sizeof(png));
  png.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&png, data, size)) {
    *error = std::string("invalid PNG: ") + png.message;
    return false;
  }
  if (png.width == 0 || png.height == 0 || png.width > kMaxSide || png.height > kMaxSide) {
    png_image_free(&png);
    *error =
        "unsupported PNG size " + std::to_string(png.width) + " x " + std::to_string(png.height);
    return false;
  }
  png.format = PNG_FORMAT_RGB;
  image->width = static_cast<int>(png.width);
  image->height = static_cast<int>(png.height);
  image->pixels.assign(PNG_IMAGE_SIZE(png), 0);
  const png_color black = {0, 0, 0};
  if (!png_image_finish_read(&png, &black, image->pixels.data(), 0, nullptr)) {
    *error = std::string("invalid PNG: ") + png.message;
    png_image_free(&png);
    return false;
  }
  return true;  // finish_read frees libpng's state itself
}

}  // namespace

bool DecodeImage(const uint8_t* data, size_t size, RgbImage* image, std::string* error) {
  if (IsJpeg(data, size)) return DecodeJpeg(data, size, image, error);
  if (IsPng(data, size)) return DecodePng(data, size, image, error);
  *error = "the data is neither a JPEG nor a PNG image (" + std::to_string(size) + " bytes)";
  return false;
}

}  // namespace image_preprocess
