#!/usr/bin/env bash
# Sets up a Debian machine with the Swift toolchain and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /opt/swift/usr/bin/swift ] && export PATH="$PATH:/opt/swift/usr/bin"
bash Tools/setup.sh
swift build --build-tests
swift test --skip-build
# The cache's install, crash, hostile-input and concurrency suites again on the POSIX-only
# durability path Apple platforms take (fsync per file and folder, link-based no-replace
# renames): see LarderCache's Durability.
LARDER_DURABILITY=posix swift test --skip-build \
    --filter "LarderCacheTests|CacheCrashTests|SharedCacheFetchTests|DiskFullTests|PlantedObjectCLITests"
bash Tools/test-thread-sanitizer.sh
# Every libFuzzer target for 30 s each (about 9 minutes with the build; LARDER_FUZZ_SECONDS
# runs them longer): a crash, a broken invariant, a hang or a leak fails it (Tools/fuzz.sh).
bash Tools/fuzz.sh all
