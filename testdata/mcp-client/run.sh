#!/usr/bin/env bash
# Runs the scripted MCP session of session.mjs against a built lore binary
# with the official TypeScript SDK, as pinned in package-lock.json.
# Usage: testdata/mcp-client/run.sh PATH-TO-LORE-BINARY
set -euo pipefail
lore=${1:?usage: run.sh PATH-TO-LORE-BINARY}
lore=$(cd "$(dirname "$lore")" && pwd)/$(basename "$lore")
[ -x "$lore" ] || { echo "run.sh: $lore is not an executable lore binary" >&2; exit 1; }
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --loglevel=error >&2
exec node session.mjs "$lore"
