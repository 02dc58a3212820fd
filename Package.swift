// swift-tools-version: 6.1
import PackageDescription

/// A system library target for a C library found through pkg-config (or a plain `link`).
func cLibrary(_ name: String, pkgConfig: String? = nil, apt: [String]) -> Target {
  .systemLibrary(name: name, pkgConfig: pkgConfig, providers: [.apt(apt)])
}

/// Honest module boundaries (as Hummingbird does): imports are internal unless marked `public`,
/// and a member is visible only from a module the file imports.
let strictImports: [SwiftSetting] = [
  .enableUpcomingFeature("InternalImportsByDefault"), .enableUpcomingFeature("MemberImportVisibility"),
]

/// The shipped binaries link the Swift runtime and Foundation statically in release builds (half
/// the process start-up). It is a link setting only: every module compiles with the same flags
/// for the binaries and for the tests, so `make test` builds the package once (Swift Testing has
/// no static module to compile against). Compiling with `-static-stdlib` names Foundation's
/// static archives in each object; linking alone must name them, in one group as they refer to
/// each other (CLITests checks that the binaries load no Swift library).
let staticFoundation = [
  "Foundation", "FoundationXML", "_CFXMLInterface", "xml2", "FoundationInternationalization", "_FoundationICU",
  "FoundationEssentials", "_FoundationCShims", "_FoundationCollections", "CoreFoundation", "swiftSynchronization",
]
let shippedLinking: [LinkerSetting] = [
  .unsafeFlags(
    ["-static-stdlib", "-Xlinker", "--start-group"] + staticFoundation.flatMap { ["-Xlinker", "-l\($0)"] } + [
      "-Xlinker", "--end-group",
    ], .when(configuration: .release))
]

/// The ordo-one benchmark harness (`make benchmark`) and the tools its plugin builds for the host
/// (a second ArgumentParser, swift-system, atomics, numerics, …) are part of the package only when
/// `RECEIPT_BENCHMARKS` is set: `make test` and `make demo` do not compile them (about a tenth of a
/// fresh build). `receipt-bench` and the fuzz targets need nothing extra and are always built.
let withBenchmarks = Context.environment["RECEIPT_BENCHMARKS"] != nil

