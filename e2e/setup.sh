#!/usr/bin/env bash
# Installs what the real-editor tests need on a Debian 12 machine (run as root):
# Debian's chromium, neovim and ripgrep, the build tools code-server's native modules
# need, then code-server and playwright-core from e2e/package-lock.json.
# Every pitfall handled here is explained in shared/E2E.md, section 1.
set -euo pipefail
E2E=$(cd "$(dirname "$0")" && pwd)
cd "$E2E"

APT_PACKAGES=(chromium neovim ripgrep libkrb5-dev build-essential python3 curl tmux)
missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: apt-get install ${missing[*]}"
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# code-server's @vscode/ripgrep downloads rg from outside the npm registry and fails the
# whole install when it cannot: seed its download cache (os.tmpdir()) with Debian's rg.
# code-server 4.100.3 installs @vscode/ripgrep 1.15.11 (in its own postinstall, so not in our lockfile).
RG_VERSION=1.15.11
mkdir -p .tmp/rg ".tmp/vscode-ripgrep-cache-$RG_VERSION"
cp "$(command -v rg)" .tmp/rg/rg
tar czf ".tmp/vscode-ripgrep-cache-$RG_VERSION/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" -C .tmp/rg rg

# npm ci wipes node_modules and takes about a minute: skip it when this lockfile is installed.
stamp=node_modules/.installed-lock.sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ -x node_modules/.bin/code-server ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "setup: e2e/node_modules matches package-lock.json"
else
  # unsafe_perm: code-server's postinstall refuses root without it. yes: node-pty's
  # postinstall runs npx, which would stop and ask without a TTY.
  # XDG_*: code-server's postinstall would otherwise create ~/.config/code-server.
  TMPDIR="$E2E/.tmp" XDG_CONFIG_HOME="$E2E/.tmp/xdg/config" XDG_DATA_HOME="$E2E/.tmp/xdg/data" \
    npm_config_unsafe_perm=true npm_config_yes=true \
    npm ci --no-audit --no-fund --loglevel=error
  echo "$want" > "$stamp"
fi
echo "setup: code-server $(node -p "require('code-server/package.json').version"), playwright-core $(node -p "require('playwright-core/package.json').version"), $(chromium --version 2>/dev/null | head -1), $(nvim --version | head -1)"
