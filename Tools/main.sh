#!/usr/bin/env bash
# The main job on the bundled samples: build the CLI, pack every sample flow, show and verify
# what was built, publish the archives to a local origin served by nginx on 127.0.0.1, fetch
# them over HTTP into a fresh cache (only what the cache lacks), and list and verify it; then
# prepare and present the onboarding journey with the host (headless) from the origin, stop the
# origin and prepare it again offline from the cache, and show the journey's stored status. The
# journey document is signed with a key generated for the run, and the host trusts only it.
# Every sample is also rendered in the web engine (WebKitGTK; Xvfb when there is no display)
# to a PNG next to its archive, and the journey is presented once more in the engine.
# Archives and screenshots land in .build/samples/, the origin in .build/samples-origin/, the
# cache in .build/samples-cache/.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /opt/swift/usr/bin/swift ] && export PATH="$PATH:/opt/swift/usr/bin"
bash Tools/setup.sh

swift build -c release --product larder >/dev/null
# `larder render` and `larder journey --renderer webkit` run in larder-webkit, built beside it.
swift build -c release --product larder-webkit >/dev/null
larder="$(swift build -c release --show-bin-path)/larder"
out=.build/samples
mkdir -p "$out"

cache=.build/samples-cache
origin=.build/samples-origin
run=.build/samples-origin-run
keys=.build/samples-keys
rm -rf "$cache" "$origin" "$keys"
archives=()
digests=()
for sample in SampleBundles/*/; do
  name=$(basename "$sample")
  echo "== pack $name"
  digest=$("$larder" pack "$sample" -o "$out" --json | sed -n 's/.*"bundleDigest":"sha256:\([0-9a-f]*\)".*/\1/p')
  "$larder" inspect "$out/$digest.tar.gz"
  "$larder" verify "$out/$digest.tar.gz"
  echo "== render $name"
  "$larder" render "$out/$digest.tar.gz" --screenshot "$out/$digest.png"
  echo "screenshot of $name: $out/$digest.png"
  archives+=("$out/$digest.tar.gz")
  digests+=("$digest")
  if [ "$name" = onboarding ]; then onboarding="$out/$digest.tar.gz"; fi
  echo
done

echo "== publish to $origin"
# One publish: --journey points at the last archive, so onboarding's goes last.
others=()
for archive in "${archives[@]}"; do [ "$archive" = "$onboarding" ] || others+=("$archive"); done
"$larder" keys generate publisher --out "$keys"
"$larder" publish "${others[@]}" "$onboarding" --origin "$origin" --journey onboarding --key pk_sample_key \
  --sign "$keys/publisher.pem"
port=$(bash Tools/origin/origin.sh start "$PWD/$origin" "$PWD/$run")
trap 'bash Tools/origin/origin.sh stop "$PWD/$run"' EXIT
echo "origin: http://127.0.0.1:$port/"
echo "journey document: $(curl -s -H 'X-Larder-Key: pk_sample_key' "http://127.0.0.1:$port/journeys/onboarding.json")"
echo "without a key: HTTP $(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/journeys/onboarding.json")"
echo

echo "== fetch into $cache"
for digest in "${digests[@]}"; do "$larder" cache fetch "$digest" --origin "http://127.0.0.1:$port/" --cache "$cache"; done
echo
"$larder" cache ls --cache "$cache"
echo
"$larder" cache stats --cache "$cache"
"$larder" cache verify --cache "$cache"
echo

# The --origin URL is part of the journey's scope: the same one in every call.
journey=(--origin "http://127.0.0.1:$port/" --key pk_sample_key --journey onboarding --cache "$cache" --trust "$keys/publisher.pub")
echo "== journey prepare (online)"
"$larder" journey prepare "${journey[@]}"
echo
echo "== journey present"
"$larder" journey present "${journey[@]}"
echo
echo "== journey present (web engine)"
"$larder" journey present "${journey[@]}" --renderer webkit --screenshot "$out/journey-onboarding.png"
echo "screenshot of the presented journey: $out/journey-onboarding.png"
echo
bash Tools/origin/origin.sh stop "$PWD/$run"
trap - EXIT
# A new process needs fresh authorisation, so offline the cached revision is served stale.
echo "== journey prepare (offline, origin stopped)"
"$larder" journey prepare "${journey[@]}" --offline
echo
echo "== journey status"
"$larder" journey status "${journey[@]}"
