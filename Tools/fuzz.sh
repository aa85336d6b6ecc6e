#!/usr/bin/env bash
# Fuzzes Larder's parsers with libFuzzer: Tools/fuzz.sh <target>|all [seconds] [libFuzzer flags…]
#
#   Tools/fuzz.sh all                 every target for 30 s (LARDER_FUZZ_SECONDS), as the test command does,
#                                     one per core at a time (LARDER_FUZZ_JOBS)
#   Tools/fuzz.sh manifest 600        one target for 10 minutes
#   Tools/fuzz.sh json 0 -runs=10000000   a soak of ten million inputs, no time limit
#   Tools/fuzz.sh install 0 -runs=10000000 -detect_leaks=0
#                                     a soak of the install target: its inputs of sized gzip members
#                                     end with more mallocs than frees (the inflater's threads finish
#                                     after the input returns), so libFuzzer runs each again to look
#                                     for a leak, 30% of the time; with -detect_leaks=0 LeakSanitizer
#                                     still checks the whole run when the process exits
#   Tools/fuzz.sh --list              the targets and what each checks (Tools/fuzz/larder-fuzz)
#
# It builds larder-fuzz (release, -sanitize=fuzzer,address, into .build-fuzz), writes each
# target's seed corpus into .build-fuzz/seeds/<target> (made from SampleBundles/, the web content
# Tools/setup.sh installs and hand-written cases: `larder-fuzz seeds`), and fuzzes with the
# dictionary Tools/fuzz/dictionaries/<target>.dict, keeping what it finds in
# .build-fuzz/corpus/<target> for the next run. AddressSanitizer and LeakSanitizer (the
# toolchain's runtime) are on, so a crash, a broken invariant, a leak, an input slower than
# LARDER_FUZZ_TIMEOUT seconds (10, times LARDER_TEST_TIME_SCALE), a process past
# LARDER_FUZZ_RSS_MB (2048) or one allocation past 512 MB fails the run: the input is kept in
# .build-fuzz/artifacts/<target>/ and the command that replays it is printed.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /opt/swift/usr/bin/swift ] && export PATH="$PATH:/opt/swift/usr/bin"

