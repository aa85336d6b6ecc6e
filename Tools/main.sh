#!/usr/bin/env bash
# The main job on the bundled samples: build the CLI, pack every sample flow, show and verify
# what was built, then install the archives into a fresh cache and list and verify it.
# Archives land in .build/samples/, the cache in .build/samples-cache/.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /opt/swift/usr/bin/swift ] && export PATH="$PATH:/opt/swift/usr/bin"
bash Tools/setup.sh

swift build -c release --product larder >/dev/null
larder="$(swift build -c release --show-bin-path)/larder"
out=.build/samples
mkdir -p "$out"

cache=.build/samples-cache
rm -rf "$cache"
archives=()
for sample in SampleBundles/*/; do
  name=$(basename "$sample")
  echo "== pack $name"
  digest=$("$larder" pack "$sample" -o "$out" --json | sed -n 's/.*"bundleDigest":"sha256:\([0-9a-f]*\)".*/\1/p')
  "$larder" inspect "$out/$digest.tar.gz"
  "$larder" verify "$out/$digest.tar.gz"
  archives+=("$out/$digest.tar.gz")
  echo
done

echo "== install into $cache"
for archive in "${archives[@]}"; do "$larder" cache install "$archive" --cache "$cache"; done
echo
"$larder" cache ls --cache "$cache"
echo
"$larder" cache stats --cache "$cache"
"$larder" cache verify --cache "$cache"
