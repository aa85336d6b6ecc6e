/// The EXAMPLES section of each command's help, by the command's name (``CommandSpec/name``):
/// command lines to copy, on the bundled samples where they need a source. A line starting
/// with `#` says what the next ones do.
enum CommandExamples {
    static let origin = "--origin http://127.0.0.1:8080 --key pk_live_onboarding --journey onboarding"

    static let all: [String: [String]] = [
        "": [
            "larder pack SampleBundles/onboarding -o out/",
            "larder help cache verify",
            "# Completion for bash (zsh and fish alike: the script goes where the shell reads completions)",
            "larder --generate-completion-script bash > ~/.local/share/bash-completion/completions/larder",
        ],
        "pack": [
            "larder pack SampleBundles/onboarding -o out/",
            "# Fail the build when the bundle changed unexpectedly",
            "larder pack SampleBundles/paywall -o out/ --expect sha256:<hex> --font-cache .larder-fonts",
        ],
        "inspect": ["larder inspect out/<hex>.tar.gz", "larder inspect out/<hex>.tar.gz --json"],
        "verify": ["larder verify out/<hex>.tar.gz", "larder verify download.tar.gz --digest sha256:<hex>"],
        "diff": [
            "larder diff out/<old>.tar.gz out/<new>.tar.gz",
            "# What a device holding the old bundle downloads from an origin folder",
            "larder diff sha256:<old> sha256:<new> --origin /srv/origin --json",
        ],
        "publish": [
            "larder publish out/<hex>.tar.gz --origin /srv/origin --journey onboarding --key pk_live_onboarding",
            "larder publish out/<hex>.tar.gz --origin /srv/origin --journey paywall --sign release.pem --rollout 10",
            "larder publish --origin /srv/origin --journey paywall --rollback --to 3",
            "larder publish out/<hex>.tar.gz --origin s3://bucket/larder --endpoint http://127.0.0.1:9000 --region us-east-1",
        ],
        "cache": ["larder cache ls --cache ~/.cache/larder", "larder cache verify --repair", "larder help cache evict"],
        "cache ls": ["larder cache ls --cache /var/lib/app/larder", "larder cache ls --json"],
        "cache show": ["larder cache show onboarding", "larder cache show 3f2a9c --json"],
        "cache install": ["larder cache install out/<hex>.tar.gz --cache /tmp/cache"],
        "cache fetch": ["larder cache fetch sha256:<hex> --origin http://127.0.0.1:8080 --deadline 30s"],
        "cache resolve": ["larder cache resolve larder-font://sha256/<hex>"],
        "cache verify": ["larder cache verify", "# Quarantine corrupt objects; the next fetch downloads them again", "larder cache verify --repair --json"],
        "cache gc": ["larder cache gc --dry-run", "larder cache gc"],
        "cache evict": ["larder cache evict --to 500MB"],
        "cache pin": ["larder cache pin onboarding"],
        "cache unpin": ["larder cache unpin onboarding"],
        "cache stats": ["larder cache stats --json"],
        "cache purge": ["larder cache purge --cache /tmp/cache"],
        "journey": ["larder journey prepare \(origin)", "larder journey status \(origin) --json", "larder help journey present"],
        "journey prepare": ["larder journey prepare \(origin)", "# From the cache only, as a device without a network", "larder journey prepare \(origin) --offline"],
        "journey present": [
            "larder journey present \(origin) --context plan=annual",
            "larder journey present \(origin) --renderer webkit --window",
        ],
        "journey status": ["larder journey status \(origin)"],
        "journey logout": ["larder journey logout \(origin)", "larder journey logout \(origin) --all"],
        "journey captures": [
            "larder journey captures --journey onboarding --json",
            "larder journey captures --deliver http://127.0.0.1:9090/events --key pk_live_onboarding",
        ],
        "journey prefetch": ["larder journey prefetch --origin http://127.0.0.1:8080 --key pk_live --journey onboarding --journey paywall"],
        "journey trigger": ["larder journey trigger checkout_started --origin http://127.0.0.1:8080 --key pk_live_triggers --json"],
        "journey history": ["larder journey history --origin /srv/origin --journey onboarding"],
        "render": [
            "larder render out/<hex>.tar.gz --screenshot onboarding.png",
            "larder render out/<hex>.tar.gz --screenshot small.png --viewport 320x568 --json",
        ],
        "keys": [
            "larder keys generate release --out keys/",
            "larder keys grant pk_live_onboarding --journey onboarding --origin /srv/origin",
            "larder keys revoke pk_live_old --origin /srv/origin",
            "larder keys list --origin /srv/origin --json",
        ],
    ]
}
