#!/usr/bin/env bash
# Runs every tests/e2e/test_*.sh against the binary given as $1 and writes
# "PASSED FAILED" to the file given as $2. E2E_ONLY=NAME runs tests/e2e/test_NAME.sh only.
set -u
ATTN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$here/../.." && pwd)
export ATTN ROOT
source "$here/lib.sh"
for f in "$here"/test_${E2E_ONLY:-*}.sh; do  # E2E_ONLY=hardening runs one file
    [ -e "$f" ] || continue
    T=$(mktemp -d)
    E2E_FILE=$(basename "$f")
    before_fail=$E2E_FAIL before_pass=$E2E_PASS
    source "$f"
    echo "[e2e] $E2E_FILE: $((E2E_PASS - before_pass)) passed, $((E2E_FAIL - before_fail)) failed"
    rm -rf "$T"
done
echo "$E2E_PASS $E2E_FAIL" > "$2"
