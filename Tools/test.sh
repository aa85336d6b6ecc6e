#!/usr/bin/env bash
# Sets up a Debian machine with the Swift toolchain and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /opt/swift/usr/bin/swift ] && export PATH="$PATH:/opt/swift/usr/bin"
bash Tools/setup.sh
swift build --build-tests
swift test --skip-build
