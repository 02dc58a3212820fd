#include <cups/cups.h>
#include <cups/ipp.h>
#include <cups/raster.h>
#include <cups/ppd.h>
#include <cups/adminutil.h>
#include <dlfcn.h>

// syncfs(2) is a GNU extension the Swift Glibc module does not declare; glibc has it.
extern int syncfs(int fd);
static inline int receipt_syncfs(int fd) { return syncfs(fd); }

// libcups is opened on first use, not linked: it brings some 30 libraries (GnuTLS, Kerberos,
// Avahi, D-Bus) whose loading and constructors cost a one-shot `receipt render` more than its
// layout does. `receipt_NAME()` returns libcups' NAME with the type its header declares (the C
// compiler checks it through __typeof__), or NULL when libcups cannot be opened. Swift calls
// them through `LibCUPS` (ReceiptPrint/CUPS/LibCUPS.swift); a new libcups function is one line
// here and one there.
static inline void *receipt_cups_library(void) { return dlopen("libcups.so.2", RTLD_NOW | RTLD_LOCAL); }

static inline const char *receipt_cups_library_error(void) {
  void *library = receipt_cups_library();
  if (library) return NULL;
  return dlerror();
}

#define RECEIPT_CUPS_FUNCTION(name)                                              \
  static inline __typeof__(name) *receipt_##name(void) {                         \
    void *library = receipt_cups_library();                                      \
    if (!library) return 0;                                                      \
    return (__typeof__(name) *)dlsym(library, #name);                            \
  }

RECEIPT_CUPS_FUNCTION(cupsAddOption)
RECEIPT_CUPS_FUNCTION(cupsCancelJob2)
RECEIPT_CUPS_FUNCTION(cupsCreateJob)
RECEIPT_CUPS_FUNCTION(cupsDoRequest)
RECEIPT_CUPS_FUNCTION(cupsFinishDocument)
RECEIPT_CUPS_FUNCTION(cupsFreeDests)
RECEIPT_CUPS_FUNCTION(cupsFreeJobs)
RECEIPT_CUPS_FUNCTION(cupsFreeOptions)
RECEIPT_CUPS_FUNCTION(cupsGetDefault2)
RECEIPT_CUPS_FUNCTION(cupsGetDests2)
RECEIPT_CUPS_FUNCTION(cupsGetDevices)
RECEIPT_CUPS_FUNCTION(cupsGetJobs2)
RECEIPT_CUPS_FUNCTION(cupsGetPPD3)
RECEIPT_CUPS_FUNCTION(cupsLastError)
RECEIPT_CUPS_FUNCTION(cupsLastErrorString)
RECEIPT_CUPS_FUNCTION(cupsRasterClose)
RECEIPT_CUPS_FUNCTION(cupsRasterInitPWGHeader)
RECEIPT_CUPS_FUNCTION(cupsRasterOpenIO)
RECEIPT_CUPS_FUNCTION(cupsRasterReadHeader2)
RECEIPT_CUPS_FUNCTION(cupsRasterReadPixels)
RECEIPT_CUPS_FUNCTION(cupsRasterWriteHeader2)
RECEIPT_CUPS_FUNCTION(cupsRasterWritePixels)
RECEIPT_CUPS_FUNCTION(cupsServer)
RECEIPT_CUPS_FUNCTION(cupsSetServer)
RECEIPT_CUPS_FUNCTION(cupsStartDocument)
RECEIPT_CUPS_FUNCTION(cupsWriteRequestData)
RECEIPT_CUPS_FUNCTION(ippAddBoolean)
RECEIPT_CUPS_FUNCTION(ippAddBooleans)
RECEIPT_CUPS_FUNCTION(ippAddCollections)
RECEIPT_CUPS_FUNCTION(ippAddDate)
RECEIPT_CUPS_FUNCTION(ippAddInteger)
RECEIPT_CUPS_FUNCTION(ippAddIntegers)
RECEIPT_CUPS_FUNCTION(ippAddOctetString)
RECEIPT_CUPS_FUNCTION(ippAddOutOfBand)
RECEIPT_CUPS_FUNCTION(ippAddRanges)
RECEIPT_CUPS_FUNCTION(ippAddResolutions)
RECEIPT_CUPS_FUNCTION(ippAddSeparator)
RECEIPT_CUPS_FUNCTION(ippAddString)
RECEIPT_CUPS_FUNCTION(ippAddStrings)
RECEIPT_CUPS_FUNCTION(ippDateToTime)
RECEIPT_CUPS_FUNCTION(ippDelete)
RECEIPT_CUPS_FUNCTION(ippErrorString)
RECEIPT_CUPS_FUNCTION(ippFindAttribute)
RECEIPT_CUPS_FUNCTION(ippFirstAttribute)
RECEIPT_CUPS_FUNCTION(ippGetBoolean)
RECEIPT_CUPS_FUNCTION(ippGetCollection)
RECEIPT_CUPS_FUNCTION(ippGetCount)
RECEIPT_CUPS_FUNCTION(ippGetDate)
RECEIPT_CUPS_FUNCTION(ippGetGroupTag)
RECEIPT_CUPS_FUNCTION(ippGetInteger)
RECEIPT_CUPS_FUNCTION(ippGetName)
RECEIPT_CUPS_FUNCTION(ippGetOctetString)
RECEIPT_CUPS_FUNCTION(ippGetOperation)
RECEIPT_CUPS_FUNCTION(ippGetRange)
RECEIPT_CUPS_FUNCTION(ippGetRequestId)
RECEIPT_CUPS_FUNCTION(ippGetResolution)
RECEIPT_CUPS_FUNCTION(ippGetStatusCode)
RECEIPT_CUPS_FUNCTION(ippGetString)
RECEIPT_CUPS_FUNCTION(ippGetValueTag)
RECEIPT_CUPS_FUNCTION(ippGetVersion)
RECEIPT_CUPS_FUNCTION(ippNew)
RECEIPT_CUPS_FUNCTION(ippNewRequest)
RECEIPT_CUPS_FUNCTION(ippNextAttribute)
RECEIPT_CUPS_FUNCTION(ippPort)
RECEIPT_CUPS_FUNCTION(ippReadIO)
RECEIPT_CUPS_FUNCTION(ippSetOctetString)
RECEIPT_CUPS_FUNCTION(ippSetOperation)
RECEIPT_CUPS_FUNCTION(ippSetRequestId)
RECEIPT_CUPS_FUNCTION(ippSetStatusCode)
RECEIPT_CUPS_FUNCTION(ippSetVersion)
RECEIPT_CUPS_FUNCTION(ippTimeToDate)
RECEIPT_CUPS_FUNCTION(ippWriteIO)
RECEIPT_CUPS_FUNCTION(pwgMediaForSize)
