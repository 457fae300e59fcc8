#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds warder and runs the whole test suite twice: a normal build and an ASan+UBSan build,
# both with warnings as errors. The ASan build is also a fault-injection build
# (-Dfault_injection=true), so it runs tests/test-fault.c, which fails every failure point of
# the guarded operations in turn, under the sanitizers. Names every skipped test with the reason it printed, and ends
# with the line "N passed, N failed, N skipped" (a skipped test is never counted as passed).
# Exit status: 0 when nothing failed (skips allowed), 1 otherwise.
# Usage: scripts/test.sh [--quick]   (--quick: the normal build only)
set -uo pipefail
cd "$(dirname "$0")/.."

quick=0
[ "${1:-}" = "--quick" ] && quick=1

scripts/setup.sh || exit 1
# setup.sh installed node and the MCP suite's modules: their absence is a failure here, not a skip
export WARDER_REQUIRE_NODE=1

passed=0
failed=0
skipped=0
skip_notes=()
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
  rm -f "$builddir/meson-logs/testlog.json" # a stale log must never be counted
  meson test -C "$builddir" --print-errorlogs --num-processes 2 >"$builddir/test-output.txt" 2>&1
  local rc=$?
  tail -n 12 "$builddir/test-output.txt"
  [ $rc -eq 0 ] || { grep -E '^ *[0-9]+/[0-9]+ .*(FAIL|TIMEOUT|ERROR)' "$builddir/test-output.txt"; status=1; }
  # One line per test from meson's log: RESULT<TAB>NAME<TAB>REASON (the reason for a skip is
  # the line the test printed starting with "SKIP:", else its last line of output).
  local results
  results=$(python3 - "$builddir/meson-logs/testlog.json" <<'PY'
import json, sys
try:
    lines = [l for l in open(sys.argv[1]) if l.strip()]
    for line in lines:
        r = json.loads(line)
        out = [l.strip() for l in (r.get("stdout") or "").splitlines() if l.strip()]
        reason = next((l[5:].strip() for l in out if l.startswith("SKIP:")), out[-1] if out else "")
        name = r["name"].split(" / ", 1)[-1]
        print("%s\t%s\t%s" % (r["result"], name, reason.replace("\t", " ")))
    if not lines:
        print("ERROR\t(meson test)\tno test ran")
except (OSError, ValueError, KeyError):
    # an unreadable log counts as a failure, never as a pass
    print("ERROR\t(meson test)\tthe test log cannot be read")
PY
)
  local result name reason
  while IFS=$'\t' read -r result name reason; do
    case $result in
      OK | EXPECTEDFAIL) passed=$((passed + 1)) ;;
      SKIP)
        skipped=$((skipped + 1))
        skip_notes+=("$builddir: $name: ${reason:-(no reason printed)}")
        ;;
      *)
        failed=$((failed + 1))
        status=1
        ;;
    esac
  done <<<"$results"
}

run_suite build
if [ $quick -eq 0 ]; then
  run_suite build-asan -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug \
    -Dfault_injection=true
fi

for note in "${skip_notes[@]}"; do
  echo "skipped: $note"
done
echo "$passed passed, $failed failed, $skipped skipped"
exit $status
