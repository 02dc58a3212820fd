// See include/CDeflateLevel.h: why the program defines zlib's `deflateInit_`.
#include <zlib.h>

#include "CDeflateLevel.h"

enum { kReceiptDeflateLevel = Z_BEST_SPEED, kZlibDefaultMemLevel = 8 };

int receipt_deflate_level(void) { return kReceiptDeflateLevel; }

// zlib's own deflateInit_ is deflateInit2_ with MAX_WBITS, DEF_MEM_LEVEL (8) and the default
// strategy (deflate.c); only the level asked for by default changes. An explicit level is kept.
int deflateInit_(z_streamp strm, int level, const char *version, int stream_size) {
  int chosen = level == Z_DEFAULT_COMPRESSION ? kReceiptDeflateLevel : level;
  return deflateInit2_(strm, chosen, Z_DEFLATED, MAX_WBITS, kZlibDefaultMemLevel, Z_DEFAULT_STRATEGY, version,
                       stream_size);
}
