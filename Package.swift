// swift-tools-version: 6.1
import PackageDescription

/// A system library target for a C library found through pkg-config (or a plain `link`).
func cLibrary(_ name: String, pkgConfig: String? = nil, apt: [String]) -> Target {
  .systemLibrary(name: name, pkgConfig: pkgConfig, providers: [.apt(apt)])
}

let package = Package(
  name: "receipt",
  platforms: [.macOS(.v14)],
  products: [
    .executable(name: "receipt", targets: ["receipt"]),
    .library(name: "ReceiptKit", targets: ["ReceiptKit"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
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

    // The pipeline, one way: Markup → Model → Layout → Render → Print; Kit is the facade.
    .target(name: "ReceiptModel"),
    .target(name: "ReceiptMarkup", dependencies: ["ReceiptModel"]),
    .target(
      name: "ReceiptLayout",
      dependencies: ["ReceiptModel", "CFreeType", "CHarfBuzz", "CICU", "CFontconfig", "CZint"]
    ),
    .target(
      name: "ReceiptRender", dependencies: ["ReceiptModel", "ReceiptLayout", "CCairo", "CCups", "CPNG", "CJPEG"]),
    .target(name: "ReceiptPrint", dependencies: ["ReceiptModel", "ReceiptRender", "CCups"]),
    .target(
      name: "ReceiptKit",
      dependencies: ["ReceiptModel", "ReceiptMarkup", "ReceiptLayout", "ReceiptRender", "ReceiptPrint"]
    ),
    .target(name: "ReceiptServer", dependencies: ["ReceiptKit"]),
    .executableTarget(
      name: "receipt",
      dependencies: ["ReceiptKit", .product(name: "ArgumentParser", package: "swift-argument-parser")]
    ),

    .executableTarget(name: "receipt-bench", dependencies: ["ReceiptLayout", "ReceiptModel", "ReceiptRender"]),
    .executableTarget(
      name: "ReceiptBenchmarks",
      dependencies: [
        "ReceiptKit", "ReceiptLayout", "ReceiptRender", .product(name: "Benchmark", package: "benchmark"),
      ],
      path: "Benchmarks/ReceiptBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
    .target(name: "ReceiptTestSupport", path: "Tests/Support", exclude: ["roll80.conf"]),
    .testTarget(name: "ReceiptModelTests", dependencies: ["ReceiptModel"]),
    .testTarget(name: "ReceiptLayoutTests", dependencies: ["ReceiptTestSupport", "ReceiptLayout", "ReceiptModel"]),
    .testTarget(
      name: "ReceiptRenderTests",
      dependencies: ["ReceiptTestSupport", "ReceiptRender", "ReceiptLayout", "ReceiptModel"]),
    .testTarget(
      name: "ReceiptMarkupTests",
      dependencies: ["ReceiptTestSupport", "ReceiptMarkup", "ReceiptModel", "ReceiptLayout", "ReceiptRender"]),
    .testTarget(
      name: "ReceiptKitTests",
      dependencies: ["ReceiptTestSupport", "ReceiptKit", "ReceiptRender", "ReceiptPrint", "receipt"]),
  ],
  swiftLanguageModes: [.v6]
)
