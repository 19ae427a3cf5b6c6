#!/usr/bin/env bash
# Prepares a fresh Debian machine for Toolsys: system packages the tests use, pnpm, and the
# workspace's dependencies (better-sqlite3 builds from source against the installed Node).
set -euo pipefail
cd "$(dirname "$0")/.."

export TURBO_TELEMETRY_DISABLED=1
export COREPACK_INTEGRITY_KEYS=0
export npm_config_nodedir="${npm_config_nodedir:-/usr}"

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

if [ "${CI:-}" = "true" ]; then
  pnpm install --frozen-lockfile
else
  pnpm install
fi