let package = Package(
  name: "receipt",
  platforms: [.macOS(.v14)],
  products: [
    .executable(name: "receipt", targets: ["receipt"]),
    .executable(name: "receipt-daemon", targets: ["receipt-daemon"]),
    .library(name: "ReceiptKit", targets: ["ReceiptKit"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    // Without its swift-configuration support (a trait on by default; the daemon reads serve.json itself).
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: ["FullFoundation"]),
    .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.8.0"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
    .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
    .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    // TLS on the IPP listener (`ipps://`) and its self-signed certificate; both are built for
    // postgres-nio and swift-nio-extras already.
    .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
    .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
  ],
  targets: [
    // C libraries (Debian packages; see scripts/setup.sh).
    cLibrary("CFreeType", pkgConfig: "freetype2", apt: ["libfreetype-dev"]),
    cLibrary("CHarfBuzz", pkgConfig: "harfbuzz", apt: ["libharfbuzz-dev"]),
    cLibrary("CICU", pkgConfig: "icu-uc", apt: ["libicu-dev"]),
    cLibrary("CFontconfig", pkgConfig: "fontconfig", apt: ["libfontconfig-dev"]),
    cLibrary("CCairo", pkgConfig: "cairo-ft", apt: ["libcairo2-dev"]),
    cLibrary("CCups", apt: ["libcups2-dev"]),
    cLibrary("CZint", apt: ["libzint-dev"]),
    cLibrary("CPNG", pkgConfig: "libpng16", apt: ["libpng-dev"]),
    cLibrary("CJPEG", pkgConfig: "libjpeg", apt: ["libjpeg-dev"]),
    cLibrary("CHyphen", apt: ["libhyphen-dev"]),
    // Opened with dlopen when the daemon advertises its IPP printers (no link): see its shim.h.
    cLibrary("CAvahi", apt: ["libavahi-client-dev"]),
    // Our one C file: cairo's PDF streams compressed at zlib's fastest level (see its header).
    // Linked by the executables (and the tests) only, never by a library; each checks it at
    // start-up (PDFRenderer.streamDeflateLevel).
    // DWARF 4 as Swift writes it: valgrind 3.19 (`make callgrind`) refuses clang's DWARF 5.
    .target(
      name: "CDeflateLevel", cSettings: [.unsafeFlags(["-gdwarf-4"])], linkerSettings: [.linkedLibrary("z")]),

    // The pipeline, one way: Model ← Markup (templates into the model) → Layout → Render → Print; Kit is the facade.
    .target(name: "ReceiptModel", swiftSettings: strictImports),
    .target(name: "ReceiptMarkup", dependencies: ["ReceiptModel"], swiftSettings: strictImports),
    .target(
      name: "ReceiptLayout",
      dependencies: [
        "ReceiptModel", "CFreeType", "CHarfBuzz", "CICU", "CFontconfig", "CZint", "CPNG", "CJPEG", "CHyphen",
      ],
      swiftSettings: strictImports),
    // Render draws (cairo: PDF, PNG, raster images); Print is the one home of printing: printer
    // kinds behind one protocol, their states, and the print-protocol encoders.
    .target(
      name: "ReceiptRender",
      dependencies: ["ReceiptModel", "ReceiptLayout", "CCairo", "CFreeType", "CPNG"],
      swiftSettings: strictImports),
    .target(
      name: "ReceiptPrint", dependencies: ["ReceiptModel", "ReceiptLayout", "ReceiptRender", "CCups", "CAvahi"],
      resources: [
        .embedInCode("Models/epson-tm-t88v.json"), .embedInCode("Models/epson-tm-t88vi.json"),
        .embedInCode("Models/epson-tm-t20iii.json"), .embedInCode("Models/epson-tm-m30iii.json"),
        .embedInCode("Models/star-tsp143iv.json"), .embedInCode("Models/star-mcprint3.json"),
        .embedInCode("Models/bixolon-srp-350iii.json"), .embedInCode("Models/generic-80mm.json"),
        .embedInCode("Models/generic-58mm.json"),
      ],
      swiftSettings: strictImports),
    .target(
      name: "ReceiptKit",
      dependencies: ["ReceiptModel", "ReceiptMarkup", "ReceiptLayout", "ReceiptRender", "ReceiptPrint"],
      swiftSettings: strictImports),
    .target(
      name: "ReceiptServer",
      dependencies: [
        "ReceiptKit", .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdCore", package: "hummingbird"),
        .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Logging", package: "swift-log"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "UnixSignals", package: "swift-service-lifecycle"),
        .product(name: "NIOFoundationEssentialsCompat", package: "swift-nio"),
        .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
        .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "HTTPTypes", package: "swift-http-types"), .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "PostgresNIO", package: "postgres-nio"), .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "NIOTLS", package: "swift-nio"),
        .product(name: "X509", package: "swift-certificates"), .product(name: "SwiftASN1", package: "swift-asn1"),
      ],
      // The web app (designer and queue) is compiled in: no files to install, nothing fetched.
      resources: [
        .embedInCode("Resources/openapi.yaml"), .embedInCode("Resources/web/index.html"),
        .embedInCode("Resources/web/app.js"), .embedInCode("Resources/web/app.css"),
        .embedInCode("Resources/web/favicon.svg"), .embedInCode("Resources/printer-icon-48.png"),
        .embedInCode("Resources/printer-icon-128.png"), .embedInCode("Resources/printer-icon-512.png"),
      ], swiftSettings: strictImports
    ),
    // The command line: `receipt` runs the one-shot commands and loads no daemon library;
    // `receipt serve` and `receipt design` become `receipt-daemon` (ReceiptCommandLine/DaemonLauncher).
    .target(
      name: "ReceiptCommandLine",
      dependencies: ["ReceiptKit", .product(name: "ArgumentParser", package: "swift-argument-parser")]
    ),
    .executableTarget(
      name: "receipt",
      dependencies: [
        "ReceiptKit", "ReceiptCommandLine", "CDeflateLevel",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      linkerSettings: shippedLinking
    ),
    .executableTarget(
      name: "receipt-daemon",
      dependencies: [
        "ReceiptKit", "ReceiptServer", "ReceiptCommandLine", "CDeflateLevel",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
      ],
      linkerSettings: shippedLinking
    ),

    .executableTarget(
      name: "receipt-bench",
      dependencies: ["ReceiptKit", "ReceiptLayout", "ReceiptModel", "ReceiptRender", "ReceiptPrint", "CDeflateLevel"]),
    // libFuzzer targets (`make fuzz`); without -DFUZZING it replays corpus files.
    .executableTarget(name: "receipt-fuzz", dependencies: ["ReceiptKit", "ReceiptServer"], path: "Fuzz/ReceiptFuzz"),
    .target(
      name: "ReceiptTestSupport",
      dependencies: ["ReceiptModel", .product(name: "Crypto", package: "swift-crypto")], path: "Tests/Support",
      exclude: ["roll80.conf", "pwg_reader.py", "raster_writer.py", "lsan.supp", "complete.zsh"]),
    .testTarget(name: "ReceiptModelTests", dependencies: ["ReceiptModel"]),
    .testTarget(name: "ReceiptLayoutTests", dependencies: ["ReceiptTestSupport", "ReceiptLayout", "ReceiptModel"]),
    .testTarget(
      name: "ReceiptRenderTests",
      dependencies: ["ReceiptTestSupport", "ReceiptRender", "ReceiptLayout", "ReceiptModel", "CDeflateLevel"]),
    .testTarget(
      name: "ReceiptPrintTests",
      dependencies: ["ReceiptTestSupport", "ReceiptPrint", "ReceiptRender", "ReceiptLayout", "ReceiptModel"]),
    .testTarget(
      name: "ReceiptServerTests",
      dependencies: [
        "ReceiptTestSupport", "ReceiptServer", "ReceiptKit",
        // Requests to the API in process (RouterTesting.swift): Hummingbird's own types, not the
        // HummingbirdTesting product (which compiles AsyncHTTPClient and HTTP/2 for modes not used).
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdCore", package: "hummingbird"),
        .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
        .product(name: "HTTPTypes", package: "swift-http-types"), .product(name: "Logging", package: "swift-log"),
      ]
    ),
    .testTarget(
      name: "ReceiptMarkupTests",
      dependencies: ["ReceiptTestSupport", "ReceiptMarkup", "ReceiptModel", "ReceiptLayout", "ReceiptRender"]),
    .testTarget(
      name: "ReceiptKitTests",
      dependencies: [
        "ReceiptTestSupport", "ReceiptKit", "ReceiptMarkup", "ReceiptRender", "ReceiptPrint", "ReceiptLayout",
      ]),
    // The shipped binary (release, static Swift runtime) as users run it: CLI, daemon, crashes.
    .testTarget(name: "ReceiptEndToEndTests", dependencies: ["ReceiptTestSupport", "ReceiptRender", "ReceiptPrint"]),
  ],
  swiftLanguageModes: [.v6]
)

if withBenchmarks {
  package.dependencies.append(
    .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]))
  package.targets.append(
    .executableTarget(
      name: "ReceiptBenchmarks",
      dependencies: [
        "ReceiptKit", "ReceiptLayout", "ReceiptRender", "ReceiptPrint", "CDeflateLevel",
        .product(name: "Benchmark", package: "benchmark"),
      ],
      path: "Benchmarks/ReceiptBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ))
}

// `any` spelled out for every existential, in every target (as Hummingbird does).
for target in package.targets where target.type != .system && target.type != .plugin {
  target.swiftSettings = (target.swiftSettings ?? []) + [.enableUpcomingFeature("ExistentialAny")]
}
