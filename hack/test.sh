#!/usr/bin/env bash
# The whole test suite of the repository: formatting, vet, every module's
# unit tests, and (unless PROTECTIONPLANS_SKIP_E2E=1) the end-to-end tests
# against a real kube-apiserver and Kyverno, whose binaries hack/e2e/build.sh
# builds once and caches outside the repository.
set -euo pipefail
cd "$(dirname "$0")/.."
export GOFLAGS="${GOFLAGS:--buildvcs=false}"

step() { printf '\n== %s\n' "$*"; }

# Every Go module of the repository, the library first.
modules=(.)
for m in examples test/kyverno test/install; do
  [ -f "$m/go.mod" ] && modules+=("$m")
done

step "gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi

# The library and the examples' unit tests run under the race detector
# (some tests, such as window's TestConcurrentUse, share values between
# goroutines on purpose). test/kyverno compiles Kyverno itself, which the
# race detector would slow for nothing: its tests run in one goroutine.
for m in "${modules[@]}"; do
  step "go vet ($m)"
  (cd "$m" && go vet ./...)
  race=-race
  [ "$m" = test/kyverno ] && race=
  step "go test $race ($m)"
  (cd "$m" && go test $race -count=1 ./...)
done

# The server's OpenAPI document, as served (TestOpenAPIGolden keeps the
# file current), against Redocly's recommended-strict rules.
step "OpenAPI lint"
bash hack/openapi-lint.sh

# Under -race the window zone sweep runs short; here it runs as CI should
# (every zone of Go's and the system's zone database, three years each;
# PROTECTIONPLANS_WINDOW_SWEEP=full sweeps every year from 1970 to 2100).
# protectctl over the New Years Go's zone bounds break on, with 2 GB of
# address space (which the race detector's reservations do not fit in).
step "window zone sweep and the New Year's Eve regression"
go test -count=1 -run '^TestZoneSweep$' -v ./window
(cd examples && go test -count=1 -run '^TestWindowsOverNewYearsEveOfLeapYears$' -v ./cli)

# Every fuzz target of the library, a short while each (FUZZTIME, 15s by
# default), so that a new crash fails a submission.
step "fuzz targets"
bash hack/fuzz.sh

# The HTML report and the server's dashboard rendered to PNG in headless
# Chromium (a person must be able to read them). CI installs chromium and sets
# PROTECTIONPLANS_REQUIRE_CHROMIUM=1 so that the check can never be skipped
# there; elsewhere it is skipped, loudly, when chromium is missing.
step "chromium screenshot checks"
if command -v chromium >/dev/null 2>&1; then
  go test -count=1 -tags chromium -run Screenshot ./report/
  (cd examples && go test -count=1 -tags chromium -run Screenshot ./server/)
elif [ "${PROTECTIONPLANS_REQUIRE_CHROMIUM:-}" = 1 ]; then
  echo "chromium is required but not installed (apt-get install -y chromium)"; exit 1
else
  echo "SKIPPED: chromium is not installed (apt-get install -y chromium)"
fi

# End-to-end tests against a real kube-apiserver, etcd and Kyverno on
# loopback. The binaries are built once from the Go module proxy and cached
# outside the repository (cold: about 30 minutes on 2 cores; warm: nothing).
# Packages run one at a time (-p 1): each starts its own control plane.
if [ "${PROTECTIONPLANS_SKIP_E2E:-}" = 1 ]; then
  step "end-to-end tests: SKIPPED (PROTECTIONPLANS_SKIP_E2E=1)"
  exit 0
fi
step "end-to-end harness binaries"
assets="$(bash hack/e2e/build.sh | tail -n 1)/bin"
export PROTECTIONPLANS_E2E_ASSETS="$assets"
# Only the tests of the e2e files, in the packages that have them: every
# other test of the module ran above already (under -race), and running
# them again with -tags e2e cost minutes for nothing.
e2e_tests() {
  local files pkgs names
  files=$(grep -l '^//go:build e2e' $(git ls-files '*_test.go'))
  pkgs=$(for f in $files; do echo "./$(dirname "$f")"; done | sort -u)
  names=$(sed -n 's/^func \(Test[A-Za-z0-9_]*\)(t \*testing\.T).*/\1/p' $files | sort -u | paste -sd'|')
  echo "packages: $(echo $pkgs)"
  go test -count=1 -p 1 -tags e2e -timeout 40m -run "^($names)\$" $pkgs
}
for m in examples test/kyverno; do
  step "end-to-end tests ($m)"
  (cd "$m" && e2e_tests)
done
