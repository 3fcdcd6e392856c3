#!/usr/bin/env bash
# Installs a real VS Code (server build, via the code-server npm package) + Debian Chromium,
# using only the npm registry and Debian's apt repositories.
# usage: install-runtime.sh [DEST_DIR]   (default: .vscode-runtime, relative to the current directory)
# How the tests use it: docs/architecture.md#tests. Idempotent.
# Needs root (or sudo) for apt-get; run it once per machine / CI image.
set -euo pipefail
DEST=$(mkdir -p "${1:-.vscode-runtime}" && cd "${1:-.vscode-runtime}" && pwd)
CS_VERSION=${CS_VERSION:-4.100.3}      # newest code-server whose engines.node is 20 (VS Code 1.100.3)
RG_PKG_VERSION=${RG_PKG_VERSION:-1.15.11}   # @vscode/ripgrep pinned in code-server 4.100.3's shrinkwrap
RG_ASSET=${RG_ASSET:-ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz}
NODE_HEADERS_PREFIX=${NODE_HEADERS_PREFIX:-/usr}   # prefix whose include/node has the Node headers (Debian's nodejs package)

# 1. OS packages: chromium (browser), ripgrep (replaces the GitHub download of @vscode/ripgrep),
#    libkrb5-dev (headers for the 'kerberos' native module that VS Code's server builds).
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
if ! command -v chromium >/dev/null || ! command -v rg >/dev/null || [ ! -e /usr/include/gssapi/gssapi.h ]; then
  $SUDO apt-get update -q
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium ripgrep libkrb5-dev
fi

if [ -x "$DEST/node_modules/.bin/code-server" ]; then
  echo "code-server already installed in $DEST"
  exit 0
fi

# 2. Seed @vscode/ripgrep's download cache (it looks in $TMPDIR/vscode-ripgrep-cache-<pkgver>/<asset>)
export TMPDIR="$DEST/install-tmp"
mkdir -p "$TMPDIR/vscode-ripgrep-cache-$RG_PKG_VERSION" "$DEST/rgstage"
cp "$(command -v rg)" "$DEST/rgstage/rg"
tar czf "$TMPDIR/vscode-ripgrep-cache-$RG_PKG_VERSION/$RG_ASSET" -C "$DEST/rgstage" rg

# 3. code-server from npm. Its postinstall runs 'npm install' in lib/vscode (native modules are
#    compiled with node-gyp against the local Node headers; argon2/kerberos fall back to source builds
#    after their GitHub prebuilt downloads fail fast with ENOTFOUND).
#    --unsafe-perm: postinstall.sh refuses to run as root without it.
#    npm_config_yes: node-pty's postinstall runs 'npx node-gyp ...' which otherwise aborts non-interactively.
#    nodedir: node-gyp must use the local headers ($NODE_HEADERS_PREFIX/include/node), never download them.
#    Do not change HOME for this step: a user-level ~/.npmrc setting would be lost.
[ -d "$NODE_HEADERS_PREFIX/include/node" ] && export npm_config_nodedir="${npm_config_nodedir:-$NODE_HEADERS_PREFIX}"
cd "$DEST"
[ -f package.json ] || echo "{\"name\":\"vscode-runtime\",\"private\":true,\"version\":\"0.0.0\",\"dependencies\":{\"code-server\":\"$CS_VERSION\"}}" > package.json
npm_config_yes=true npm install --unsafe-perm --no-audit --no-fund
HOME="$DEST/cs-home" "$DEST/node_modules/.bin/code-server" --version | tail -1   # HOME: it writes ~/.config/code-server on first run
