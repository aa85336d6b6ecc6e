#!/usr/bin/env bash
# Builds and runs the programs in Examples/ on the onboarding sample, as the test command does:
# packs it, runs cache-example on the archive; then publishes it to an origin folder with a
# journey document signed by a key generated for the run, and runs journey-example against
# that folder (it starts the nginx origin itself). Each must exit 0. Everything lands in
# .build/examples/.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /opt/swift/usr/bin/swift ] && export PATH="$PATH:/opt/swift/usr/bin"
for product in larder cache-example journey-example; do swift build --product "$product" >/dev/null; done
bin="$(swift build --show-bin-path)"
work=.build/examples
rm -rf "$work"
mkdir -p "$work"

digest=$("$bin/larder" pack SampleBundles/onboarding -o "$work/out" --json | sed -n 's/.*"bundleDigest":"sha256:\([0-9a-f]*\)".*/\1/p')
echo "== cache-example"
"$bin/cache-example" "$work/out/$digest.tar.gz" "$work/cache"
echo

echo "== journey-example"
"$bin/larder" keys generate publisher --out "$work/keys" >/dev/null
"$bin/larder" publish "$work/out/$digest.tar.gz" --origin "$work/origin" --journey onboarding --key pk_example \
  --sign "$work/keys/publisher.pem" >/dev/null
"$bin/journey-example" "$work/origin" "$work/keys/publisher.pub" onboarding pk_example "$work/journey"
