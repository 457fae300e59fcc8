#!/usr/bin/env bash
# Builds warder and runs its main job on the embedded default ruleset: a short tour.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh build
warder=$PWD/build/src/cli/warder

say() { printf '\n\033[1m%s\033[0m\n' "$*"; }
run() {
  printf '$ warder'; printf ' %q' "$@"; printf '\n'
  set +e
  "$warder" "$@"
  local rc=$?
  set -e
  printf '(exit %d)\n' "$rc"
}

say "Paths are normalised before any rule sees them (semantics §3.1):"
run normalize --root /work/project --home /home/agent -- .env src/../.env //etc/./passwd '~/.ssh/id_rsa' /.env/

say "Glob patterns follow git's wildmatch: * stays inside one directory, ** crosses them:"
run match -- '**/.env' /work/project/.env /work/project/config/.env
run match -- 'src/*.c' src/main.c
run match -- 'src/*.c' src/lib/util.c
run match -- '**/*.{pem,key}' /home/agent/server.key /srv/tls/cert.pem

say "Case folding, and command patterns (* crosses / and blanks):"
run match --fold-case -- '**/.ENV' /work/project/.env
run match --command -- 'rm -rf *' 'rm -rf /home/user'

say "A malformed pattern is an error that points at the byte, never a rule that matches nothing:"
run match -- '[z-a]*.c' x.c
