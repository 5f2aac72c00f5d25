#!/usr/bin/env bash
# Prints the unit-test sources (tests/unit/**/test_*.cpp) that hold a test case matching one of
# doctest's -tc FILTERS (comma-separated wildcards, * and ?, case-insensitive, matched against the
# whole name), one per line. `make test-tsan` compiles only these (and main.cpp, the oracle):
# the threaded tests are a third of the unit tests' compile time under ThreadSanitizer.
#   usage: tests/unit-sources.sh FILTERS        prints the sources
#          tests/unit-sources.sh --count FILTERS prints how many test cases match
# The count lets the Makefile check this reading of the filters against doctest's own (the
# binary's --count with the same -tc): a case this script missed in a compiled file, or one it
# matched that doctest does not, makes the two differ.
set -euo pipefail
count=0
[ "${1:-}" = --count ] && { count=1; shift; }
filters=$1
here=$(cd "$(dirname "$0")" && pwd)

# One extended regex for every filter: TEST_CASE("NAME") with NAME matching the wildcard.
regex=
IFS=, read -r -a parts <<<"$filters"
for f in "${parts[@]}"; do
    re=$(sed -e 's/[][\.^$+(){}|\\/]/\\&/g' -e 's/\*/.*/g' -e 's/?/./g' <<<"$f")
    regex+="${regex:+|}$re"
done
regex="TEST_CASE\\(\"($regex)\"\\)"

cd "$here/.."
if [ "$count" = 1 ]; then
    find tests/unit -name 'test_*.cpp' -print0 | xargs -0 cat | grep -ciE "$regex" || true
else
    find tests/unit -name 'test_*.cpp' -print0 | xargs -0 grep -liE "$regex" | sort
fi
