#!/usr/bin/env bash
# Installs the Debian packages warder needs to build, test and fuzz, when any is missing.
# Usage: scripts/setup.sh            (safe to run again: it installs only what is missing)
set -euo pipefail

packages=(
  build-essential meson ninja-build pkg-config python3 git
  libpcre2-dev libyaml-dev uthash-dev check
  clang libclang-rt-14-dev clang-format
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "setup: installing ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
