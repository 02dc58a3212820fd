// libjpeg(-turbo) for receipt. libjpeg reports errors through error_exit, which here longjmps back
// into this C function; Swift sees only a status and the message.
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

static inline void cjpeg_error_exit(j_common_ptr info) {
  struct cjpeg_error *error = (struct cjpeg_error *)info->err;
  (*info->err->format_message)(info, error->message);
  longjmp(error->jump, 1);
}

static inline void cjpeg_ignore_message(j_common_ptr info) { (void)info; }

/// Decodes a JPEG to 8-bit gray. With `pixels` NULL it only reads the size into `width` and
/// `height`; otherwise `pixels` holds width × height bytes of that size. Returns 0, or -1 with
/// `message` filled.
static inline int cjpeg_decode_gray(const unsigned char *data, size_t length, unsigned char *pixels, int *width,
                                    int *height, char *message, size_t messageLength) {
  struct jpeg_decompress_struct info;
  struct cjpeg_error error;
  info.err = jpeg_std_error(&error.manager);
  error.manager.error_exit = cjpeg_error_exit;
  error.manager.output_message = cjpeg_ignore_message;
  error.message[0] = 0;
  if (setjmp(error.jump)) {
    jpeg_destroy_decompress(&info);
    strncpy(message, error.message, messageLength - 1);
    message[messageLength - 1] = 0;
    return -1;
  }
  jpeg_create_decompress(&info);
  jpeg_mem_src(&info, data, (unsigned long)length);
  jpeg_read_header(&info, TRUE);
  if (!pixels) {
    *width = (int)info.image_width;
    *height = (int)info.image_height;
    jpeg_destroy_decompress(&info);
    return 0;
  }
  info.out_color_space = JCS_GRAYSCALE;
  jpeg_start_decompress(&info);
  if ((int)info.output_width != *width || (int)info.output_height != *height || info.output_components != 1) {
    jpeg_destroy_decompress(&info);
    strncpy(message, "unexpected JPEG geometry", messageLength - 1);
    message[messageLength - 1] = 0;
    return -1;
  }
  while (info.output_scanline < info.output_height) {
    JSAMPROW row = pixels + (size_t)info.output_scanline * (size_t)*width;
    jpeg_read_scanlines(&info, &row, 1);
  }
  jpeg_finish_decompress(&info);
  jpeg_destroy_decompress(&info);
  return 0;
}
#endif
