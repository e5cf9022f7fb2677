#!/usr/bin/env bash
# Lints the server's OpenAPI document (examples/server/testdata/openapi.json,
# which TestOpenAPIGolden holds equal to /openapi.json as served) with
# Redocly's CLI and its recommended-strict rules, where every warning fails.
# The CLI is installed once with npm at a pinned version, outside the
# repository (about 2 seconds), and reused.
set -euo pipefail
cd "$(dirname "$0")/.."
version=2.77.0
dir="${XDG_CACHE_HOME:-$HOME/.cache}/protectionplans-tools/redocly-cli-$version"
if [ ! -x "$dir/node_modules/.bin/redocly" ]; then
  mkdir -p "$dir"
  (cd "$dir" && npm install --no-audit --no-fund --silent "@redocly/cli@$version" >/dev/null)
fi
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true
"$dir/node_modules/.bin/redocly" lint --extends recommended-strict examples/server/testdata/openapi.json
