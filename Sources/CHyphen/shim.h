#define _GNU_SOURCE 1
#include <dlfcn.h>
#include <hyphen.h>

/// The file of the libhyphen this process runs (its automaton's layout is that version's), or
/// NULL when it cannot be told.
static inline const char *receipt_hyphen_library(void) {
  Dl_info info;
  if (dladdr((void *)hnj_hyphen_load, &info) && info.dli_fname) return info.dli_fname;
  return 0;
}
