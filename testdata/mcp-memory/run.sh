#!/usr/bin/env bash
# Runs the differential session of diff.mjs against the reference MCP memory
# server and a built lore binary, as pinned in package-lock.json.
# Usage: testdata/mcp-memory/run.sh PATH-TO-LORE-BINARY
set -euo pipefail
lore=${1:?usage: run.sh PATH-TO-LORE-BINARY}
lore=$(cd "$(dirname "$lore")" && pwd)/$(basename "$lore")
[ -x "$lore" ] || { echo "run.sh: $lore is not an executable lore binary" >&2; exit 1; }
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --loglevel=error >&2
exec node diff.mjs "$lore"