usage() {
    echo "usage: Tools/fuzz.sh <target>|all|--list [seconds] [libFuzzer flags...]" >&2
    exit 64
}
[ $# -ge 1 ] || usage
which="$1"
shift
seconds="${LARDER_FUZZ_SECONDS:-30}"
if [ $# -ge 1 ]; then
    seconds="$1"
    shift
fi
[[ "$seconds" =~ ^[0-9]+$ ]] || usage
scale="${LARDER_TEST_TIME_SCALE:-1}"
timeout=$(( ${LARDER_FUZZ_TIMEOUT:-10} * scale ))
rss="${LARDER_FUZZ_RSS_MB:-2048}"
scratch=.build-fuzz

log="$scratch/build.log"
mkdir -p "$scratch"
# ld.gold says it cannot export the sanitizer's local symbols, once per symbol: kept in the log.
# The C++ of CFontTools (WOFF inflating, the WOFF2 directory reader, kern remapping) is
# instrumented too (-Xcxx), for AddressSanitizer and for coverage; HarfBuzz, woff2, Brotli and
# zlib are Debian's shared libraries, not instrumented: ASan's allocator and interceptors still
# see what they do with the heap and libc's memory functions.
if ! swift build -c release --scratch-path "$scratch" --product larder-fuzz \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DLARDER_FUZZING -Xcxx -fsanitize=fuzzer-no-link,address >"$log" 2>&1; then
    grep -v "Cannot export local symbol" "$log" >&2
    echo "fuzz: the build failed (log: $log)" >&2
    exit 1
fi
grep -E "(error|warning):" "$log" | grep -v "Cannot export local symbol" >&2 || true
bin="$scratch/release/larder-fuzz"

if [ "$which" = "--list" ]; then
    "$bin" --list
    exit 0
fi
targets=$("$bin" --list | cut -d' ' -f1)
if [ "$which" = "all" ]; then
    chosen="$targets"
elif grep -qx -- "$which" <<<"$targets"; then
    chosen="$which"
else
    echo "fuzz: no target '$which'; targets: $(echo $targets)" >&2
    exit 64
fi

# The install target's cache goes in memory when there is a tmpfs: its syncfs and fsync calls
# are real there too, and cost nothing.
sandbox_parent=/dev/shm
[ -d "$sandbox_parent" ] && [ -w "$sandbox_parent" ] || sandbox_parent="${TMPDIR:-/tmp}"

export SWIFT_BACKTRACE=enable=no # libFuzzer and ASan report the crash, not Swift's backtracer
export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=0:handle_abort=1:symbolize=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
started=$(date +%s)
# Targets run side by side, one per core (LARDER_FUZZ_JOBS): each is one single-threaded process
# for its own `seconds`, so the time each target gets is unchanged and the pass takes half as
# long on two cores. A target's failure is marked in $results and its report printed whole.
jobs_at_once="${LARDER_FUZZ_JOBS:-$(nproc)}"
[[ "$jobs_at_once" =~ ^[1-9][0-9]*$ ]] || jobs_at_once=1
results=$(mktemp -d)
extra=("$@")

fuzz_one() {
    local target="$1"
    local seeds="$scratch/seeds/$target"
    local corpus="$scratch/corpus/$target"
    local artifacts="$scratch/artifacts/$target/"
    local runlog="$scratch/logs/$target.log"
    local report="$results/$target.report"
    mkdir -p "$corpus" "$artifacts" "$(dirname "$runlog")"
    # Seeds are made again when the program is newer than them (the samples or cases changed).
    if [ ! -f "$seeds/.made" ] || [ "$bin" -nt "$seeds/.made" ]; then
        rm -rf "$seeds"
        if ! "$bin" seeds "$target" "$seeds" >"$runlog" 2>&1; then
            { echo "fuzz: $target: FAILED: cannot make its seeds; log $runlog"; tail -20 "$runlog"; } >"$report"
            cat "$report" >&2
            touch "$results/$target.failed"
            return 0
        fi
        touch "$seeds/.made"
    fi
    local max_len
    max_len=$("$bin" --list | awk -v t="$target" '$1 == t { print $2 }')
    local sandbox
    sandbox=$(mktemp -d "$sandbox_parent/larder-fuzz.XXXXXX")
    local flags=(-timeout="$timeout" -rss_limit_mb="$rss" -malloc_limit_mb=512 -max_len="$max_len"
        -dict="Tools/fuzz/dictionaries/$target.dict" -artifact_prefix="$artifacts" -print_final_stats=1)
    [ "$seconds" -gt 0 ] && flags+=(-max_total_time="$seconds")
    # A watchdog past libFuzzer's own limits, in case the process itself wedges.
    local limit=$(( seconds > 0 ? seconds * 2 + 300 * scale : 86400 ))
    local status=0
    LARDER_FUZZ_SANDBOX="$sandbox" timeout --kill-after=30 "$limit" \
        "$bin" "$target" "${flags[@]}" "${extra[@]}" "$corpus" "$seeds" >"$runlog" 2>&1 || status=$?
    rm -rf "$sandbox"
    local runs rate peak files
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$runlog" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$runlog" | tail -1)
    peak=$(sed -n 's/^stat::peak_rss_mb: *//p' "$runlog" | tail -1)
    files=$(find "$corpus" -type f | wc -l)
    if [ "$status" -eq 0 ]; then
        echo "fuzz: $target: ${runs:-?} inputs, ${rate:-?}/s, corpus $files, peak RSS ${peak:-?} MB: ok"
        return 0
    fi
    touch "$results/$target.failed"
    {
        echo "fuzz: $target: FAILED (exit $status) after ${runs:-?} inputs; log $runlog"
        grep -E "^(==[0-9]+==ERROR|SUMMARY|Fatal error|.*invariant broken|ALARM|.*-timeout|MS: |artifact_prefix)" "$runlog" | head -20 || true
        local unit
        unit=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$runlog" | tail -1)
        if [ -n "$unit" ]; then echo "fuzz: replay with: SWIFT_BACKTRACE=enable=no $bin $target $unit"; fi
    } >"$report"
    cat "$report" >&2
    return 0
}

for target in $chosen; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs_at_once" ]; do wait -n || true; done
    fuzz_one "$target" &
done
wait
failed=()
for target in $chosen; do
    if [ -f "$results/$target.failed" ]; then failed+=("$target"); fi
done
rm -rf "$results"
elapsed=$(( $(date +%s) - started ))
count=$(wc -w <<<"$chosen")
if ((${#failed[@]})); then
    echo "fuzz: $count targets in $((elapsed / 60))m$((elapsed % 60))s: ${#failed[@]} FAILED: ${failed[*]}" >&2
    exit 1
fi
echo "fuzz: $count targets in $((elapsed / 60))m$((elapsed % 60))s: no crash, hang or leak"
