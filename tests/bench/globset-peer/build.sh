#!/bin/sh
# Builds the globset peer offline from Debian's packaged crates, or writes a stand-in that
# prints why it could not (bench-peers then prints the reason and skips globset).
# Usage: build.sh SOURCE_DIR OUTPUT TARGET_DIR
set -u
src=$1 out=$2 target=$3
registry=/usr/share/cargo/registry
skip() {
  printf '#!/bin/sh\necho "globset peer skipped: %s" >&2\nexit 3\n' "$1" >"$out"
  chmod +x "$out"
  exit 0
}
command -v cargo >/dev/null 2>&1 || skip "cargo is not installed (Debian: cargo)"
ls -d "$registry"/globset-* >/dev/null 2>&1 ||
  skip "no globset in $registry (Debian: librust-globset-dev)"
ls -d "$registry"/libc-* >/dev/null 2>&1 || skip "no libc crate in $registry (Debian: librust-libc-dev)"
mkdir -p "$target/work/src" "$target/work/.cargo"
cp "$src/Cargo.toml" "$target/work/"
cp "$src/src/main.rs" "$target/work/src/"
cat >"$target/work/.cargo/config.toml" <<CFG
[source.crates-io]
replace-with = "debian"
[source.debian]
directory = "$registry"
[net]
offline = true
CFG
if ! (cd "$target/work" && cargo build --release --offline --quiet --target-dir "$target/cargo") \
  >"$target/cargo.log" 2>&1; then
  skip "cargo build failed (see $target/cargo.log)"
fi
cp "$target/cargo/release/globset-peer" "$out"
