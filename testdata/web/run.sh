#!/usr/bin/env bash
# Drives the page of `lore serve --http` in Debian's headless Chromium
# with page.mjs (playwright-core, as pinned in package-lock.json).
# Needs /usr/bin/chromium (Debian's chromium package; .ci/run installs it).
# Usage: testdata/web/run.sh PATH-TO-LORE-BINARY [SCREENSHOT.png]
set -euo pipefail
lore=${1:?usage: run.sh PATH-TO-LORE-BINARY [SCREENSHOT.png]}
lore=$(cd "$(dirname "$lore")" && pwd)/$(basename "$lore")
shot=${2:-$PWD/web-page.png}
case $shot in /*) ;; *) shot=$PWD/$shot ;; esac
[ -x "$lore" ] || { echo "run.sh: $lore is not an executable lore binary" >&2; exit 1; }
[ -x "${CHROMIUM:-/usr/bin/chromium}" ] || { echo "run.sh: no Chromium at ${CHROMIUM:-/usr/bin/chromium}: apt-get install chromium" >&2; exit 1; }
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --loglevel=error >&2
exec node page.mjs "$lore" "$shot"
