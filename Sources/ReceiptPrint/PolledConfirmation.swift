/// How a printer that polls (``PrinterDelivery/polled(device:)``) said a job it fetched ended:
/// a CloudPRNT confirmation code (``init(cloudPRNTCode:)``), a Server Direct Print result.
public enum PolledConfirmation: Sendable, Equatable {
  /// It printed.
  case printed
  /// It cannot print the job as it was offered (its media, its XML): trying again cannot help.
  case refused(String)
  /// It did not print this time (paper out, a download error): the job is offered again.
  case failed(String)
}
