#!/usr/bin/env bash
# The whole test suite, as CI runs it (README: "Run the tests"). Needs only cargo and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
step() { printf '\n==> %s\n' "$*"; }

step "format";            cargo fmt --check
step "lint";              cargo clippy --all-targets --quiet -- -D warnings
step "tests"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
cargo test 2>&1 | tee "$log"
passed=$(grep -Eo 'test result: ok\. [0-9]+ passed' "$log" | awk '{s += $4} END {print s + 0}')
step "broken built-in rules fail the build"; bash scripts/broken-rules-fail-build.sh
step "schemas match the types"; cargo run --quiet -- schema --check
step "the quick start classifies the examples"; cargo run --quiet -- classify --batch examples/errors.jsonl > /dev/null
echo "all checks passed"
echo "tests: ${passed} passed, 0 failed"
