#!/usr/bin/env bash
# Installs the Debian packages receipt needs, only those that are missing.
#   scripts/setup.sh          build + run (libraries, headers, fonts)
#   scripts/setup.sh --test   also the tools the tests use (poppler, zbar, cups, ippeveprinter, …)
# Idempotent: a second run installs nothing and says so.
set -euo pipefail

runtime=(
  pkg-config
  libfreetype-dev libharfbuzz-dev libicu-dev libfontconfig-dev libcairo2-dev
  libcups2-dev libzint-dev libpng-dev libjpeg-dev libhyphen-dev hyphen-de hyphen-fr hyphen-en-us zlib1g-dev
  libavahi-client-dev poppler-utils
  fonts-dejavu-core fonts-wqy-microhei fonts-noto-color-emoji fonts-symbola
  fonts-tlwg-garuda-ttf
)
testing=(
  zbar-tools cups cups-ipp-utils avahi-daemon avahi-utils dbus curl pango1.0-tools netpbm strace libharfbuzz-bin
  chromium chromium-driver python3-selenium postgresql time wngerman wfrench wamerican
  debhelper dpkg-dev lintian zsh msmtp openssl
)

if ! command -v swift >/dev/null && [[ ! -x /opt/swift/usr/bin/swift ]]; then
  echo "setup: Swift 6 is not installed (expected 'swift' on PATH or /opt/swift); install a Swift 6 toolchain first." >&2
  exit 1
fi

wanted=("${runtime[@]}")
if [[ "${1:-}" == "--test" ]]; then wanted+=("${testing[@]}"); fi

missing=()
for pkg in "${wanted[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
  [[ "$status" == "installed" ]] || missing+=("$pkg")
done

python_tools() {
  # zxing-cpp decodes the 2D symbologies zbar cannot (PDF417, DataMatrix, Aztec) in the tests;
  # schemathesis and openapi-spec-validator check the daemon against its OpenAPI contract;
  # python-escpos is an independent ESC/POS encoder to compare bytes with; pyipp is Home
  # Assistant's IPP client; Babel is CLDR's currency digits and formats (the oracle of `money`);
  # aiosmtpd is the SMTP server e-receipts are delivered to.
  if [[ "${1:-}" == "--test" ]] &&
    ! python3 -c "import zxingcpp, numpy, schemathesis, openapi_spec_validator, escpos, pyphen, hyphen, pyipp, babel, aiosmtpd" 2>/dev/null; then
    echo "setup: installing Python test tools: zxing-cpp numpy schemathesis openapi-spec-validator python-escpos pyphen pyhyphen pyipp babel aiosmtpd"
    PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet --disable-pip-version-check \
      zxing-cpp numpy "schemathesis==4.32.5" "openapi-spec-validator>=0.7" "python-escpos==3.1" "pyphen==0.18.1" \
      "pyhyphen==4.0.4" "pyipp==0.17.2" "babel==2.19.0" "aiosmtpd==1.4.6"
  fi
}

if ((${#missing[@]} == 0)); then
  echo "setup: all ${#wanted[@]} Debian packages already installed."
  python_tools "${1:-}"
  exit 0
fi

echo "setup: installing ${#missing[@]} missing Debian package(s): ${missing[*]}"
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null; then sudo=(sudo); else
    echo "setup: need root to install packages (run as root or install sudo)." >&2
    exit 1
  fi
else
  sudo=()
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
python_tools "${1:-}"
echo "setup: done."
