#!/usr/bin/env bash
# Shows that a broken built-in rule fails `cargo build` with a diagnostic naming the file,
# line and column. Each case copies rules/ to a scratch directory, breaks one thing, and
# builds with OMNIROUTE_RULES_DIR pointing there (build.rs reads it instead of rules/).
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failures=0

# case NAME FILE PYTHON-EDIT EXPECTED-CODE EXPECTED-LOCATION
case_() {
  local name=$1 file=$2 edit=$3 code=$4 where=$5
  rm -rf "$scratch/rules" && cp -r rules "$scratch/rules"
  python3 - "$scratch/rules/$file" "$edit" <<'PY'
import sys
path, edit = sys.argv[1], sys.argv[2]
old, new = edit.split(" => ", 1)
text = open(path, encoding="utf-8").read()
assert old in text, f"{old!r} not in {path}"
open(path, "w", encoding="utf-8").write(text.replace(old, new, 1))
PY
  local out status=0
  out=$(OMNIROUTE_RULES_DIR="$scratch/rules" cargo build 2>&1) || status=$?
  if [ "$status" -eq 0 ]; then
    echo "FAIL $name: cargo build succeeded on a broken catalog"; failures=$((failures + 1)); return
  fi
  if ! grep -q "error\[$code\]" <<<"$out" || ! grep -q -- "--> $scratch/rules/$where" <<<"$out"; then
    echo "FAIL $name: expected error[$code] at $where; got:"; echo "$out" | head -20; failures=$((failures + 1)); return
  fi
  echo "ok   $name: error[$code] at rules/$where"
  grep -A4 -- "error\[$code\]" <<<"$out" | sed -e "s/^warning: omniroute@[0-9.]*: //" -e "s/^/       /" | head -5
}

case_ "unknown field" signals.yaml "  - id: account_deactivated
 =>   - id: account_deactivated
    colour: red
" OR003 "signals.yaml:8:5"
case_ "status 700" error_rules.yaml "{id: status_401, status: 401, => {id: status_401, status: 700," OR004 "error_rules.yaml:21:30"
case_ "invalid regex" signals.yaml "      - 'no longer supported' =>       - 'no longer (supported'" OR007 "signals.yaml:53:9"
case_ "duplicate id" error_rules.yaml "{id: capacity, text: capacity, => {id: rate_limit, text: capacity," OR006 "error_rules.yaml:18:10"

# Leave the normal build in place for whatever runs next.
cargo build --quiet
if [ "$failures" -gt 0 ]; then
  echo "$failures broken-catalog case(s) did not fail the build as expected"; exit 1
fi
echo "4 passed, 0 failed"
