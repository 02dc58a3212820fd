internal import CCairo

/// Versions of the C libraries the renderers run on, read from the libraries at run time.
public enum RenderLibraries {
  /// cairo's version, from `cairo_version_string`.
  public static var cairo: String { String(cString: cairo_version_string()) }
}
