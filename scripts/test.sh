#!/usr/bin/env bash
# Builds warder and runs the whole test suite twice: a normal build and an ASan+UBSan build,
# both with warnings as errors. The ASan build is also a fault-injection build
# (-Dfault_injection=true), so it runs tests/test-fault.c, which fails every failure point of
# the guarded operations in turn, under the sanitizers. Ends with the line "N passed, N failed".
# Usage: scripts/test.sh [--quick]   (--quick: the normal build only)
set -uo pipefail
cd "$(dirname "$0")/.."

quick=0
[ "${1:-}" = "--quick" ] && quick=1

scripts/setup.sh || exit 1

passed=0
failed=0
status=0

run_suite() {
  local builddir=$1
  shift
  echo "== $builddir: $*"
  if ! scripts/build.sh "$builddir" -Dwerror=true "$@"; then
    echo "== $builddir: build failed" >&2
    failed=$((failed + 1))
    status=1
    return
  fi
  meson test -C "$builddir" --print-errorlogs --num-processes 2 >"$builddir/test-output.txt" 2>&1
  local rc=$?
  tail -n 12 "$builddir/test-output.txt"
  [ $rc -eq 0 ] || { grep -E '^ *[0-9]+/[0-9]+ .*(FAIL|TIMEOUT|ERROR)' "$builddir/test-output.txt"; status=1; }
  local counts
  counts=$(python3 - "$builddir/meson-logs/testlog.json" <<'PY'
import json, sys
ok = bad = 0
try:
    for line in open(sys.argv[1]):
        if not line.strip():
            continue
        r = json.loads(line)["result"]
        if r in ("OK", "SKIP", "EXPECTEDFAIL"):
            ok += 1
        else:
            bad += 1
except (OSError, ValueError, KeyError):
    bad += 1  # an unreadable log counts as a failure, never as a pass
print(ok, bad)
PY
)
  passed=$((passed + ${counts% *}))
  failed=$((failed + ${counts#* }))
}

run_suite build
if [ $quick -eq 0 ]; then
  run_suite build-asan -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug \
    -Dfault_injection=true
fi

echo "$passed passed, $failed failed"
exit $status
