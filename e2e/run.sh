#!/usr/bin/env bash
# Real-editor tests: package the extension, run Neovim against the bundled server, then
# install the .vsix into code-server and drive it with Playwright in Chromium.
# Needs `bash e2e/setup.sh` and, at the root, `npm ci && npm run build` first.
# Screenshots and logs go to e2e/artifacts/; one line per test goes to $E2E_RESULTS.
# Prints `N passed, N failed` at the end unless E2E_RESULTS was given (ci.sh prints it then).
set -uo pipefail
E2E=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$E2E")
ARTIFACTS=$E2E/artifacts
RUN=$ROOT/.e2e-run/suite   # scratch: workspaces, profiles, code-server state
VSIX=$ROOT/extension/fencelint.vsix
SERVER=$ROOT/extension/dist/server.mjs

rm -rf "$RUN" "$ARTIFACTS"
mkdir -p "$RUN" "$ARTIFACTS"
own_results=false
if [ -z "${E2E_RESULTS:-}" ]; then
  export E2E_RESULTS=$RUN/results.tsv
  own_results=true
fi
touch "$E2E_RESULTS"

now() { date +%s%3N; }                                               # milliseconds
since() { awk -v d=$(( $(now) - $1 )) 'BEGIN { printf "%.1f", d / 1000 }'; }   # seconds since $1
record() { # record pass|fail NAME SECONDS [REASON]
  printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "${4:-}" >> "$E2E_RESULTS"
  echo "$(echo "$1" | tr a-z A-Z) $2 ($3 s)${4:+: $4}"
}
summary() {
  local passed failed
  passed=$(grep -c '^pass' "$E2E_RESULTS")
  failed=$(grep -c '^fail' "$E2E_RESULTS")
  if $own_results; then echo "$passed passed, $failed failed"; fi
  [ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
}

# 1. Build the extension (client bundle + the server's bundle) and the .vsix.
t=$(now)
if (cd "$ROOT" && timeout 180 npm run package -w extension) > "$ARTIFACTS/package.log" 2>&1 \
  && out=$(python3 "$E2E/check-vsix.py" "$VSIX" 2>&1); then
  record pass 'vsix: only the bundles, manifest, docs and icon, under 5 MB' "$(since "$t")" "$out"
else
  record fail 'vsix: only the bundles, manifest, docs and icon, under 5 MB' "$(since "$t")" \
    "${out:-packaging failed, see artifacts/package.log: $(tail -3 "$ARTIFACTS/package.log" | tr '\n' ' ')}"
  summary; exit 1
fi

# 2. Neovim 0.7 headless as a plain LSP client over stdio against the same server bundle.
t=$(now)
name='neovim: diagnostic with the rule code, code action applied, file written, diagnostics clear'
mkdir -p "$RUN/nvim" && cp -r "$E2E/fixture/." "$RUN/nvim/"
if (cd "$RUN/nvim" && SERVER=$SERVER RESULT=$ARTIFACTS/nvim.json timeout 90 \
      nvim --headless --clean -u "$E2E/nvim/lsp-e2e.lua" src/save-resource.ts) > "$ARTIFACTS/nvim.log" 2>&1 \
  && cmp -s "$E2E/expected/save-resource.ts" "$RUN/nvim/src/save-resource.ts"; then
  cp "$RUN/nvim/src/save-resource.ts" "$ARTIFACTS/nvim-fixed-save-resource.ts"
  record pass "$name" "$(since "$t")" "$(node -p "const r=require('$ARTIFACTS/nvim.json'); 'first diagnostic '+r.first_diagnostic_ms+' ms, applied \"'+r.applied+'\", total '+r.total_ms+' ms'")"
else
  cp "$RUN/nvim/src/save-resource.ts" "$ARTIFACTS/nvim-fixed-save-resource.ts"
  record fail "$name" "$(since "$t")" "$(cat "$ARTIFACTS/nvim.json" 2>/dev/null || tail -3 "$ARTIFACTS/nvim.log"); file on disk: $(diff "$E2E/expected/save-resource.ts" "$RUN/nvim/src/save-resource.ts" | grep '^>' | tr -s ' ')"
fi

# 3. code-server with the .vsix installed, one instance for all browser scenarios.
export XDG_CONFIG_HOME=$RUN/xdg/config XDG_DATA_HOME=$RUN/xdg/data
mkdir -p "$RUN/ud/User" "$RUN/ext"
cp "$E2E/vscode/settings.json" "$RUN/ud/User/settings.json"
CODE_SERVER=$E2E/node_modules/.bin/code-server
t=$(now)
if ! timeout 60 "$CODE_SERVER" --user-data-dir "$RUN/ud" --extensions-dir "$RUN/ext" \
    --install-extension "$VSIX" > "$ARTIFACTS/install-extension.log" 2>&1; then
  record fail 'vscode: install the .vsix' "$(since "$t")" "$(tail -2 "$ARTIFACTS/install-extension.log")"
  summary; exit 1
fi
echo "installed the .vsix in $(since "$t") s"

PORT=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
# Its own process group (setsid), so that stopping it also ends the extension host, the
# language server and the file watchers it forks.
setsid "$CODE_SERVER" --bind-addr "127.0.0.1:$PORT" --auth none --disable-telemetry --disable-update-check \
  --user-data-dir "$RUN/ud" --extensions-dir "$RUN/ext" > "$ARTIFACTS/code-server.log" 2>&1 &
CS_PID=$!
stop_code_server() {
  kill -- "-$CS_PID" 2>/dev/null
  for _ in $(seq 50); do kill -0 -- "-$CS_PID" 2>/dev/null || break; sleep 0.1; done
  kill -9 -- "-$CS_PID" 2>/dev/null
  wait "$CS_PID" 2>/dev/null
  # The extension host logs hold the fencelint output channel and the server's stderr.
  cp -r "$RUN/ud/logs" "$ARTIFACTS/code-server-logs" 2>/dev/null
  return 0
}
trap stop_code_server EXIT
trap 'exit 143' TERM INT   # so that a timeout from ci.sh still stops code-server (EXIT trap)
t=$(now)
until curl -fsS "http://127.0.0.1:$PORT/healthz" > /dev/null 2>&1; do
  if ! kill -0 "$CS_PID" 2>/dev/null || [ $(( $(now) - t )) -gt 30000 ]; then
    record fail 'vscode: code-server starts' "$(since "$t")" "$(tail -3 "$ARTIFACTS/code-server.log")"
    summary; exit 1
  fi
  sleep 0.2
done
echo "code-server up on 127.0.0.1:$PORT in $(since "$t") s"

t=$(now)
before=$(grep -c '^fail' "$E2E_RESULTS")
E2E_PORT=$PORT E2E_RUN=$RUN E2E_ARTIFACTS=$ARTIFACTS timeout 1080 node "$E2E/vscode/scenarios.mjs" ${E2E_ONLY:-} 2>&1 | tee "$ARTIFACTS/vscode.log"
rc=${PIPESTATUS[0]}
# A crash or a timeout outside a scenario must not pass silently.
if [ "$rc" -ne 0 ] && [ "$(grep -c '^fail' "$E2E_RESULTS")" -eq "$before" ]; then
  record fail 'vscode: the scenarios run to the end' "$(since "$t")" "exit $rc: $(tail -2 "$ARTIFACTS/vscode.log" | tr '\n' ' ')"
fi

summary
