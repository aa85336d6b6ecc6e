#!/usr/bin/env bash
# The power-loss crash-state explorer (issue 22). Runs the real Larder (several processes
# sharing one cache: installs, removals, eviction, gc, damage and repair, host state and
# captures from `larder journey`) on a real ext4 or btrfs on a loop device over a FUSE file
# (Tools/powerloss/disk/powerloss-disk.c) that logs every write, flush and mark; then builds
# crash states from that log (just before every flush, after every mark, at random points;
# each as logged, with everything since the last flush lost, and as random subsets of the
# unflushed 4 KiB sectors), mounts each (the file system replays its journal), and checks it
# through Larder's public API (Tools/powerloss/larder-powerloss).
#
#   Tools/powerloss.sh [--fs ext4|btrfs] [--states N] [--durability default|posix] [--skip-syncs]
#                      [--seed S] [--subsets K] [--expect-bad]
#   Tools/powerloss.sh --replay <reproduction folder>
#
# The last line reads `powerloss: N states on <fs> (<durability>): M bad`, naming the saved
# reproduction when M > 0 (under .build/powerloss/reproductions/; replay it with --replay).
# Exit 0 when no state is bad; with --expect-bad (the self-test, with --skip-syncs), exit 0 only
# when some are. Needs root, /dev/fuse and loop devices, and says so and fails without them.
# Everything it mounts or attaches (unique names: mktemp, losetup -f) is torn down on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /opt/swift/usr/bin/swift ] && export PATH="$PATH:/opt/swift/usr/bin"

fs=ext4 states=200 durability=default skip_syncs=0 seed=1 subsets=3 expect_bad=0 replay=""
while (($#)); do
  case "$1" in
    --fs) fs=$2; shift 2 ;;
    --states) states=$2; shift 2 ;;
    --durability) durability=$2; shift 2 ;;
    --skip-syncs) skip_syncs=1; shift ;;
    --seed) seed=$2; shift 2 ;;
    --subsets) subsets=$2; shift 2 ;;
    --expect-bad) expect_bad=1; shift ;;
    --replay) replay=$2; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "powerloss: unknown argument '$1' (see --help)" >&2; exit 64 ;;
  esac
done
case "$fs" in ext4|btrfs) ;; *) echo "powerloss: --fs is ext4 or btrfs" >&2; exit 64 ;; esac
case "$durability" in default|posix) ;; *) echo "powerloss: --durability is default or posix" >&2; exit 64 ;; esac

fail() { echo "powerloss: $*" >&2; exit 1; }
# Never skip silently: a machine that cannot run the explorer fails the run.
[ "$(id -u)" -eq 0 ] || fail "cannot run: needs root (loop devices and mounts)"
[ -c /dev/fuse ] || fail "cannot run: /dev/fuse is missing"
[ -c /dev/loop-control ] || fail "cannot run: loop devices are missing (/dev/loop-control)"
for tool in losetup mkfs.ext4 e2fsck mkfs.btrfs btrfs fusermount3 gcc pkg-config; do
  command -v "$tool" >/dev/null || fail "cannot run: $tool is missing (bash Tools/setup.sh installs it)"
done
pkg-config --exists fuse3 || fail "cannot run: libfuse3-dev is missing (bash Tools/setup.sh installs it)"

# The workload's CLI in the default (debug) build the test command makes anyway; the explorer and
# checker too unless LARDER_POWERLOSS_CONFIGURATION=release (measured: 20% less processor time
# per state, for a release build of the cache and host that takes minutes).
configuration=${LARDER_POWERLOSS_CONFIGURATION:-debug}
swift build --product larder >/dev/null
swift build -c "$configuration" --product larder-powerloss >/dev/null
bin=$(swift build --show-bin-path)
tool=$(swift build -c "$configuration" --show-bin-path)/larder-powerloss
out=.build/powerloss
mkdir -p "$out"
if [ ! -x "$out/powerloss-disk" ] || [ Tools/powerloss/disk/powerloss-disk.c -nt "$out/powerloss-disk" ]; then
  # shellcheck disable=SC2046
  gcc -O2 -Wall -Wextra -Werror -o "$out/powerloss-disk" Tools/powerloss/disk/powerloss-disk.c $(pkg-config --cflags --libs fuse3)
