#!/usr/bin/env bash
# Prepares a fresh Debian machine for Toolsys: Node.js 24, system packages the tests use, pnpm,
# and the workspace's dependencies (better-sqlite3 builds from source against that Node).
#
# Node.js: the machine's own when it is 24 or newer (or 22 or newer with TOOLSYS_SYSTEM_NODE=1);
# otherwise Node 24 from the npm registry (the node-linux-<arch> package ships the binary and the
# headers native modules build against), kept in .cache/node and re-used while it is a Node 24.
# Everything below runs on it, and .cache/env.sh records it for the shell that runs the tests:
#   bash scripts/setup.sh && . .cache/env.sh && pnpm test:all
set -euo pipefail
cd "$(dirname "$0")/.."

export TURBO_TELEMETRY_DISABLED=1
export COREPACK_INTEGRITY_KEYS=0

NODE_MAJOR=24
node_cache="${TOOLSYS_NODE_CACHE:-$PWD/.cache/node}"
env_file="$PWD/.cache/env.sh"
node_major() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

system_major="$(node_major node)"
case "$(command -v node || true)" in
  "$node_cache"/*) system_major=0 ;; # a shell that sourced .cache/env.sh already: keep the cache
esac
if [ "$system_major" -ge "$NODE_MAJOR" ] ||
  { [ "${TOOLSYS_SYSTEM_NODE:-}" = "1" ] && [ "$system_major" -ge 22 ]; }; then
  export npm_config_nodedir="${npm_config_nodedir:-/usr}"
  node_bin=""
else
  case "$(uname -m)" in
    x86_64) node_arch=x64 ;;
    aarch64) node_arch=arm64 ;;
    *) echo "No Node.js $NODE_MAJOR package for $(uname -m): install Node.js >= 22 yourself." >&2; exit 1 ;;
  esac
  node_pkg="$node_cache/node_modules/node-linux-$node_arch"
  if [ "$(node_major "$node_pkg/bin/node")" != "$NODE_MAJOR" ]; then
    echo "Installing Node.js $NODE_MAJOR into $node_cache (machine has $(node --version 2>/dev/null || echo none))"
    rm -rf "$node_cache"
    mkdir -p "$node_cache"
    npm install --prefix "$node_cache" --no-save --no-package-lock --ignore-scripts --no-audit \
      --no-fund --loglevel=error "node-linux-$node_arch@$NODE_MAJOR"
  fi
  node_bin="$node_pkg/bin"
  export PATH="$node_bin:$PATH"
  # Native modules (better-sqlite3) compile against this Node's headers, not the machine's.
  export npm_config_nodedir="$node_pkg"
fi
mkdir -p "$(dirname "$env_file")"
{
  echo "# Written by scripts/setup.sh: the Node.js this checkout was installed with."
  [ -n "$node_bin" ] && echo "export PATH=\"$node_bin:\$PATH\""
  echo "export npm_config_nodedir=\"$npm_config_nodedir\""
} >"$env_file"
echo "Node.js $(node --version) ($(command -v node))"

need_apt=()
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
command -v rg >/dev/null 2>&1 || need_apt+=(ripgrep)
command -v adb >/dev/null 2>&1 || need_apt+=(adb)
command -v bwrap >/dev/null 2>&1 || need_apt+=(bubblewrap)
command -v proot >/dev/null 2>&1 || need_apt+=(proot)
[ -x /usr/sbin/debootstrap ] || need_apt+=(debootstrap)
[ -x /bin/busybox ] || need_apt+=(busybox-static)
command -v zsh >/dev/null 2>&1 || need_apt+=(zsh)
command -v redis-server >/dev/null 2>&1 || need_apt+=(redis-server)
# Python's HTML docs: real documentation pages for the browser bench.
[ -d /usr/share/doc/python3/html ] || need_apt+=(python3-doc)
[ -x /usr/sbin/haproxy ] || command -v haproxy >/dev/null 2>&1 || need_apt+=(haproxy)
if [ "${#need_apt[@]}" -gt 0 ]; then
  if [ "$(id -u)" = "0" ]; then
    echo "Installing system packages: ${need_apt[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
  else
    echo "Not root: install these system packages for the full test suite: ${need_apt[*]}" >&2
  fi
fi

if ! command -v pnpm >/dev/null 2>&1 || [ "$(pnpm --version)" != "12.4.2" ]; then
  npm install -g -E pnpm@12.4.2
fi

had_modules=""
[ -d node_modules ] && had_modules=1
if [ "${CI:-}" = "true" ]; then
  pnpm install --frozen-lockfile
else
  pnpm install
fi
# Native modules built for another Node.js (a checkout set up before) are rebuilt for this one.
abi_stamp=".cache/node-modules-abi"
abi="$(node -p 'process.platform + "-" + process.arch + "-" + process.versions.modules')"
if { [ -f "$abi_stamp" ] && [ "$(cat "$abi_stamp")" != "$abi" ]; } ||
  { [ ! -f "$abi_stamp" ] && [ -n "$had_modules" ]; }; then
  echo "Rebuilding native modules for Node.js $(node --version)"
  pnpm rebuild --recursive
fi
echo "$abi" >"$abi_stamp"
