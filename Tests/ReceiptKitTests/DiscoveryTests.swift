import Foundation
import ReceiptPrint
import ReceiptTestSupport
import Testing

/// `receipt printers --discover`: CUPS' backends through a real cupsd (`cupsGetDevices`), local
/// USB printer devices from a directory laid out as `/dev` and `/sys` are (no USB printer can be
/// attached here), and the model guessed from IEEE 1284 device ids.
@Suite(.serialized) struct DiscoveryTests {
  @Test func theModelIsGuessedFromTheDeviceIDExactly() {
    let models = PrinterModel.shipped
    #expect(
      DiscoveredDevice.guessModel(deviceID: "MFG:EPSON;CMD:ESC/POS;MDL:TM-T88V;CLS:PRINTER;", among: models)
        == "epson-tm-t88v")
    #expect(
      DiscoveredDevice.guessModel(deviceID: "MANUFACTURER:EPSON;COMMAND SET:ESC/POS;MODEL:TM-T88V;", among: models)
        == "epson-tm-t88v")
    #expect(DiscoveredDevice.guessModel(deviceID: "MFG:EPSON;MDL:TM-T88VI;", among: models) == "epson-tm-t88vi")
    #expect(DiscoveredDevice.guessModel(deviceID: "MFG:Star;MDL:TSP143IV;", among: models) == "star-tsp143iv")
    // A different model whose name starts the same is not taken for it.
    #expect(DiscoveredDevice.guessModel(deviceID: "MFG:EPSON;MDL:TM-T88VII;", among: models) == nil)
    #expect(DiscoveredDevice.guessModel(deviceID: "MFG:Star;MDL:TSP143IIIU;", among: models) == nil)
    #expect(DiscoveredDevice.guessModel(deviceID: "", among: models) == nil)
  }

  @Test func localUSBPrintersAreReadFromDevAndSysfs() throws {
    let root = try Tool.temporaryDirectory()
    let manager = FileManager.default
    try manager.createDirectory(at: root.appendingPathComponent("dev/usb"), withIntermediateDirectories: true)
    for name in ["lp0", "lp1", "lp10", "hiddev0", "lpx"] {
      manager.createFile(atPath: root.appendingPathComponent("dev/usb/\(name)").path, contents: nil)
    }
    let ids = [
      "lp0": "MFG:EPSON;CMD:ESC/POS;MDL:TM-T88V;CLS:PRINTER;DES:EPSON TM-T88V;\n",
      "lp1": "MFG:Custom;MDL:KUBE II;CLS:PRINTER;",
    ]
    for (name, id) in ids {
      let dir = root.appendingPathComponent("sys/class/usbmisc/\(name)/device")
      try manager.createDirectory(at: dir, withIntermediateDirectories: true)
      try id.write(to: dir.appendingPathComponent("ieee1284_id"), atomically: true, encoding: .utf8)
    }
    let devices = LocalUSBPrinters.scan(root: root, models: PrinterModel.shipped)
    #expect(devices.map(\.uri) == ["usb:/dev/usb/lp0", "usb:/dev/usb/lp1", "usb:/dev/usb/lp10"])
    #expect(devices[0].model == "epson-tm-t88v" && devices[0].makeAndModel == "EPSON TM-T88V")
    #expect(devices[0].info == "EPSON TM-T88V" && devices[0].source == "local")
    #expect(devices[1].model == nil && devices[1].makeAndModel == "Custom KUBE II")
    #expect(devices[2].deviceID == "", "a device without a readable id is still listed")
  }

  @Test func cupsBackendsAreAskedThroughTheRealServer() throws {
    let rig = try PrintRig.get()
    let devices = try CUPSClient(server: rig.server).devices(timeout: 3, models: PrinterModel.shipped)
    // cups-deviced runs every backend: the network ones answer with their generic entries.
    #expect(devices.contains { $0.uri == "socket" && $0.deviceClass == "network" }, "\(devices.map(\.uri))")
    #expect(devices.allSatisfy { $0.source == "cups" })
    // The CLI says the same (the shipped binary).
    let result = try Tool.run(
      try Tool.shippedBinary(), ["printers", "--discover", "--timeout", "3", "--json"],
      environment: ["CUPS_SERVER": rig.server])
    #expect(result.status == 0, "\(result.stderr)")
    let listed = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]] ?? []
    #expect(listed.contains { $0["uri"] as? String == "socket" })
    let bad = try Tool.run(try Tool.shippedBinary(), ["printers", "--discover", "--timeout", "0"])
    #expect(bad.status == 64 && bad.stderr.contains("--timeout"))
  }

  @Test func aCUPSWithNoQueuesIsReachedAndSaysWhatToDo() throws {
    let server = try PrintRig.emptyCUPS()
    let binary = try Tool.shippedBinary()
    let environment = ["CUPS_SERVER": server]
    let list = try Tool.run(binary, ["printers"], environment: environment)
    #expect(list.status == 0, "reached, and empty is not an error: \(list.stderr)")
    #expect(list.stdout.contains("no printers (add one with lpadmin)"))
    let json = try Tool.run(binary, ["printers", "--json"], environment: environment)
    #expect(json.status == 0)
    #expect((try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [Any])?.isEmpty == true)
    // The daemon with no printers configured serves the machine's queues; with none it says so.
    let work = try Tool.temporaryDirectory()
    let serve = try Tool.run(
      binary, ["serve", "--port", "0", "--db", work.appendingPathComponent("q.sqlite").path],
      environment: environment)
    #expect(serve.status == 65, "\(serve.stderr)")
    #expect(serve.stderr.contains("has no queues") && serve.stderr.contains("--printer NAME=TARGET"))
    #expect(serve.stderr.contains(server), "names the server it asked: \(serve.stderr)")
  }
}
