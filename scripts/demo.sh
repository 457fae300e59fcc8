#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds warder and runs its main job on the embedded default ruleset: a short tour of guarded
# operations on a sample workspace made on the fly.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh build
warder=$PWD/build/src/cli/warder

ws=$(mktemp -d "${TMPDIR:-/tmp}/warder-tour.XXXXXX")
trap 'rm -rf "$ws"' EXIT
mkdir -p "$ws/src" "$ws/.ssh"
cat >"$ws/src/main.c" <<'C'
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
	const char *key = getenv("API_KEY"); /* read from the environment, never hard-coded */
	puts(key ? "configured" : "API_KEY missing");
	return 0;
}
C
printf 'API_KEY=sk-live-0123456789abcdef\n' >"$ws/.env"
printf -- '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n' >"$ws/.ssh/id_ed25519"
ln -s .env "$ws/notes.txt"
cd "$ws"

say() { printf '\n\033[1m# %s\033[0m\n' "$*"; }
run() {
  local shown="$ warder" a
  for a in "$@"; do
    case $a in
      *[!A-Za-z0-9._/=:-]*) shown+=" '$a'" ;;
      *) shown+=" $a" ;;
    esac
  done
  printf '%s\n' "$shown"
  set +e
  "$warder" "$@"
  local rc=$?
  set -e
  printf '\033[2m(exit %d)\033[0m\n' "$rc"
}

say "A sample workspace: a source file, a .env with a key, an SSH key, and notes.txt -> .env"
ls -lA "$ws" | sed 1d

say "Reading source code is allowed by the default ruleset:"
run read src/main.c

say "Reading .env is refused, with the rule, its reason and where it was written:"
run read .env

say "A symlink does not help: the real form (.env) is decided too, the stricter form wins:"
run read notes.txt

say "Neither does spelling the path differently (it is normalised first):"
run read ./src/../.env/

say "grep searches everything but the protected files, which it never opens (only counts):"
run grep API_KEY

say "Listing still shows names (a name is a weaker claim than contents):"
run ls

say "Writing anywhere asks for approval under the default ruleset (exit 3):"
echo 'hello' | run write hello.txt

say "Shell commands are inspected for the paths they touch, through wrappers and quotes:"
run check execute 'cd src && timeout 5 cat "../.env"'
run check execute 'sudo mkfs.ext4 /dev/sda1'

say "Inspection is a guard rail, not a boundary: grep opens files by itself, so a command the
# rules allow still reaches .env (here under the permissive preset, which allows commands):"
run --preset permissive exec -- 'grep -rl API_KEY . | sort'
say "With --mask-denied, every file the rules deny for read is an empty stand-in for the command
# (as root together with Landlock, which keeps a root command off the disk device):"
if [ "$(id -u)" = 0 ]; then
  run --preset permissive exec --mask-denied --landlock required -- 'grep -rl API_KEY . | sort'
else
  run --preset permissive exec --mask-denied -- 'grep -rl API_KEY . | sort'
fi

say "And every decision can be explained rule by rule:"
run explain read notes.txt
