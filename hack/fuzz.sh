#!/usr/bin/env bash
# Runs every native Go fuzz target (func FuzzXxx(f *testing.F)) of the root
# module, one at a time, each for ${FUZZTIME:-15s}, and fails if any finds
# a failing input. Targets are discovered with `go test -list '^Fuzz'`, so a
# new one (in any package of the module) is picked up without editing this
# file. For each target it prints the executions per second Go reported:
# the last "fuzz: elapsed: ..., execs: N (R/sec)" line, and N over the
# elapsed time (R is the rate of the last three seconds only, and is 0 when
# the workers were minimizing an input then).
#
#   hack/fuzz.sh                      # every target, 15s each
#   FUZZTIME=2m hack/fuzz.sh Ledger   # the targets whose name matches Ledger
#
# Settings (environment):
#   FUZZTIME          -fuzztime of each target (default 15s; 1000x is a count)
#   FUZZMINIMIZETIME  -fuzzminimizetime (default 10x): how long Go minimizes
#                     each new input before going on. Go's default, 60s, spends
#                     most of a short run minimizing inputs that are merely
#                     interesting; a failing input is written either way, and
#                     can be minimized later with a longer setting.
#   FUZZPARALLEL      -parallel, the number of fuzzing workers (default: Go's,
#                     GOMAXPROCS)
#
# A failing input is written to <package>/testdata/fuzz/<target>/ by Go; the
# script names it and `go test -run '<target>/<file>' ./<package>` replays
# it. Once fixed, keep the file: it is a regression seed.
#
# Go 1.26 can fail a target with a bare "context deadline exceeded" when the
# fuzz time ends while a worker is busy (golang/go#75804, fixed in Go 1.27),
# without any failing input. The script tells that apart from a finding: it
# then replays the target's seed corpus, and counts the target as passed
# (with a warning) when the corpus passes and no input was written.
set -euo pipefail
cd "$(dirname "$0")/.."
export GOFLAGS="${GOFLAGS:--buildvcs=false}"

fuzztime="${FUZZTIME:-15s}"
minimizetime="${FUZZMINIMIZETIME:-10x}"
filter="${1:-.}"
parallel=()
if [ -n "${FUZZPARALLEL:-}" ]; then
  parallel=(-parallel "$FUZZPARALLEL")
fi

# seconds converts a Go duration as the fuzzer prints it (1m5s, 31s, 1h0m0s)
# to seconds.
seconds() {
  awk -v d="$1" 'BEGIN {
    s = 0
    while (match(d, /^[0-9.]+(h|ms|m|s)/)) {
      part = substr(d, 1, RLENGTH); d = substr(d, RLENGTH + 1)
      n = part + 0; u = part; sub(/^[0-9.]+/, "", u)
      if (u == "h") s += n * 3600; else if (u == "m") s += n * 60; else if (u == "ms") s += n / 1000; else s += n
    }
    print s
  }'
}

# Discover the targets: `go test -list` prints the names matching the
# pattern, then "ok <package> <time>" for each package.
echo "== discovering fuzz targets (go test -list '^Fuzz' ./...)"
if ! listing=$(go test -list '^Fuzz' ./... 2>&1); then
  echo "$listing"
  echo "FAIL: cannot list the fuzz targets (a package does not build?)"
  exit 1
fi
targets=() # "<package> <name>"
pending=()
while IFS= read -r line; do
  case "$line" in
    Fuzz*) pending+=("$line") ;;
    ok*)
      pkg=$(awk '{print $2}' <<<"$line")
      for name in "${pending[@]}"; do
        if [[ "$name" =~ $filter ]]; then
          targets+=("$pkg $name")
        fi
      done
      pending=()
      ;;
  esac
done <<<"$listing"
if [ "${#targets[@]}" -eq 0 ]; then
  echo "no fuzz target matches '$filter'"
  exit 1
fi
printf '   %s\n' "${targets[@]}"

# Go keeps every input a fuzzer found interesting in its build cache and
# replays them all before fuzzing anew: after a few long runs, that alone
# can take a short run's whole time (FuzzRender's 380 inputs took over
# 15s). CI fuzzes from the checked-in seed corpus each time, so that every
# target fuzzes for its FUZZTIME; elsewhere the cache is kept.
if [ "${CI:-}" = true ]; then
  go clean -fuzzcache
fi

log_dir=$(mktemp -d)
trap 'rm -rf "$log_dir"' EXIT
summary=()
failed=0
for target in "${targets[@]}"; do
  pkg=${target% *}
  name=${target#* }
  dir=${pkg#github.com/telark/protectionplans}
  dir=".${dir:-}"
  log="$log_dir/$name.log"
  echo
  echo "== $name ($dir) for $fuzztime"
  status=0
  go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimizetime" \
    "${parallel[@]}" "$dir" 2>&1 | tee "$log" || status=$?
  # The last line reporting executions, e.g.
  # "fuzz: elapsed: 15s, execs: 123456 (8123/sec), new interesting: 3 (total: 12)".
  last=$(grep -E '^fuzz: elapsed: [^,]+, execs: [0-9]+ \([0-9]+/sec\)' "$log" | tail -n 1 || true)
  rate="no executions reported"
  if [ -n "$last" ]; then
    elapsed=$(sed -E 's/^fuzz: elapsed: ([^,]+),.*/\1/' <<<"$last")
    execs=$(sed -E 's/.*execs: ([0-9]+) .*/\1/' <<<"$last")
    lastrate=$(sed -E 's/.*execs: [0-9]+ \(([0-9]+)\/sec\).*/\1/' <<<"$last")
    secs=$(seconds "$elapsed")
    avg=$(awk -v n="$execs" -v s="$secs" 'BEGIN { if (s > 0) printf "%.0f", n / s; else print "?" }')
    rate="$execs execs in $elapsed: $avg execs/sec on average (last report: $lastrate/sec)"
  fi
  written=$(sed -nE 's/^ *Failing input written to (.*)$/\1/p' "$log" | tail -n 1)
  verdict=ok
  if [ "$status" -ne 0 ]; then
    verdict=FAIL
    # A bare deadline (golang/go#75804): no input written, no other failure
    # message. Replay the corpus to make sure nothing is there to find.
    others=$(grep -vE '^(fuzz: |warning: |--- FAIL: |    context deadline exceeded$|FAIL|exit status |ok )' "$log" | grep -vE '^\s*$' || true)
    if [ -z "$written" ] && grep -q '^    context deadline exceeded$' "$log" && [ -z "$others" ]; then
      echo "-- $name stopped with Go's fuzz-time race (golang/go#75804); replaying its seed corpus"
      if go test -count=1 -run "^${name}\$" "$dir"; then
        verdict="ok (Go's fuzz-time race, golang/go#75804: no input written, corpus passes)"
      fi
    fi
  fi
  if [ "$verdict" = FAIL ]; then
    failed=1
    if [ -n "$written" ]; then
      verdict="FAIL: failing input $dir/$written (replay: go test -run '$name/$(basename "$written")' $dir)"
    else
      verdict="FAIL (exit status $status; see the output above)"
    fi
  fi
  summary+=("$name ($dir): $rate; $verdict")
done

echo
echo "== summary (FUZZTIME=$fuzztime, FUZZMINIMIZETIME=$minimizetime)"
printf '%s\n' "${summary[@]}"
exit "$failed"
