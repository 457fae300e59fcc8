#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the libFuzzer harnesses (clang, ASan+UBSan) in build-fuzz and runs each one for a
# bounded time on a scratch copy of its corpus (the repository is never written to).
# Usage: scripts/fuzz.sh [SECONDS_PER_HARNESS] [HARNESS...]
#   SECONDS_PER_HARNESS  default 60; HARNESS: path, glob, ruleset, command, guard, serve, mcp,
#   hook (default: all of them).
# Environment: FUZZ_BUILDDIR (default build-fuzz), FUZZ_RSS_MB (default 2048),
#   FUZZ_TIMEOUT (seconds per input, default 10), FUZZ_ARGS (extra libFuzzer flags).
# Exit status: 0 when no harness found anything, 1 on a finding or a build failure.
# On a finding it prints the reproducer's path, a hexdump and its base64.
set -uo pipefail
cd "$(dirname "$0")/.."

secs=${1:-60}
shift || true
case $secs in '' | *[!0-9]*) echo "fuzz.sh: SECONDS_PER_HARNESS must be a number" >&2; exit 2 ;; esac
builddir=${FUZZ_BUILDDIR:-build-fuzz}
rss=${FUZZ_RSS_MB:-2048}
per_input=${FUZZ_TIMEOUT:-10}

# -max_len per harness: large enough for the inputs that matter, small enough to stay fast.
max_len() {
  case $1 in
    path) echo 1024 ;;
    glob) echo 512 ;;
    ruleset) echo 16384 ;;
    command) echo 2048 ;;
    guard) echo 1024 ;;
    serve) echo 8192 ;;
    mcp) echo 8192 ;;
    hook) echo 4096 ;;
    grep) echo 4096 ;;
    *) echo 4096 ;;
  esac
}

scripts/setup.sh || exit 1
if [ ! -f "$builddir/build.ninja" ]; then
  if ! CC=clang meson setup "$builddir" -Dfuzzing=libfuzzer -Db_sanitize=address,undefined \
      -Db_lundef=false -Dwerror=true -Dtests=false >"$builddir.setup.log" 2>&1; then
    cat "$builddir.setup.log" >&2
    echo "fuzz.sh: meson setup failed" >&2
    exit 1
  fi
  rm -f "$builddir.setup.log"
fi
if ! ninja -C "$builddir" >"$builddir/fuzz-build.log" 2>&1; then
  tail -n 50 "$builddir/fuzz-build.log" >&2
  echo "fuzz.sh: build failed" >&2
  exit 1
fi

all=(path glob ruleset command guard serve mcp hook grep)
if [ $# -gt 0 ]; then
  for name in "$@"; do
    case " ${all[*]} " in *" $name "*) ;; *) echo "fuzz.sh: unknown harness '$name'" >&2; exit 2 ;; esac
  done
  all=("$@")
fi

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
summary=()
for name in "${all[@]}"; do
  exe=$builddir/fuzz/fuzz-$name
  if [ ! -x "$exe" ]; then
    summary+=("$name: NOT BUILT ($exe is missing)")
    status=1
    continue
  fi
  run=$builddir/fuzz-run/$name
  rm -rf "$run"
  mkdir -p "$run/corpus" "$run/artifacts"
  cp -R "fuzz/corpus/$name/." "$run/corpus/" 2>/dev/null || true
  # Extra seeds (keep in step with fuzz_extra_corpora in fuzz/meson.build).
  [ "$name" = ruleset ] && cp rules/*.yaml "$run/corpus/" 2>/dev/null
  dict=()
  [ -f "fuzz/$name.dict" ] && dict=("-dict=fuzz/$name.dict")
  echo "== fuzz-$name: ${secs}s, -max_len=$(max_len "$name") -rss_limit_mb=$rss -timeout=$per_input"
  # shellcheck disable=SC2086
  "$exe" -max_total_time="$secs" -max_len="$(max_len "$name")" -rss_limit_mb="$rss" \
    -timeout="$per_input" -print_final_stats=1 "${dict[@]}" \
    -artifact_prefix="$run/artifacts/" ${FUZZ_ARGS:-} "$run/corpus" >"$run/log.txt" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$run/log.txt" | tail -n 1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$run/log.txt" | tail -n 1)
  found=$(find "$run/artifacts" -type f | head -n 5)
  if [ $rc -ne 0 ] || [ -n "$found" ]; then
    status=1
    summary+=("$name: FINDING (exit $rc) after ${execs:-?} executions")
    echo "== fuzz-$name: finding (exit $rc); last lines of $run/log.txt:" >&2
    grep -v '^#[0-9]' "$run/log.txt" | tail -n 60 >&2
    for f in $found; do
      echo "-- reproducer: $f ($(wc -c <"$f") bytes)" >&2
      od -A x -t x1z -v "$f" | head -n 32 >&2
      echo "-- base64:" >&2
      base64 -w 76 "$f" | head -n 40 >&2
      echo "-- replay: $exe $f" >&2
    done
  else
    summary+=("$name: ok, ${execs:-?} executions, ${rate:-?} exec/s, corpus $(find "$run/corpus" -type f | wc -l) inputs")
  fi
done

echo "== fuzz summary (${secs}s per harness)"
printf '  %s\n' "${summary[@]}"
exit $status