fi

work=$(mktemp -d /dev/shm/larder-powerloss.XXXXXX)
mounts=() loops=() daemon="" origin_run=""
cleanup() {
  set +e
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do mountpoint -q "${mounts[i]}" && umount "${mounts[i]}"; done
  for loop in "${loops[@]}"; do losetup -d "$loop" 2>/dev/null; done
  if [ -n "$daemon" ]; then
    fusermount3 -u "$work/fuse" 2>/dev/null || fusermount3 -uz "$work/fuse" 2>/dev/null
    for _ in $(seq 1 50); do kill -0 "$daemon" 2>/dev/null || break; sleep 0.1; done
    kill "$daemon" 2>/dev/null
    wait "$daemon" 2>/dev/null
  fi
  [ -n "$origin_run" ] && bash Tools/origin/origin.sh stop "$origin_run" >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 143' TERM INT
# Attaches a free loop device to a file; sets $attached (not in a subshell, so cleanup knows it).
attach() { attached=$(losetup -f --show "$1") || fail "cannot attach a loop device to $1"; loops+=("$attached"); }

size=$((32 << 20))
[ "$fs" = btrfs ] && size=$((128 << 20))

if [ -n "$replay" ]; then
  [ -f "$replay/run" ] || fail "$replay is not a reproduction folder (no run file)"
  size=$(stat -c %s "$replay/log/base.img")
  truncate -s "$size" "$work/state.img"
  mkdir "$work/state-mnt"
  mounts+=("$work/state-mnt")
  # The explorer attaches a new loop device to state.img for each state (autoclear).
  "$tool" replay "$replay" --mount "$work/state-mnt" --state-file "$work/state.img"
  exit $?
fi

# The bundles: the samples, a generated one of 300 files, and the checker's probe (never installed
# by the workload).
archives=$work/archives
mkdir -p "$archives" "$work/probe" "$work/src/generated/data" "$work/src/probe"
"$bin/larder" pack SampleBundles/onboarding SampleBundles/paywall SampleBundles/legacy-prompt -o "$archives" --level 1 >/dev/null 2>&1
printf '{"name": "generated", "include": ["data/"]}\n' >"$work/src/generated/larder.json"
echo '<!doctype html><p>generated</p>' >"$work/src/generated/index.html"
for i in $(seq 1 300); do head -c $((500 + (i * 37) % 6000)) /dev/urandom | base64 >"$work/src/generated/data/f$i.txt"; done
"$bin/larder" pack "$work/src/generated" -o "$archives" --level 1 >/dev/null 2>&1
echo '<!doctype html><p>probe</p>' >"$work/src/probe/index.html"
head -c 3000 /dev/urandom | base64 >"$work/src/probe/probe.txt"
printf '{"name": "probe", "include": ["probe.txt"]}\n' >"$work/src/probe/larder.json"
"$bin/larder" pack "$work/src/probe" -o "$work/probe" --level 1 >/dev/null 2>&1
probe=$(ls "$work"/probe/*.tar.gz)
onboarding=$(for a in "$archives"/*.tar.gz; do
  if "$bin/larder" inspect "$a" --json | grep -q '"name":"onboarding"'; then basename "$a" .tar.gz; fi
done)
[ -n "$onboarding" ] || fail "cannot find the onboarding archive"

# A local origin for `larder journey`.
key=pk_powerloss
"$bin/larder" publish "$archives/$onboarding.tar.gz" --origin "$work/site" --journey onboarding --key "$key" --refresh 900 >/dev/null
origin_run=$work/origin-run
port=$(bash Tools/origin/origin.sh start "$work/site" "$origin_run")
url="http://127.0.0.1:$port/"

# The logged disk, its file system and the cache at base.
mkdir "$work/fuse" "$work/log" "$work/mnt"
"$out/powerloss-disk" "$work/log" "$size" "$work/fuse" 2>"$work/disk.log" &
daemon=$!
for _ in $(seq 1 100); do [ -e "$work/fuse/disk.img" ] && break; sleep 0.1; done
[ -e "$work/fuse/disk.img" ] || fail "the FUSE disk did not start: $(cat "$work/disk.log")"
attach "$work/fuse/disk.img"
disk=$attached
if [ "$fs" = ext4 ]; then
  mkfs.ext4 -q -F -b 4096 -E lazy_itable_init=0,lazy_journal_init=0 "$disk"
else
  mkfs.btrfs -q -f "$disk" >/dev/null
fi
mount -t "$fs" -o commit=600 "$disk" "$work/mnt"
mounts+=("$work/mnt")
cache=$work/mnt/cache
"$tool" init --cache "$cache"
sync -f "$work/mnt"
marks=$work/fuse/marks
echo base >>"$marks"

# The workload: five processes at once on one cache.
env_vars=()
[ "$durability" = posix ] && env_vars+=(LARDER_DURABILITY=posix)
[ "$skip_syncs" = 1 ] && env_vars+=(LARDER_TEST_ONLY_SKIP_SYNCS=1)
workload() { env "${env_vars[@]}" "$tool" workload "$@" --cache "$cache" --marks "$marks" --archives "$archives"; }
journeys() {
  local i id
  for i in 1 2 3; do
    id="journey$$-$i"
    echo "begin $id journey sha256:$onboarding onboarding" >>"$marks"
    local mode=(--origin "$url")
    [ "$i" = 3 ] && mode=(--origin "$url" --offline)
    local action=prepare
    [ "$i" = 2 ] && action=present
    # A run can fail when eviction takes the bundle between its fetch and its lease; it is then
    # never acknowledged (in flight for every later crash point).
    if env "${env_vars[@]}" "$bin/larder" journey "$action" "${mode[@]}" --key "$key" --journey onboarding --cache "$cache" >"$work/journey$i.out" 2>&1; then
      echo "ack $id" >>"$marks"
    else
      echo "fail $id" >>"$marks"
      echo "powerloss: journey $action $i failed (not acknowledged): $(tail -1 "$work/journey$i.out")" >&2
    fi
  done
}
pids=()
workload installs --rounds 2 --seed "$seed" 2>"$work/installs1.err" & pids+=($!)
workload installs --rounds 2 --seed $((seed + 1)) 2>"$work/installs2.err" & pids+=($!)
workload maintenance --rounds 3 --seed $((seed + 2)) 2>"$work/maintenance.err" & pids+=($!)
workload captures --count 30 --seed $((seed + 3)) 2>"$work/captures.err" & pids+=($!)
journeys 2>"$work/journeys.err" & pids+=($!)
for pid in "${pids[@]}"; do
  wait "$pid" || { cat "$work"/*.err >&2; fail "the workload failed"; }
done
echo end >>"$marks"
umount "$work/mnt"
losetup -d "$disk"
loops=()
fusermount3 -u "$work/fuse"
wait "$daemon"
daemon=""
bash Tools/origin/origin.sh stop "$origin_run" >/dev/null
origin_run=""

# The crash states.
label=$durability
[ "$skip_syncs" = 1 ] && label="$durability, syncs skipped"
truncate -s "$size" "$work/state.img"
mkdir "$work/state-mnt"
mounts+=("$work/state-mnt")
reproduction="$PWD/$out/reproductions/$fs-$durability$([ "$skip_syncs" = 1 ] && echo -skip-syncs)-seed$seed-$(date +%Y%m%d-%H%M%S)"
# Its last line is the summary, also written to $work/summary.
"$tool" explore --log "$work/log" --archives "$archives" --probe "$probe" \
  --journey-key "$key" --journey-origin "$url" --fs "$fs" --mount "$work/state-mnt" \
  --state-file "$work/state.img" --states "$states" --seed "$seed" --subsets "$subsets" \
  --durability "$label" --reproduction "$reproduction" --summary "$work/summary"
bad=$(sed -n 's/.*: \([0-9][0-9]*\) bad.*/\1/p' "$work/summary" 2>/dev/null)
[ -n "$bad" ] || fail "the explorer did not finish"
if [ "$expect_bad" = 1 ]; then
  [ "$bad" -gt 0 ] || fail "the self-test found no bad state with syncs skipped: the explorer proves nothing"
else
  [ "$bad" -eq 0 ]
fi
