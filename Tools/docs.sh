#!/usr/bin/env bash
# Builds the API documentation: one DocC catalog per library module
# (Sources/<Module>/<Module>.docc) into a static site per module, .build/docs/<Module>/ (each
# with an index.html, served under /<Module>/). Uses the toolchain's `docc`, no plugin: the
# library products are built once with symbol graphs into .build-docs (a scratch path of their
# own, so the main .build keeps its flags), then each module's catalog is converted with its
# own graphs only. A broken ``Symbol`` link, a missing doc comment target or any other DocC
# warning fails the run (--warnings-as-errors).
#
#   Tools/docs.sh [Module ...]     (default: every library module)
# View: python3 -m http.server --bind 127.0.0.1 -d .build/docs, then
# http://127.0.0.1:8000/<Module>/documentation/<module lowercased>/
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /opt/swift/usr/bin/swift ] && export PATH="$PATH:/opt/swift/usr/bin"

modules=("$@")
if [ ${#modules[@]} -eq 0 ]; then
    modules=(LarderFormat LarderPack LarderPublish LarderCache LarderTransport LarderFetch LarderHost LarderS3 LarderRendering LarderWebKit LarderJourneyView)
fi

scratch=.build-docs
graphs="$PWD/$scratch/symbol-graphs"
# Kept between runs: an incremental build writes the graphs only of the modules it compiles.
mkdir -p "$graphs"
# Three targets reach every library module: LarderJourneyView (WebKit, Rendering, Host,
# Fetch, Transport, Cache, Format), LarderS3 (Publish) and LarderPack.
for target in LarderJourneyView LarderS3 LarderPack; do
    swift build --scratch-path "$scratch" --target "$target" \
        -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$graphs" \
        -Xswiftc -symbol-graph-minimum-access-level -Xswiftc public >"$scratch/build-$target.log" 2>&1 || {
            cat "$scratch/build-$target.log" >&2
            exit 1
        }
    grep "warning:" "$scratch/build-$target.log" >&2 || true
done

out=.build/docs
mkdir -p "$out"
for module in "${modules[@]}"; do
    catalog="Sources/$module/$module.docc"
    [ -d "$catalog" ] || { echo "docs.sh: no catalog $catalog" >&2; exit 1; }
    own="$PWD/$scratch/module-graphs/$module"
    rm -rf "$own"
    mkdir -p "$own"
    # The module's graph and its extensions of other modules' types (<Module>@<Other>), less
    # the symbols of a module it re-exports (LarderWebKit's LarderRendering), which that
    # module's own catalog documents.
    for graph in "$graphs/$module.symbols.json" "$graphs/$module"@*.symbols.json; do
        [ -f "$graph" ] || continue
        python3 - "$graph" "$own/$(basename "$graph")" "/Sources/$module/" <<'PY'
import json, sys
source, target, folder = sys.argv[1:]
graph = json.load(open(source))
kept = [s for s in graph["symbols"] if "location" not in s or folder in s["location"]["uri"]]
ids = {s["identifier"]["precise"] for s in kept}
graph["symbols"] = kept
graph["relationships"] = [r for r in graph["relationships"] if r["source"] in ids]
json.dump(graph, open(target, "w"))
PY
    done
    lower=$(echo "$module" | tr '[:upper:]' '[:lower:]')
    rm -rf "${out:?}/$module"
    docc convert "$catalog" \
        --additional-symbol-graph-dir "$own" \
        --fallback-display-name "$module" \
        --fallback-bundle-identifier "org.larder.$lower" \
        --warnings-as-errors \
        --transform-for-static-hosting \
        --hosting-base-path "$module" \
        --output-path "$out/$module" >"$scratch/docc-$module.log" 2>&1 || {
            cat "$scratch/docc-$module.log" >&2
            echo "docs.sh: $module's documentation has errors (above)" >&2
            exit 1
        }
    [ -f "$out/$module/index.html" ] || { echo "docs.sh: $out/$module/index.html missing" >&2; exit 1; }
    echo "$module: $out/$module/documentation/$lower/"
done
