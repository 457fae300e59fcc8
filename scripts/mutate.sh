#!/usr/bin/env bash
# Mutation testing of the security core (docs/testing.md): scripts/mutate.py at low priority.
# Usage: scripts/mutate.sh [mutate.py options]   e.g. --changed main, --files src/guard.c
set -euo pipefail
cd "$(dirname "$0")/.."
exec nice -n 10 python3 scripts/mutate.py "$@"
