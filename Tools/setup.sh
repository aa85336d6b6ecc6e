#!/usr/bin/env bash
# Installs what Larder needs on Debian 12 when it is missing: the C libraries' -dev packages
# (WebKitGTK's for LarderWebKit among them), pkg-config, nginx (the reference origin the
# integration tests start on 127.0.0.1), GNU tar/gzip, pigz and curl (the benchmarks' reference
# tools), and Xvfb with xauth (the X server the web engine's tests and `larder render` start
# when no display is set), and web content as Debian packages it (Font Awesome 4.7, Bootstrap 4,
# jQuery UI's base theme, MathJax 2.7, the Read-the-Docs theme, the Python 3.11 docs), which the
# real-world packing tests pack, with DejaVu's and MathJax's fonts (seeds of the font fuzz
# targets), and FUSE 3 with the ext4 and btrfs tools and gcc (the power-loss explorer,
# Tools/powerloss.sh), python3-venv and moto's S3 server in /opt/larder-moto (the S3
# publishing tests, Tools/s3), with s3cmd and rclone (the references of `larder-bench publish`), and
# the accessibility stack (at-spi2-core, python3-pyatspi, dbus-daemon's dbus-run-session: the journey
# window's tests read and press it as a screen reader does, Tools/atspi), and gdb (the power-loss explorer
# saves a hung checker's thread stacks; its self-test checks that), and node-typescript with nodejs (tsc checks the page
# runtime's types, Runtime/larder.d.ts, and node reads what larder.js exports) and chromium (headless, it loads `larder preview` in the tests). Idempotent, and quiet when nothing
# is missing. Needs root or sudo only when something must be installed. The nginx package's
# own system service is never started.
set -euo pipefail

packages=(pkg-config zlib1g-dev libdeflate-dev libzstd-dev zstd bsdiff libarchive-dev libssl-dev libsqlite3-dev libcurl4-openssl-dev libglib2.0-dev libwebkit2gtk-4.1-dev xvfb xauth nginx tar gzip pigz curl openssl
  libharfbuzz-dev libwoff-dev libbrotli-dev iproute2
  fonts-font-awesome fonts-dejavu-core fonts-mathjax libjs-bootstrap4 libjs-jquery-ui-theme-base libjs-mathjax sphinx-rtd-theme-common python3-doc
  fuse3 libfuse3-dev e2fsprogs btrfs-progs gcc s3cmd rclone python3-venv zsh fish
  at-spi2-core python3-pyatspi dbus-daemon gdb
  nodejs node-typescript chromium)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  # Keep package scripts from starting system services (nginx on port 80) during the install.
  policy=/usr/sbin/policy-rc.d
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
    $sudo chmod +x "$policy"
    trap '$sudo rm -f "$policy"' EXIT
  fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# moto's standalone S3 server, which the S3 publishing tests start on 127.0.0.1 (Tools/s3), in a
# virtual environment of its own (Debian's python3 keeps pip out of the system's packages). The
# version is pinned: it is the one whose conditional writes the tests were checked against.
moto=/opt/larder-moto
if ! "$moto/bin/python" -c 'import moto.server' >/dev/null 2>&1; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo /usr/bin/python3 -m venv "$moto"
  $sudo "$moto/bin/pip" install -q --disable-pip-version-check 'moto[server]==5.2.5' >/dev/null
fi

# SwiftPM passes on only -I/-l-style flags from pkg-config and warns, on every build, about the
# -pthread and -Wl,--export-dynamic in webkit2gtk-4.1's answer. CWebKitGTK reads this copy of
# that answer without them (/usr/local/lib/pkgconfig is on pkg-config's default path); it is
# rewritten only when it differs, e.g. after a WebKitGTK upgrade.
filtered() { tr ' ' '\n' | grep -v -e '^-pthread$' -e '^-Wl,' -e '^$' | tr '\n' ' ' | sed 's/ $//'; }
pc=/usr/local/lib/pkgconfig/larder-webkit2gtk-4.1.pc
wanted="Name: larder-webkit2gtk-4.1
Description: webkit2gtk-4.1 without the flags SwiftPM refuses (written by Larder's Tools/setup.sh)
Version: $(pkg-config --modversion webkit2gtk-4.1)
Cflags: $(pkg-config --cflags webkit2gtk-4.1 | filtered)
Libs: $(pkg-config --libs webkit2gtk-4.1 | filtered)"
if [ "$(cat "$pc" 2>/dev/null)" != "$wanted" ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo mkdir -p "$(dirname "$pc")"
  printf '%s\n' "$wanted" | $sudo tee "$pc" >/dev/null
fi

# The same for gio-2.0 (LarderHost's CGIO: the network monitor), whose answer has -pthread.
pc=/usr/local/lib/pkgconfig/larder-gio-2.0.pc
wanted="Name: larder-gio-2.0
Description: gio-2.0 without the flags SwiftPM refuses (written by Larder's Tools/setup.sh)
Version: $(pkg-config --modversion gio-2.0)
Cflags: $(pkg-config --cflags gio-2.0 | filtered)
Libs: $(pkg-config --libs gio-2.0 | filtered)"
if [ "$(cat "$pc" 2>/dev/null)" != "$wanted" ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo mkdir -p "$(dirname "$pc")"
  printf '%s\n' "$wanted" | $sudo tee "$pc" >/dev/null
fi

if ! command -v swift >/dev/null 2>&1; then
  if [ -x /opt/swift/usr/bin/swift ]; then
    echo "setup: add /opt/swift/usr/bin to PATH" >&2
  else
    echo "setup: the Swift toolchain is not on PATH" >&2
  fi
  exit 1
fi
