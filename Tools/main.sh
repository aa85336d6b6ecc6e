#!/usr/bin/env bash
# The main job on the bundled samples: build the CLI, pack every sample flow, and show and
# verify what was built. Archives land in .build/samples/.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /opt/swift/usr/bin/swift ] && export PATH="$PATH:/opt/swift/usr/bin"
bash Tools/setup.sh

swift build -c release --product larder >/dev/null
larder="$(swift build -c release --show-bin-path)/larder"
out=.build/samples
mkdir -p "$out"

for sample in SampleBundles/*/; do
  name=$(basename "$sample")
  echo "== $name"
  digest=$("$larder" pack "$sample" -o "$out" --json | sed -n 's/.*"bundleDigest":"sha256:\([0-9a-f]*\)".*/\1/p')
  "$larder" inspect "$out/$digest.tar.gz"
  "$larder" verify "$out/$digest.tar.gz"
  echo
done
