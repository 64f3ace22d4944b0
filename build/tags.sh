#!/usr/bin/env bash
# Prints the Go build tags of the desktop binary: desktop,production, and
# webkit2_41 where WebKitGTK 4.0 is missing and 4.1 is there (newer Debian and
# Ubuntu). The Makefile runs it in the build recipe, after build/setup.sh, so
# that it sees what setup has just installed.
set -euo pipefail
tags=desktop,production
if ! pkg-config --exists webkit2gtk-4.0 2>/dev/null; then
  if ! pkg-config --exists webkit2gtk-4.1 2>/dev/null; then
    echo "tags: WebKitGTK development files (webkit2gtk-4.0 or webkit2gtk-4.1) not found: run build/setup.sh" >&2
    exit 1
  fi
  tags+=,webkit2_41
fi
echo "$tags"
