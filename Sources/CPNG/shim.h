// libpng for receipt. libpng reports errors by longjmp, which must never cross Swift frames, so the
// whole write happens in this C function under its own setjmp; Swift sees only a status code.
#ifndef CPNG_SHIM_H
#define CPNG_SHIM_H
#include <png.h>
#include <setjmp.h>
#include <stddef.h>
#include <string.h>

typedef void (*cpng_write_fn)(void *context, const unsigned char *bytes, size_t length);

struct cpng_sink {
  cpng_write_fn write;
  void *context;
};

static inline void cpng_write_data(png_structp png, png_bytep data, png_size_t length) {
  struct cpng_sink *sink = (struct cpng_sink *)png_get_io_ptr(png);
  sink->write(sink->context, data, length);
}

static inline void cpng_flush(png_structp png) { (void)png; }

/// Writes a grayscale PNG (bit depth 1 or 8) whose rows are `stride` bytes apart; for depth 1 the
/// rows are MSB-first. Returns 0 on success, -1 if libpng failed.
static inline int cpng_write_gray(const unsigned char *pixels, int width, int height, int depth, int stride,
                                  int dpi, cpng_write_fn write, void *context) {
  struct cpng_sink sink = {write, context};
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
  if (!png) return -1;
  png_infop info = png_create_info_struct(png);
  if (!info) {
    png_destroy_write_struct(&png, NULL);
    return -1;
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return -1;
  }
  png_set_write_fn(png, &sink, cpng_write_data, cpng_flush);
  png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, depth, PNG_COLOR_TYPE_GRAY, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_uint_32 perMetre = (png_uint_32)(dpi / 0.0254 + 0.5);
  png_set_pHYs(png, info, perMetre, perMetre, PNG_RESOLUTION_METER);
  // Receipts are mostly white: zlib level 3 takes half the time of the default 6 for ~1.5% more bytes.
  png_set_compression_level(png, 3);
  png_write_info(png, info);
  for (int y = 0; y < height; y++) png_write_row(png, (png_const_bytep)(pixels + (size_t)y * (size_t)stride));
  png_write_end(png, NULL);
  png_destroy_write_struct(&png, &info);
  return 0;
}

/// Reads a PNG's size from its header with libpng's simplified API (no pixels decoded).
/// Returns 0, or -1 with `message` filled.
static inline int cpng_read_size(const unsigned char *data, size_t length, int *width, int *height, char *message,
                                 size_t messageLength) {
  png_image image;
  memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&image, data, length)) {
    strncpy(message, image.message, messageLength - 1);
    message[messageLength - 1] = 0;
    png_image_free(&image);
    return -1;
  }
  *width = (int)image.width;
  *height = (int)image.height;
  png_image_free(&image);
  return 0;
}

/// Decodes a PNG to 8-bit gray (sRGB), alpha composited over white paper, into `pixels`
/// (width × height bytes). The header is read again and must give the expected size, so the
/// buffer always fits. Returns 0, or -1 with `message` filled.
static inline int cpng_decode_gray(const unsigned char *data, size_t length, unsigned char *pixels, int width,
                                   int height, char *message, size_t messageLength) {
  png_image image;
  memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&image, data, length)) goto fail;
  if ((int)image.width != width || (int)image.height != height) {
    strncpy(message, "the PNG header changed between reads", messageLength - 1);
    message[messageLength - 1] = 0;
    png_image_free(&image);
    return -1;
  }
  image.format = PNG_FORMAT_GRAY;
  png_color white = {255, 255, 255};
  if (!png_image_finish_read(&image, &white, pixels, 0, NULL)) goto fail;
  return 0;
fail:
  strncpy(message, image.message, messageLength - 1);
  message[messageLength - 1] = 0;
  png_image_free(&image);
  return -1;
}

/// libpng's version string.
static inline const char *cpng_version(void) { return png_get_libpng_ver(NULL); }
#endif
