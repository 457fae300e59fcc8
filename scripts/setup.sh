#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Makes sure what warder needs to build, test and fuzz is there.
#
# Every requirement is looked for the way the build looks for it (programs on PATH, pkg-config
# modules, a header the C compiler can include, a libFuzzer link with clang), so on any machine
# that already has them this does nothing. What is missing is installed with apt-get where that
# works (Debian and its derivatives, as root or through sudo); anywhere else the script names
# what to install and fails.
# Usage: scripts/setup.sh            (safe to run again: it changes nothing when all is found)
set -euo pipefail

cc=${CC:-cc}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# Each check: a description, the Debian package that provides it, and a test.
missing_what=()
missing_pkg=()
need() {
  local what=$1 pkg=$2
  shift 2
  if ! "$@" >/dev/null 2>&1; then
    missing_what+=("$what")
    missing_pkg+=("$pkg")
  fi
}

meson_recent() {
  local v
  v=$(meson --version) || return 1
  [ "$(printf '%s\n1.0.0\n' "$v" | sort -V | head -n 1)" = "1.0.0" ]
}

# Debian's python3 when there is one (the interpreter the packages below serve), else the one
# on PATH.
system_python_has() {
  local py=/usr/bin/python3
  [ -x "$py" ] || py=python3
  "$py" -c "import $1"
}

has_header() {
  printf '#include <%s>\n' "$1" | "$cc" -E -x c - -o /dev/null
}

links_libfuzzer() {
  printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n)\n{ (void)d; (void)n; return 0; }\n' \
    >"$scratch/f.c"
  clang -fsanitize=fuzzer,address,undefined "$scratch/f.c" -o "$scratch/f"
}

check_all() {
  missing_what=()
  missing_pkg=()
  need "a C compiler ($cc)" build-essential command -v "$cc"
  need "meson 1.0 or later" meson meson_recent
  need "ninja" ninja-build command -v ninja
  need "pkg-config" pkg-config command -v pkg-config
  need "python3" python3 command -v python3
  # `pip install --no-build-isolation ./python` (tests/python/test_install.py) builds the
  # package with the machine's python3, its pip, setuptools and wheel: nothing is downloaded
  need "python3's pip (pip install ./python)" python3-pip system_python_has pip
  need "python3's setuptools (pip install ./python)" python3-setuptools system_python_has setuptools
  need "python3's wheel (pip install ./python)" python3-wheel system_python_has wheel
  need "git (the mutation runner)" git command -v git
  need "the pkg-config module libpcre2-8 (PCRE2, 8-bit)" libpcre2-dev pkg-config --exists libpcre2-8
  need "the pkg-config module yaml-0.1 (libyaml)" libyaml-dev pkg-config --exists yaml-0.1
  need "the pkg-config module check (the Check unit test framework)" check pkg-config --exists check
  need "the pkg-config module jansson (JSON)" libjansson-dev pkg-config --exists jansson
  need "the header uthash.h" uthash-dev has_header uthash.h
  need "clang (fuzzing)" clang command -v clang
  need "clang's libFuzzer and sanitizer runtimes" libclang-rt-14-dev links_libfuzzer
  need "clang-format (formatting check)" clang-format command -v clang-format
  # the MCP suite (tests/mcp): Node 18 or later and npm; a node already on PATH is used
  need "node 18 or later (tests/mcp)" nodejs node_recent
  need "npm (tests/mcp)" npm command -v npm
  need "the pkg-config module fuse3 (the tests' case-insensitive file system)" libfuse3-dev \
    pkg-config --exists fuse3
  need "fusermount3 (FUSE mounts for the tests)" fuse3 command -v fusermount3
}

node_recent() {
  local v
  v=$(node --version) || return 1
  [ "${v#v}" != "$v" ] && [ "$(printf '%s\n18.0.0\n' "${v#v}" | sort -V | head -n 1)" = "18.0.0" ]
}

# The MCP suite's modules, pinned in tests/mcp/package-lock.json: installed with `npm ci` outside
# the source tree ($WARDER_NODE_PREFIX, by default ${XDG_CACHE_HOME:-~/.cache}/warder/mcp-node;
# tests/mcp/harness.mjs looks there), unless the lock file they were installed from is the same
# (the npm registry is reachable from CI).
mcp_modules() {
  local src prefix
  src="$(dirname "$0")/../tests/mcp"
  prefix="${WARDER_NODE_PREFIX:-${XDG_CACHE_HOME:-$HOME/.cache}/warder/mcp-node}"
  [ -f "$src/package-lock.json" ] || return 0
  cmp -s "$src/package-lock.json" "$prefix/node_modules/.warder-installed-lock" && return 0
  echo "setup: npm ci in $prefix" >&2
  (mkdir -p "$prefix" && cp "$src/package.json" "$src/package-lock.json" "$prefix/" &&
    cd "$prefix" && npm ci --no-audit --no-fund --loglevel=error >/dev/null &&
    cp package-lock.json node_modules/.warder-installed-lock) || {
    echo "setup: npm ci in $prefix failed" >&2
    return 1
  }
}

# Optional benchmark peers: ripgrep, which tests/bench/bench-grep.c runs next to warder's grep.
# Installed where apt-get can; otherwise the benchmark skips it and says why. Never a failure.
optional_peers() {
  command -v rg >/dev/null 2>&1 && return 0
  command -v apt-get >/dev/null 2>&1 || return 0
  local s=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 || return 0
    s="sudo -n"
  fi
  echo "setup: installing ripgrep (an optional benchmark peer)" >&2
  export DEBIAN_FRONTEND=noninteractive
  $s apt-get install -y -qq --no-install-recommends ripgrep >/dev/null 2>&1 ||
    { $s apt-get update -qq >/dev/null 2>&1 &&
      $s apt-get install -y -qq --no-install-recommends ripgrep >/dev/null 2>&1; } ||
    echo "setup: ripgrep was not installed; bench-grep will skip it" >&2
  return 0
}

check_all
if [ ${#missing_what[@]} -eq 0 ]; then
  optional_peers
  mcp_modules
  exit $?
fi

say_missing() {
  echo "setup: missing:" >&2
  for i in "${!missing_what[@]}"; do
    echo "  - ${missing_what[$i]} (Debian package: ${missing_pkg[$i]})" >&2
  done
}

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 && sudo="sudo"
fi
if ! command -v apt-get >/dev/null 2>&1 || { [ "$(id -u)" -ne 0 ] && [ -z "$sudo" ]; }; then
  say_missing
  echo "setup: cannot install them here (no apt-get, or not root and no sudo);" \
    "install them with your system's package manager and run this again" >&2
  exit 1
fi

mapfile -t packages < <(printf '%s\n' "${missing_pkg[@]}" | sort -u)
echo "setup: installing ${packages[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null

check_all
if [ ${#missing_what[@]} -gt 0 ]; then
  say_missing
  echo "setup: still missing after apt-get install; install them by hand" >&2
  exit 1
fi
optional_peers
mcp_modules
