#!/usr/bin/env bash
# Checks that the Makefile works on a new machine, where build/setup.sh
# installs WebKitGTK during the run, without removing any package:
#
#  1. every target that builds or tests runs setup first, even when invoked
#     alone (make -n shows setup before the first build or test command);
#  2. the WebKitGTK build tag is decided after setup: make runs with
#     PKG_CONFIG_LIBDIR on an empty folder, so that when make starts no
#     WebKitGTK is found, and a stand-in for setup runs the real setup and
#     then puts the machine's pkg-config files in that folder, as apt-get
#     does on a new machine. The binary must build, with the tags that suit
#     what is installed (go version -m shows them).
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
bindir=build/bin/setup-order-test
trap 'rm -rf "$tmp" "$bindir"' EXIT
fail=0

# 1. Setup first, for every target that builds or tests.
for target in run build bench generate contract e2e window-test agents-test go-test frontend-test test; do
  cmds=$(make -n --no-print-directory "$target" SETUP="echo SETUP-RUNS-HERE" BIN="$bindir/rhizome" 2>&1) || {
    echo "setup-order-test: make -n $target failed: $cmds"
    fail=1
    continue
  }
  first=$(grep -m1 -nE 'SETUP-RUNS-HERE|go build|go test|go vet|npm (run|test)|window-test\.sh|go run' <<<"$cmds" || true)
  case "$first" in
    *SETUP-RUNS-HERE*) ;;
    *) echo "setup-order-test: make $target does not run setup before its first build or test command: ${first:-no setup at all}"; fail=1 ;;
  esac
done

# 2. The build tag is decided once setup has run.
want=desktop,production
if ! pkg-config --exists webkit2gtk-4.0; then want=desktop,production,webkit2_41; fi
pc="$tmp/pkgconfig"
mkdir "$pc"
cat >"$tmp/setup" <<EOF
#!/usr/bin/env bash
set -euo pipefail
./build/setup.sh
# What apt-get install does on a new machine: the pkg-config files appear.
for d in $(pkg-config --variable pc_path pkg-config | tr : ' '); do
  for f in "\$d"/*.pc; do
    [ -e "\$f" ] && [ ! -e "$pc/\$(basename "\$f")" ] && ln -s "\$f" "$pc/"
  done
done
exit 0
EOF
chmod +x "$tmp/setup"
if ! PKG_CONFIG_LIBDIR="$pc" make --no-print-directory build SETUP="$tmp/setup" BIN="$bindir/rhizome" >"$tmp/build.log" 2>&1; then
  echo "setup-order-test: make build failed when WebKitGTK appeared during setup:"
  tail -n 20 "$tmp/build.log"
  fail=1
else
  got=$(go version -m "$bindir/rhizome" | sed -n 's/.*-tags=\([^[:space:]]*\).*/\1/p')
  if [ "$got" != "$want" ]; then
    echo "setup-order-test: built with tags '$got', want '$want'"
    fail=1
  fi
fi

if [ "$fail" != 0 ]; then exit 1; fi
echo "setup-order-test: setup runs first for every target; tags $want decided after setup"
