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
for m in examples test/kyverno; do
  [ -f "$m/go.mod" ] && modules+=("$m")
done

step "gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi

for m in "${modules[@]}"; do
  step "go vet ($m)"
  (cd "$m" && go vet ./...)
  step "go test ($m)"
  (cd "$m" && go test -count=1 ./...)
done
