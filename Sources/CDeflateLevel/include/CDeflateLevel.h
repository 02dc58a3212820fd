#ifndef RECEIPT_DEFLATE_LEVEL_H
#define RECEIPT_DEFLATE_LEVEL_H

/// The zlib level every stream of a PDF is compressed at: 1, zlib's fastest (Z_BEST_SPEED).
///
/// cairo 1.16 compresses each PDF stream (page content, font subsets, ToUnicode maps, images)
/// with `deflateInit(stream, Z_DEFAULT_COMPRESSION)` -- level 6 -- and has no setting for it.
/// deflate_level.c defines `deflateInit_` in the program itself, which the dynamic linker binds
/// before libz's (an executable's symbols come first in the global scope), and starts the stream
/// at this level instead. In this process only libcairo calls `deflateInit_` (libpng, libcups
/// and NIO call `deflateInit2_`, which is untouched). Level 1 makes a receipt's PDF ~2.6 %
/// larger and its writing ~15 % faster: zlib was a third of a PDF receipt's time
/// (docs/benchmarks.md).
int receipt_deflate_level(void);

#endif
