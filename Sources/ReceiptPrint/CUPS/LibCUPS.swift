internal import CCups

#if canImport(Glibc)
  import Glibc
#endif

/// libcups, opened the first time printing needs it rather than linked: a `render` to PDF, PNG
/// or ESC/POS never loads it and the thirty libraries it brings (GnuTLS, Kerberos, Avahi, D-Bus),
/// which cost a one-shot process more start-up time than its layout. Each function has the type
/// libcups' header declares (`Sources/CCups/shim.h`); call `LibCUPS.cupsJobs(…)` where C would call
/// `cupsJobs(…)`. Adding one: a `RECEIPT_CUPS_FUNCTION` line in the shim and a line here.
enum LibCUPS {
  /// Opens libcups, or says why it cannot be opened and how to fix that.
  static func load() throws(PrintError) {
    if let openError {
      throw .libraryMissing(
        "libcups cannot be loaded (\(openError)): printing through CUPS and PWG raster need it; install it with apt-get install libcups2"
      )
    }
  }

  /// Why libcups cannot be opened (the dynamic linker's message), nil once it is open.
  private static let openError: String? = receipt_cups_library_error().map { String(cString: $0) }

  static let cupsAddOption = function(receipt_cupsAddOption())
  static let cupsCancelJob2 = function(receipt_cupsCancelJob2())
  static let cupsCreateJob = function(receipt_cupsCreateJob())
  static let cupsDoRequest = function(receipt_cupsDoRequest())
  static let cupsFinishDocument = function(receipt_cupsFinishDocument())
  static let cupsFreeDests = function(receipt_cupsFreeDests())
  static let cupsFreeJobs = function(receipt_cupsFreeJobs())
  static let cupsFreeOptions = function(receipt_cupsFreeOptions())
  static let cupsGetDefault2 = function(receipt_cupsGetDefault2())
  static let cupsGetDests2 = function(receipt_cupsGetDests2())
  static let cupsGetDevices = function(receipt_cupsGetDevices())
  static let cupsGetJobs2 = function(receipt_cupsGetJobs2())
  static let cupsGetPPD3 = function(receipt_cupsGetPPD3())
  static let cupsLastError = function(receipt_cupsLastError())
  static let cupsLastErrorString = function(receipt_cupsLastErrorString())
  static let cupsRasterClose = function(receipt_cupsRasterClose())
  static let cupsRasterInitPWGHeader = function(receipt_cupsRasterInitPWGHeader())
  static let cupsRasterOpenIO = function(receipt_cupsRasterOpenIO())
  static let cupsRasterReadHeader2 = function(receipt_cupsRasterReadHeader2())
  static let cupsRasterReadPixels = function(receipt_cupsRasterReadPixels())
  static let cupsRasterWriteHeader2 = function(receipt_cupsRasterWriteHeader2())
  static let cupsRasterWritePixels = function(receipt_cupsRasterWritePixels())
  static let cupsServer = function(receipt_cupsServer())
  static let cupsSetServer = function(receipt_cupsSetServer())
  static let cupsStartDocument = function(receipt_cupsStartDocument())
  static let cupsWriteRequestData = function(receipt_cupsWriteRequestData())
  static let ippAddBoolean = function(receipt_ippAddBoolean())
  static let ippAddBooleans = function(receipt_ippAddBooleans())
  static let ippAddCollections = function(receipt_ippAddCollections())
  static let ippAddDate = function(receipt_ippAddDate())
  static let ippAddInteger = function(receipt_ippAddInteger())
  static let ippAddIntegers = function(receipt_ippAddIntegers())
  static let ippAddOctetString = function(receipt_ippAddOctetString())
  static let ippAddOutOfBand = function(receipt_ippAddOutOfBand())
  static let ippAddRanges = function(receipt_ippAddRanges())
  static let ippAddResolutions = function(receipt_ippAddResolutions())
  static let ippAddSeparator = function(receipt_ippAddSeparator())
  static let ippAddString = function(receipt_ippAddString())
  static let ippAddStrings = function(receipt_ippAddStrings())
  static let ippDateToTime = function(receipt_ippDateToTime())
  static let ippDelete = function(receipt_ippDelete())
  static let ippErrorString = function(receipt_ippErrorString())
  static let ippFindAttribute = function(receipt_ippFindAttribute())
  static let ippFirstAttribute = function(receipt_ippFirstAttribute())
  static let ippGetBoolean = function(receipt_ippGetBoolean())
  static let ippGetCollection = function(receipt_ippGetCollection())
  static let ippGetCount = function(receipt_ippGetCount())
  static let ippGetDate = function(receipt_ippGetDate())
  static let ippGetGroupTag = function(receipt_ippGetGroupTag())
  static let ippGetInteger = function(receipt_ippGetInteger())
  static let ippGetName = function(receipt_ippGetName())
  static let ippGetOctetString = function(receipt_ippGetOctetString())
  static let ippGetOperation = function(receipt_ippGetOperation())
  static let ippGetRange = function(receipt_ippGetRange())
  static let ippGetRequestId = function(receipt_ippGetRequestId())
  static let ippGetResolution = function(receipt_ippGetResolution())
  static let ippGetStatusCode = function(receipt_ippGetStatusCode())
  static let ippGetString = function(receipt_ippGetString())
  static let ippGetValueTag = function(receipt_ippGetValueTag())
  static let ippGetVersion = function(receipt_ippGetVersion())
  static let ippNew = function(receipt_ippNew())
  static let ippNewRequest = function(receipt_ippNewRequest())
  static let ippNextAttribute = function(receipt_ippNextAttribute())
  static let ippPort = function(receipt_ippPort())
  static let ippReadIO = function(receipt_ippReadIO())
  static let ippSetOctetString = function(receipt_ippSetOctetString())
  static let ippSetOperation = function(receipt_ippSetOperation())
  static let ippSetRequestId = function(receipt_ippSetRequestId())
  static let ippSetStatusCode = function(receipt_ippSetStatusCode())
  static let ippSetVersion = function(receipt_ippSetVersion())
  static let ippTimeToDate = function(receipt_ippTimeToDate())
  static let ippWriteIO = function(receipt_ippWriteIO())
  static let pwgMediaForSize = function(receipt_pwgMediaForSize())

  /// A function of the opened library. libcups missing is a broken installation: without it the
  /// binary used not to start at all; now only the commands that print stop, with the fix.
  private static func function<F>(_ pointer: F?) -> F {
    if let pointer { return pointer }
    var message = "the installed libcups lacks a function receipt needs; install libcups2 2.4 or later"
    do {
      try load()
    } catch {
      message = error.description
    }
    let line = Array("receipt: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(69)
  }

  /// libcups' message for the last failed call of this thread.
  static var lastErrorMessage: String {
    LibCUPS.cupsLastErrorString().map { String(cString: $0) } ?? "unknown CUPS error"
  }
}
