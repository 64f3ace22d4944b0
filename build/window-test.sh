#!/usr/bin/env bash
# Window smoke test: runs the real desktop binary under Xvfb on a temporary
# library holding the sample sessions, screenshots the screen and asserts the
# app rendered (many colours and a non-uniform sidebar and graph), not a blank
# window. The screenshot is kept at ${SHOT_DIR:-/tmp/rhizome-shots}/window.png.
set -euo pipefail
bin=$(realpath "${1:-build/bin/rhizome}")
shots=${SHOT_DIR:-/tmp/rhizome-shots}
mkdir -p "$shots"
tmp=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
export RHIZOME_DB="$tmp/library.db"
export XDG_DATA_HOME="$tmp/data" XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache" HOME="$tmp"
"$bin" import --db "$RHIZOME_DB" "$(dirname "$0")/../app/samples" >/dev/null 2>&1

xvfb-run -a -s "-screen 0 1280x900x24" bash -c '
  "$0" window --db "$RHIZOME_DB" >"$1/window.log" 2>&1 &
  app=$!
  for i in $(seq 1 60); do
    if xdotool search --name "^Rhizome$" >/dev/null 2>&1; then break; fi
    sleep 0.5
  done
  sleep "${WINDOW_SETTLE:-6}"
  import -window root "$2/window.png"
  kill $app 2>/dev/null || true
  wait $app 2>/dev/null || true
' "$bin" "$tmp" "$shots" &
pid=$!
wait $pid

shot="$shots/window.png"
[ -s "$shot" ] || { echo "window-test: no screenshot"; cat "$tmp/window.log"; exit 1; }
colours=$(convert "$shot" -format "%k" info:)
sidebar=$(convert "$shot" -crop 260x600+0+100 -format "%[fx:standard_deviation]" info:)
graph=$(convert "$shot" -crop 700x600+400+150 -format "%k" info:)
echo "window-test: $colours colours on screen, sidebar deviation $sidebar, $graph colours in the graph area ($shot)"
if [ "$colours" -lt 64 ] || [ "$graph" -lt 8 ] || awk "BEGIN{exit !($sidebar < 0.01)}"; then
  echo "window-test: FAILED: the window looks blank"
  cat "$tmp/window.log"
  exit 1
fi
echo "window-test: 1 passed, 0 failed"
