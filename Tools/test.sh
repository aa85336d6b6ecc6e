#!/usr/bin/env bash
# Sets up a Debian machine with the Swift toolchain and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /opt/swift/usr/bin/swift ] && export PATH="$PATH:/opt/swift/usr/bin"
bash Tools/setup.sh
swift build --build-tests
# Every test at once on the machine's cores: on a slower machine than this one (CI's) the load
# made a pack-and-present of three seconds take over a minute. Watchdogs (limits meant to catch
# a hang) wait three times as long (LARDER_TEST_TIME_SCALE, see TestTimeScale.swift); what a
# test asserts is not scaled, and the ThreadSanitizer pass shows the suite holds at five.
LARDER_TEST_TIME_SCALE="${LARDER_TEST_TIME_SCALE:-3}" swift test --skip-build
# The programs in Examples/, run on the onboarding sample: each must exit 0 (Tools/examples.sh).
bash Tools/examples.sh
# The API documentation (Tools/docs.sh): every module's DocC catalog into .build/docs/<Module>/,
# any DocC warning (a broken ``Symbol`` link) failing it.
bash Tools/docs.sh
# The cache's install, crash, hostile-input and concurrency suites again on the POSIX-only
# durability path Apple platforms take (fsync per file and folder, link-based no-replace
# renames): see LarderCache's Durability.
LARDER_TEST_TIME_SCALE="${LARDER_TEST_TIME_SCALE:-3}" LARDER_DURABILITY=posix swift test --skip-build \
    --filter "LarderCacheTests|CacheCrashTests|SharedCacheFetchTests|DiskFullTests|PlantedObjectCLITests"
# The power-loss crash-state explorer (Tools/powerloss.sh): the real cache on ext4 and btrfs
# over a logged FUSE disk, both durability paths, about 1,500 ext4 and 300 btrfs crash states;
# then its self-test, which skips the cache's syncs and must find bad states. Each run fails
# when root, /dev/fuse or loop devices are missing. LARDER_POWERLOSS_SOAK=N runs N times as many.
soak=${LARDER_POWERLOSS_SOAK:-1}
# First the explorer's own waits: a checker or fsck that hangs, dies, or answers nonsense is a
# verdict within its timeout, never a stalled run.
"$(swift build --show-bin-path)/larder-powerloss" self-test-children
bash Tools/powerloss.sh --fs ext4 --states $((1000 * soak)) --seed 1
bash Tools/powerloss.sh --fs ext4 --durability posix --states $((500 * soak)) --seed 2
bash Tools/powerloss.sh --fs btrfs --states $((150 * soak)) --seed 3
bash Tools/powerloss.sh --fs btrfs --durability posix --states $((150 * soak)) --seed 4
bash Tools/powerloss.sh --fs ext4 --durability posix --skip-syncs --states 100 --seed 5 --expect-bad
bash Tools/test-thread-sanitizer.sh
# Every libFuzzer target for 30 s each, one per core at a time (about 7 minutes with the build; LARDER_FUZZ_SECONDS
# runs them longer): a crash, a broken invariant, a hang or a leak fails it (Tools/fuzz.sh).
bash Tools/fuzz.sh all
