#!/usr/bin/env bash
# Installs what Rhizome needs to build, run and test on Debian or Ubuntu:
# system packages (with sudo when not root), Go modules and npm packages.
# Safe to run again: it installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

# fonts-noto-cjk: Chinese, Japanese and Korean text (session titles, prompts)
# drawn in glyphs, not empty boxes, in the window and the browser; a new
# Debian has no CJK font (app.css names its faces first in --cjk).
need_pkgs=(libgtk-3-dev pkg-config xvfb xauth imagemagick chromium fonts-noto-color-emoji fonts-noto-cjk xdotool curl gcc libxml2-utils)
if [ "${1:-}" = "--runtime-only" ]; then
  need_pkgs=(libgtk-3-dev pkg-config gcc fonts-noto-cjk)
fi

sudo_cmd=()
if [ "$(id -u)" != 0 ]; then sudo_cmd=(sudo); fi

missing=()
for p in "${need_pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
# WebKitGTK: 4.0 on Debian 12, 4.1 only on newer releases (then build with -tags webkit2_41).
if ! dpkg -s libwebkit2gtk-4.0-dev >/dev/null 2>&1 && ! dpkg -s libwebkit2gtk-4.1-dev >/dev/null 2>&1; then
  missing+=(WEBKIT)
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing system packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  pkgs=()
  for p in "${missing[@]}"; do
    if [ "$p" = WEBKIT ]; then
      if apt-cache show libwebkit2gtk-4.0-dev >/dev/null 2>&1; then pkgs+=(libwebkit2gtk-4.0-dev); else pkgs+=(libwebkit2gtk-4.1-dev); fi
    else
      pkgs+=("$p")
    fi
  done
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${pkgs[@]}"
fi

if ! command -v go >/dev/null 2>&1; then
  if [ -x /usr/local/go/bin/go ]; then export PATH="/usr/local/go/bin:$PATH"; else
    echo "setup: Go is missing: install Go $(sed -n 's/^go //p' go.mod) or newer from https://go.dev/dl and run again" >&2
    exit 1
  fi
fi
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "setup: installing Node.js and npm"
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends nodejs npm
fi
node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" -lt 20 ]; then
  echo "setup: Node.js $node_major is too old for Vite 8: install Node.js 20 or newer and run again" >&2
  exit 1
fi

go mod download

# npm packages: only when package-lock.json changed since the last install.
if [ ! -f frontend/node_modules/.package-lock.json ] || [ frontend/package-lock.json -nt frontend/node_modules/.package-lock.json ]; then
  echo "setup: installing npm packages"
  (cd frontend && npm ci --no-audit --no-fund --loglevel=error)
fi
