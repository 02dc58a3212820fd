// libjpeg(-turbo) for receipt. libjpeg reports errors through error_exit, which here longjmps back
// into these C functions; Swift sees only a status and the message.
#ifndef CJPEG_SHIM_H
#define CJPEG_SHIM_H
#include <stddef.h>
#include <stdio.h>
#include <setjmp.h>
#include <string.h>
#include <jpeglib.h>

struct cjpeg_error {
  struct jpeg_error_mgr manager;
  jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

struct cjpeg_progress {
  struct jpeg_progress_mgr manager;
  int max_scans;
};

static inline void cjpeg_error_exit(j_common_ptr info) {
  struct cjpeg_error *error = (struct cjpeg_error *)info->err;
  (*info->err->format_message)(info, error->message);
  longjmp(error->jump, 1);
}

static inline void cjpeg_ignore_message(j_common_ptr info) { (void)info; }

/// Stops progressive JPEGs with absurd scan counts (a few KB can otherwise take minutes).
static inline void cjpeg_progress_monitor(j_common_ptr info) {
  struct cjpeg_progress *progress = (struct cjpeg_progress *)info->progress;
  if (info->is_decompressor) {
    j_decompress_ptr d = (j_decompress_ptr)info;
    if (d->input_scan_number > progress->max_scans) {
      struct cjpeg_error *error = (struct cjpeg_error *)info->err;
      snprintf(error->message, sizeof error->message, "more than %d progressive scans", progress->max_scans);
      longjmp(error->jump, 1);
    }
  }
}

static inline void cjpeg_copy_message(const char *from, char *message, size_t messageLength) {
  strncpy(message, from, messageLength - 1);
  message[messageLength - 1] = 0;
}

/// Reads a JPEG's size from its header with libjpeg (no pixels decoded). Returns 0, or -1 with
/// `message` filled.
static inline int cjpeg_read_size(const unsigned char *data, size_t length, int *width, int *height, char *message,
                                  size_t messageLength) {
  struct jpeg_decompress_struct info;
  struct cjpeg_error error;
  info.err = jpeg_std_error(&error.manager);
  error.manager.error_exit = cjpeg_error_exit;
  error.manager.output_message = cjpeg_ignore_message;
  error.message[0] = 0;
  if (setjmp(error.jump)) {
    jpeg_destroy_decompress(&info);
    cjpeg_copy_message(error.message, message, messageLength);
    return -1;
  }
  jpeg_create_decompress(&info);
  jpeg_mem_src(&info, data, (unsigned long)length);
  jpeg_read_header(&info, TRUE);
  *width = (int)info.image_width;
  *height = (int)info.image_height;
  jpeg_destroy_decompress(&info);
  return 0;
}

/// Decodes a JPEG to 8-bit gray into `pixels` (width × height bytes). The header is read again
/// and must give the expected size, so the buffer always fits; libjpeg's working memory is
/// capped at `max_memory` bytes and progressive files at `max_scans` scans. Returns 0, or -1
/// with `message` filled.
static inline int cjpeg_decode_gray(const unsigned char *data, size_t length, unsigned char *pixels, int width,
                                    int height, long max_memory, int max_scans, char *message, size_t messageLength) {
  struct jpeg_decompress_struct info;
  struct cjpeg_error error;
  struct cjpeg_progress progress;
  info.err = jpeg_std_error(&error.manager);
  error.manager.error_exit = cjpeg_error_exit;
  error.manager.output_message = cjpeg_ignore_message;
  error.message[0] = 0;
  if (setjmp(error.jump)) {
    jpeg_destroy_decompress(&info);
    cjpeg_copy_message(error.message, message, messageLength);
    return -1;
  }
  jpeg_create_decompress(&info);
  info.mem->max_memory_to_use = max_memory;
  progress.manager.progress_monitor = cjpeg_progress_monitor;
  progress.max_scans = max_scans;
  info.progress = &progress.manager;
  jpeg_mem_src(&info, data, (unsigned long)length);
  jpeg_read_header(&info, TRUE);
  if ((int)info.image_width != width || (int)info.image_height != height) {
    jpeg_destroy_decompress(&info);
    cjpeg_copy_message("the JPEG header changed between reads", message, messageLength);
    return -1;
  }
  info.out_color_space = JCS_GRAYSCALE;
  jpeg_start_decompress(&info);
  if ((int)info.output_width != width || (int)info.output_height != height || info.output_components != 1) {
    jpeg_destroy_decompress(&info);
    cjpeg_copy_message("unexpected JPEG geometry", message, messageLength);
    return -1;
  }
  while (info.output_scanline < info.output_height) {
    JSAMPROW row = pixels + (size_t)info.output_scanline * (size_t)width;
    jpeg_read_scanlines(&info, &row, 1);
  }
  jpeg_finish_decompress(&info);
  jpeg_destroy_decompress(&info);
  return 0;
}
#endif
