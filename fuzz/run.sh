#!/usr/bin/env bash
# Runs one fuzz target for SECONDS with its seeds, bounded memory and a hang limit; prints libFuzzer's final
# statistics (executions, coverage). Crashers land in fuzz/artifacts/TARGET/: copy each into
# fuzz/regressions/TARGET/ once fixed, where tests/tests/integration/fuzz_regressions.rs replays it.
# usage: fuzz/run.sh TARGET SECONDS [MAX_LEN]    (needs the nightly toolchain and `cargo install cargo-fuzz`)
set -euo pipefail
cd "$(dirname "$0")"
target=$1 seconds=$2 max_len=${3:-4096}
mkdir -p "corpus/$target"
exec cargo +nightly fuzz run -O -s none "$target" "corpus/$target" "seeds/$target" -- \
  -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -max_len="$max_len" -print_final_stats=1
