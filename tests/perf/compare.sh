#!/usr/bin/env bash
# make compare: times attn and its peers on identical shapes and thread counts in one run
# and prints a table of ratios (medians). Installs the peers' Debian packages if missing.
#   usage: tests/perf/compare.sh [PATH/TO/attn]
#   env: THREADS (default 2), REPEAT (7), ROUNDS (3), ARCH (attn --arch, default auto),
#        ONLY (all|sgemm|attention|heads|decode|additive|io|model|ggml; model is not part of all);
#        with all, decode or ggml it also compares decoding with ggml's flash_attn_ext when
#        GGML_DIR holds a ggml you built (tests/perf/compare_ggml.py says how; skipped with a
#        message otherwise)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
case "${1:-}" in -h | --help) sed -n '2,9s/^# \{0,1\}//p' "$0"; exit 0 ;; -*) echo "compare.sh: unknown option $1 (--help)" >&2; exit 2 ;; esac
attn=${1:-build/attn}
# The Debian python3 (with python3-numpy / python3-torch), not whatever python3 is first on PATH.
py=${PYTHON:-/usr/bin/python3}
"$py" "$here/compare.py" --check-only  # an unknown ONLY, before anything is installed
if [ "${ONLY:-all}" != ggml ]; then
    bash "$here/../../.ci/ensure-packages" python3-numpy libopenblas-dev python3-torch python3-threadpoolctl
    "$py" "$here/compare.py" "$attn"
fi
case "${ONLY:-all}" in all | decode | ggml) "$py" "$here/compare_ggml.py" "$attn" ;; esac
