#!/usr/bin/env bash
# Window smoke test: runs the real desktop binary under Xvfb on a temporary
# library holding the sample sessions, one loom tree and one MemoBrain
# reasoning graph, screenshots the graph view, (after pressing L) the Loom
# view and (after pressing R) the Reasoning view, and asserts that each
# rendered (many colours, a non-uniform sidebar, content in the main area),
# not a blank window; and that a Claude Code session written into the
# default watched folder is imported as it is written (window-live.png: the
# graph after the agent wrote on). Screenshots:
# ${SHOT_DIR:-/tmp/rhizome-shots}/window*.png.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=$(realpath "${1:-build/bin/rhizome}")
shots=${SHOT_DIR:-${SHOTS:-/tmp/rhizome-shots}}
mkdir -p "$shots"
tmp=$(mktemp -d)
pid=
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
export RHIZOME_DB="$tmp/library.db"
export XDG_DATA_HOME="$tmp/data" XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache" HOME="$tmp"
"$bin" import --db "$RHIZOME_DB" "$here/../app/samples" >/dev/null 2>&1
"$bin" import --db "$RHIZOME_DB" "$here/../backend/memobrain/testdata/example_snapshot.json" \
  "$here/../backend/memobrain/testdata/example_messages.json" >/dev/null 2>&1

# A Claude Code session being written in the default watched folder
# ($HOME/.claude/projects): its first half is there when the window opens,
# the rest is appended while it runs; the window's watcher must import both
# (checked below by writing the session back byte for byte).
cc_id=5e55a1d0-0c1a-4b1e-9c0d-7a3f2b6e8d41
cc_src="$here/../backend/claudecode/testdata/claude-home/projects/-tmp-rhizome-claudecode-fixtures-work-acme-api/$cc_id.jsonl"
cc_dir="$tmp/.claude/projects/-tmp-demo"
mkdir -p "$cc_dir"
head -n 36 "$cc_src" >"$cc_dir/$cc_id.jsonl"
tail -n +37 "$cc_src" >"$tmp/cc-rest.jsonl"

# A loom tree, imported through the same use case the window calls.
"$bin" serve --db "$RHIZOME_DB" >"$tmp/serve.out" 2>"$tmp/serve.err" &
pid=$!
for _ in $(seq 1 50); do [ -s "$tmp/serve.out" ] && break; sleep 0.1; done
url=$(head -n1 "$tmp/serve.out")
base=${url%%/?token=*}
token=${url##*token=}
tree=$(base64 -w0 "$here/../backend/loom/testdata/socketteer-lighthouse.json")
printf '["lighthouse.json","%s"]' "$tree" >"$tmp/loom.json"
curl -sf -X POST -H 'Content-Type: application/json' --data-binary @"$tmp/loom.json" \
  "$base/api/Loom/Import?token=$token" >/dev/null || { echo "window-test: loom import failed"; cat "$tmp/serve.err"; exit 1; }
kill "$pid"; wait "$pid" 2>/dev/null || true

xvfb-run -a -s "-screen 0 1280x900x24" bash -c '
  "$0" window --db "$RHIZOME_DB" >"$1/window.log" 2>&1 &
  app=$!
  for i in $(seq 1 60); do
    win=$(xdotool search --name "^Rhizome$" 2>/dev/null | head -n1) && [ -n "$win" ] && break
    sleep 0.5
  done
  # Wait until the window has drawn (a loaded machine can take far longer
  # than an idle one), then a moment more for the graph layout to settle.
  rendered() {
    local c m d
    c=$(convert "$1" -format "%k" info:) m=$(convert "$1" -crop 700x600+400+150 -format "%k" info:)
    d=$(convert "$1" -crop 260x600+0+100 -format "%[fx:standard_deviation]" info:)
    [ "$c" -ge 64 ] && [ "$m" -ge 8 ] && awk "BEGIN{exit !($d >= 0.01)}"
  }
  for i in $(seq 1 "${WINDOW_WAIT:-90}"); do
    sleep 1
    import -window root "$2/window.png" && rendered "$2/window.png" && break
  done
  sleep "${WINDOW_SETTLE:-3}"
  import -window root "$2/window.png"
  # The agent writes on: the watcher imports the lines within a second and
  # the session is marked live (window-live.png).
  cat "$1/cc-rest.jsonl" >>"$1/.claude/projects/-tmp-demo/'"$cc_id"'.jsonl"
  sleep 3
  import -window root "$2/window-live.png"
  xdotool windowfocus --sync "$win" 2>/dev/null || true
  xdotool mousemove 640 450 click 1 key l
  sleep 3
  import -window root "$2/window-loom.png"
  xdotool key r
  sleep 3
  import -window root "$2/window-reasoning.png"
  kill $app 2>/dev/null || true
  wait $app 2>/dev/null || true
' "$bin" "$tmp" "$shots" &
pid=$!
wait $pid

check() { # check NAME SHOT: the screenshot shows a rendered app
  local shot=$1
  [ -s "$shot" ] || { echo "window-test: no screenshot $shot"; cat "$tmp/window.log"; exit 1; }
  local colours sidebar main
  colours=$(convert "$shot" -format "%k" info:)
  sidebar=$(convert "$shot" -crop 260x600+0+100 -format "%[fx:standard_deviation]" info:)
  main=$(convert "$shot" -crop 700x600+400+150 -format "%k" info:)
  echo "window-test: $shot: $colours colours, sidebar deviation $sidebar, $main colours in the main area"
  if [ "$colours" -lt 64 ] || [ "$main" -lt 8 ] || awk "BEGIN{exit !($sidebar < 0.01)}"; then
    echo "window-test: FAILED: $shot looks blank"
    cat "$tmp/window.log"
    exit 1
  fi
}
# The watched session, as the window's watcher imported it while it was
# written, gives the file back byte for byte.
if ! "$bin" export-session --db "$RHIZOME_DB" "rhizome:session/$cc_id" "$tmp/cc-back.jsonl" >/dev/null 2>"$tmp/export.err" ||
  ! cmp -s "$cc_src" "$tmp/cc-back.jsonl"; then
  echo "window-test: FAILED: the window did not import the watched Claude Code session as it was written"
  cat "$tmp/export.err" "$tmp/window.log"
  exit 1
fi
echo "window-test: the watched Claude Code session was imported as it was written ($(wc -c <"$cc_src") bytes back)"
check "$shots/window.png"
check "$shots/window-live.png"
check "$shots/window-loom.png"
check "$shots/window-reasoning.png"
if cmp -s "$shots/window.png" "$shots/window-loom.png"; then
  echo "window-test: FAILED: pressing L did not change the view"; exit 1
fi
if cmp -s "$shots/window-loom.png" "$shots/window-reasoning.png"; then
  echo "window-test: FAILED: pressing R did not change the view"; exit 1
fi
echo "window-test: 5 passed, 0 failed"
