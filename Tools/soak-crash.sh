#!/usr/bin/env bash
# Longer crash soak beside the test suite's 50 rounds: kills `larder cache install` and
# `larder cache gc` with SIGKILL at random moments, then checks that the cache opens, verifies
# clean and has no staging leftovers. Usage: Tools/soak-crash.sh [rounds] (default 500).
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-500}
swift build -c release --product larder >/dev/null
larder="$(swift build -c release --show-bin-path)/larder"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Three bundles of 150 files, some shared, so installs take long enough to be interrupted.
for b in 0 1 2; do
  mkdir -p "$work/src$b/data"
  for f in $(seq 1 150); do
    if [ "$f" -le 10 ]; then name="shared$f.txt"; else name="b$b-$f.txt"; fi
    head -c 40000 /dev/urandom | base64 > "$work/src$b/data/$name"
  done
  echo '<!doctype html><p>soak</p>' > "$work/src$b/index.html"
  "$larder" pack "$work/src$b" -o "$work/archives" --level 1 >/dev/null 2>&1
done
archives=("$work"/archives/*.tar.gz)
cache="$work/cache"

for round in $(seq 1 "$rounds"); do
  archive=${archives[$((RANDOM % ${#archives[@]}))]}
  if ((round % 5 == 0)); then
    "$larder" cache evict --to 0 --cache "$cache" >/dev/null
    "$larder" cache gc --cache "$cache" >/dev/null 2>&1 &
  else
    "$larder" cache install "$archive" --cache "$cache" >/dev/null 2>&1 &
  fi
  pid=$!
  sleep "0.$(printf '%03d' $((RANDOM % 250)))"
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  "$larder" cache verify --cache "$cache" >/dev/null || { echo "round $round: verify failed"; exit 1; }
  if [ -n "$(ls -A "$cache/staging")" ]; then echo "round $round: staging not empty"; exit 1; fi
done
echo "soak: $rounds rounds, cache consistent after every kill"
