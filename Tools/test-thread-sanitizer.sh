#!/usr/bin/env bash
# The whole suite again, built with ThreadSanitizer; fails on any report, from the test process
# or from a program a test runs (`larder`, `larder-webkit`: the instrumented builds).
#
# No race is suppressed. Synchronization's Mutex waits in futex calls TSan cannot see, which
# alone would make every access to a Mutex's value from two threads read as a race; the package
# uses Mutex only through LarderSystem's `Locked`, which tells TSan when its lock is taken and let
# go (`ThreadSanitizer` there; GLib's main loop, which is not instrumented either, is told the
# same way by LarderWebKit's executor). So a report means a real race, including an access
# made without the lock to something a lock guards, which a suppression by name would hide.
# The one suppression (Tools/tsan-suppressions.txt) is of another report type, in WebKit's own
# signal handler: JavaScriptCore's thread suspension does not restore errno.
#
# RealWorldPackTests is left out: it packs 130 MB of third-party web content through the code
# the pack and format suites already run here, and instrumented it alone takes about 6 minutes,
# most of this pass.
#
# Time limits in the tests are scaled (LARDER_TEST_TIME_SCALE): instrumented code runs several
# times slower, and a watchdog meant to catch a hang must not fire on a slow call. Reports go to
# files in a folder anyone can write (a test runs `larder` as `nobody`), so they never mix with
# the output a test checks.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /opt/swift/usr/bin/swift ] && export PATH="$PATH:/opt/swift/usr/bin"
scratch="${LARDER_TSAN_SCRATCH:-.build-tsan}"
reports=$(mktemp -d /tmp/larder-tsan.XXXXXX)
chmod 1777 "$reports"
# LARDER_THREAD_SANITIZER=1 builds the annotations in (Package.swift).
export LARDER_THREAD_SANITIZER=1
swift build --build-tests --sanitize=thread --scratch-path "$scratch"
status=0
LARDER_TEST_TIME_SCALE=5 TSAN_OPTIONS="log_path=$reports/report suppressions=$PWD/Tools/tsan-suppressions.txt" \
    swift test --skip-build --sanitize=thread --scratch-path "$scratch" --skip RealWorldPackTests || status=$?
count=$(cat "$reports"/report.* 2>/dev/null | grep -c '^WARNING: ThreadSanitizer' || true)
if [ "$count" -gt 0 ]; then
    cat "$reports"/report.* >&2
    echo "ThreadSanitizer: $count reports (above; kept in $reports)" >&2
    exit 1
fi
rm -rf "$reports"
echo "ThreadSanitizer: no reports"
exit "$status"
