internal import CCups
public import Foundation

/// A printer found on the machine or the network that is not (necessarily) a queue yet: what
/// CUPS' backends report (`cupsGetDevices`: usb, dnssd, snmp, socket, …) and the local USB
/// printer devices (`/dev/usb/lp*`) with the IEEE 1284 device id the kernel read from them.
public struct DiscoveredDevice: Codable, Equatable, Sendable {
  /// Where to print: a CUPS device URI (`usb://EPSON/TM-T88V?serial=…`, `dnssd://…`,
  /// `socket://10.0.0.42:9100`) or a receipt target (`usb:/dev/usb/lp0`).
  public var uri: String
  /// `direct`, `network`, `serial` or `file` (CUPS' device classes).
  public var deviceClass: String
  /// What the backend or the device calls itself.
  public var info: String
  public var makeAndModel: String
  /// The IEEE 1284 device id (`MFG:EPSON;CMD:ESC/POS;MDL:TM-T88V;…`), empty when unknown.
  public var deviceID: String
  public var location: String
  /// `cups` (a CUPS backend found it) or `local` (a USB printer device on this machine).
  public var source: String
  /// The printer model guessed from the device id, when one is known (`epson-tm-t88v`).
  public var model: String?

  public init(
    uri: String, deviceClass: String, info: String, makeAndModel: String, deviceID: String, location: String,
    source: String, model: String? = nil
  ) {
    self.uri = uri
    self.deviceClass = deviceClass
    self.info = info
    self.makeAndModel = makeAndModel
    self.deviceID = deviceID
    self.location = location
    self.source = source
    self.model = model
  }

  /// The fields of an IEEE 1284 device id (`MFG`, `MDL`, `CMD`, …; long names folded to the
  /// short ones), upper-cased keys.
  public static func fields(ofDeviceID id: String) -> [String: String] {
    let long = ["MANUFACTURER": "MFG", "MODEL": "MDL", "COMMAND SET": "CMD", "DESCRIPTION": "DES"]
    var fields: [String: String] = [:]
    for part in id.split(separator: ";") {
      let pair = part.split(separator: ":", maxSplits: 1)
      guard pair.count == 2 else { continue }
      let key = pair[0].trimmingCharacters(in: .whitespaces).uppercased()
      fields[long[key] ?? key] = pair[1].trimmingCharacters(in: .whitespaces)
    }
    return fields
  }

  /// The known model a device id names: its manufacturer and model, letters and digits only,
  /// equal to a model's name (`EPSON` + `TM-T88V` → `epson-tm-t88v`; never `…-tm-t88vi`).
  public static func guessModel(deviceID: String, among models: [PrinterModel]) -> String? {
    let fields = fields(ofDeviceID: deviceID)
    guard let model = fields["MDL"], !model.isEmpty else { return nil }
    func squeeze(_ text: String) -> String { String(text.lowercased().filter { $0.isLetter || $0.isNumber }) }
    let candidates = [squeeze((fields["MFG"] ?? "") + model), squeeze(model)]
    return models.first { candidates.contains(squeeze($0.name)) }?.name
  }
}

/// The USB printer devices of this machine (`usblp`: `/dev/usb/lp*`), with the device id the
/// kernel read from each (`/sys/class/usbmisc/lpN/device/ieee1284_id`).
public enum LocalUSBPrinters {
  /// Scans `root` (the file system root; tests give a directory laid out the same way).
  public static func scan(root: URL = URL(fileURLWithPath: "/"), models: [PrinterModel]) -> [DiscoveredDevice] {
    let devices = root.appendingPathComponent("dev/usb")
    let names = ((try? FileManager.default.contentsOfDirectory(atPath: devices.path)) ?? [])
      .filter { $0.hasPrefix("lp") && $0.dropFirst(2).allSatisfy(\.isNumber) && $0.count > 2 }
      .sorted { Int($0.dropFirst(2)) ?? 0 < Int($1.dropFirst(2)) ?? 0 }
    return names.map { name in
      let idFile = root.appendingPathComponent("sys/class/usbmisc/\(name)/device/ieee1284_id")
      let id = ((try? String(contentsOf: idFile, encoding: .utf8)) ?? "").trimmingCharacters(
        in: .whitespacesAndNewlines)
      let fields = DiscoveredDevice.fields(ofDeviceID: id)
      let makeAndModel = [fields["MFG"], fields["MDL"]].compactMap { $0 }.joined(separator: " ")
      return DiscoveredDevice(
        uri: "usb:/dev/usb/\(name)", deviceClass: "direct", info: fields["DES"] ?? makeAndModel,
        makeAndModel: makeAndModel, deviceID: id, location: "", source: "local",
        model: DiscoveredDevice.guessModel(deviceID: id, among: models))
    }
  }
}

extension CUPSClient {
  /// What CUPS' backends find within `timeout` seconds (`cupsGetDevices`), local queues' own
  /// devices included; each with the model guessed from its device id.
  public func devices(timeout: Int, models: [PrinterModel]) throws -> [DiscoveredDevice] {
    try LibCUPS.load()
    final class Found {
      var devices: [DiscoveredDevice] = []
    }
    let found = Found()
    let status = withExtendedLifetime(found) {
      LibCUPS.cupsGetDevices(
        nil, Int32(timeout), nil, nil,
        { deviceClass, deviceID, info, makeAndModel, uri, location, context in
          func text(_ pointer: UnsafePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }
          let found = Unmanaged<Found>.fromOpaque(context!).takeUnretainedValue()
          found.devices.append(
            DiscoveredDevice(
              uri: text(uri), deviceClass: text(deviceClass), info: text(info), makeAndModel: text(makeAndModel),
              deviceID: text(deviceID), location: text(location), source: "cups"))
        }, Unmanaged.passUnretained(found).toOpaque())
    }
    guard status == IPP_STATUS_OK || status == IPP_STATUS_OK_IGNORED_OR_SUBSTITUTED else {
      throw PrintError.serverUnavailable(server: server, reason: LibCUPS.lastErrorMessage)
    }
    return found.devices.map { device in
      var device = device
      device.model = DiscoveredDevice.guessModel(deviceID: device.deviceID, among: models)
      return device
    }
  }
}
