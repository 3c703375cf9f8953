#!/usr/bin/env bash
# Runs the README's curl walk-through (every `sh` block of "## A game with curl", in order,
# exactly as written) against the server at $API, failing on any refused request.
# Usage: API=http://127.0.0.1:PORT tests/contract/readme.sh README.md
set -euo pipefail
readme=${1:?the README to read}
script=$(awk '
    /^## / { inside = ($0 == "## A game with curl") }
    inside && /^```sh$/ { block = 1; next }
    inside && /^```$/ { block = 0; next }
    inside && block { print }
' "$readme")
if [ -z "$script" ]; then
    echo "no walk-through found in $readme" >&2
    exit 1
fi
# A refusal answers 4xx; in the walk-through every request must succeed.
curl() { command curl --fail-with-body "$@"; }
export -f curl
bash -euo pipefail -c "$script"
