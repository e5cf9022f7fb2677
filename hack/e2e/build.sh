#!/usr/bin/env bash
# Builds the binaries the end-to-end harness (examples/e2e/harness) needs,
# from the Go module proxy, at pinned versions:
#
#   etcd v3.6.16, kube-apiserver + kubectl v1.36.3, Kyverno v1.19.1
#   (kyverno admission controller + reports-controller, CRDs, ConfigMaps).
#
# Nothing is downloaded except Go modules: there is no Docker and no release
# tarball on the machines this project runs on. Everything is cached OUTSIDE
# the repository, keyed by the three versions:
#
#   ${PROTECTIONPLANS_E2E_CACHE:-$HOME/.cache/protectionplans-e2e}/etcd-3.6.16_k8s-1.36.3_kyverno-1.19.1/
#     bin/{etcd,kube-apiserver,kubectl,kyverno,reports-controller}
#     kyverno/crds/{kyverno,policies.kyverno.io,policyreport,reports}/...
#     kyverno/configmaps.yaml
#
# A second run with everything present builds nothing. Each piece is built in
# a temporary directory next to its destination and renamed into place only
# when its build succeeded, so an interrupted run never leaves a half-written
# binary behind. Two runs at once serialise on a lock file.
#
# The LAST line of stdout is the absolute path of the directory holding bin/:
#
#   dir=$(hack/e2e/build.sh | tail -1)
#   PROTECTIONPLANS_E2E_ASSETS=$dir/bin go test -tags e2e ./e2e/...
#
# Everything else (progress, build times, go's own output) goes to stderr.
# Cold, on 2 cores, expect ~25-30 minutes; with a warm Go build cache about
# 1-3 minutes.
set -euo pipefail

ETCD_VERSION=v3.6.16
K8S_VERSION=v1.36.3
K8S_STAGING_VERSION=v0.36.3
KYVERNO_VERSION=v1.19.1

export GOFLAGS=-buildvcs=false
# Static, pure-Go binaries: like the upstream release builds, and no C
# toolchain needed.
export CGO_ENABLED=0
# Never let a go.work from an enclosing directory leak into these builds.
export GOWORK=off

log() { printf '[build.sh %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

command -v go >/dev/null 2>&1 || die "go is not on PATH"

cache_root=${PROTECTIONPLANS_E2E_CACHE:-$HOME/.cache/protectionplans-e2e}
key="etcd-${ETCD_VERSION#v}_k8s-${K8S_VERSION#v}_kyverno-${KYVERNO_VERSION#v}"
mkdir -p "$cache_root"
cache_root=$(cd "$cache_root" && pwd -P)
dir="$cache_root/$key"
mkdir -p "$dir/bin"

complete() {
	local b
	for b in etcd kube-apiserver kubectl kyverno reports-controller; do
		[[ -x "$dir/bin/$b" ]] || return 1
	done
	[[ -d "$dir/kyverno/crds" && -s "$dir/kyverno/configmaps.yaml" ]]
}

if complete; then
	log "all binaries present in $dir: nothing to build"
	echo "$dir"
	exit 0
fi

# Serialise concurrent builds of the same cache entry (two harnesses, two
# terminals). flock comes with util-linux; without it we simply do not lock.
if command -v flock >/dev/null 2>&1; then
	exec 9>"$dir/.lock"
	if ! flock -n 9; then
		log "another build holds $dir/.lock; waiting for it"
		flock 9
	fi
fi

# Everything temporary lives under the cache entry (same file system, so the
# final mv is an atomic rename) and is removed on exit, success or not. The
# path is fixed, not random: Go's build cache keys the main module's
# packages by their directory, so a fixed path lets a rebuild with a warm
# GOCACHE (cache entry deleted, ~/.cache/go-build kept) reuse the compiled
# Kubernetes and Kyverno packages. The lock above keeps two runs apart.
work="$dir/work"
chmod -R u+w "$work" 2>/dev/null || true
rm -rf "$work"
mkdir -p "$work"
current=""
on_exit() {
	local rc=$?
	if [[ $rc -ne 0 && -n "$current" ]]; then
		log "ERROR: building $current failed (exit $rc); nothing of it was installed"
	fi
	chmod -R u+w "$work" 2>/dev/null || true
	rm -rf "$work"
}
trap on_exit EXIT
# Run every go command outside any module or workspace of the caller's.
cd "$work"

# install_bin SRC NAME: atomically put SRC in place as bin/NAME.
install_bin() {
	local src=$1 name=$2
	chmod 0755 "$src"
	mv -f "$src" "$dir/bin/$name"
}

# timed NAME CMD...: run CMD and log how long it took.
timed() {
	local name=$1
	shift
	local start=$SECONDS
	current=$name
	log "building $name ..."
	"$@"
	current=""
	log "built $name in $((SECONDS - start))s"
}

# mod_dir MODULE@VERSION: download a module and print its directory in the
# module cache (read-only).
mod_dir() {
	local out
	out=$(go mod download -json "$1") || die "go mod download $1 failed: $out"
	# The JSON is printed one field per line; pick "Dir".
	printf '%s\n' "$out" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p' | head -1
}

# writable_copy MODULE@VERSION DEST: a writable copy of a module's source.
writable_copy() {
	local src
	src=$(mod_dir "$1")
	[[ -n "$src" && -d "$src" ]] || die "no directory for $1"
	cp -R "$src" "$2"
	chmod -R u+w "$2"
}

build_etcd() {
	local m="$work/etcd"
	mkdir -p "$m"
	cat >"$m/main.go" <<'EOF'
// Command etcd is upstream etcd's server main; `go install` of
// go.etcd.io/etcd/server/v3 is impossible because of its replace directives.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
EOF
	(
		cd "$m"
		go mod init protectionplans-e2e/etcd >&2
		go mod edit \
			-require=go.etcd.io/etcd/server/v3@$ETCD_VERSION \
			-require=go.etcd.io/etcd/api/v3@$ETCD_VERSION \
			-require=go.etcd.io/etcd/client/pkg/v3@$ETCD_VERSION \
			-require=go.etcd.io/etcd/client/v3@$ETCD_VERSION \
			-require=go.etcd.io/etcd/pkg/v3@$ETCD_VERSION
		go mod tidy >&2
		go build -ldflags "-s -w" -o "$work/etcd.bin" . >&2
	)
	install_bin "$work/etcd.bin" etcd
}

k8s_src=""
prepare_kubernetes() {
	[[ -n "$k8s_src" ]] && return 0
	k8s_src="$work/kubernetes"
	log "preparing a writable copy of k8s.io/kubernetes@$K8S_VERSION"
	writable_copy "k8s.io/kubernetes@$K8S_VERSION" "$k8s_src"
	(
		cd "$k8s_src"
		# go.work points at ./staging, whose modules are not in the module
		# zip; vendor/ would switch on vendor mode.
		rm -rf go.work go.work.sum vendor
		local args=() p
		# Drop every k8s.io/X => ./staging/... replace ...
		for p in $(awk '$2 == "=>" && $3 ~ /^\.\/staging\// {print $1}' go.mod); do
			args+=("-dropreplace=$p")
		done
		# ... and pin only the staging modules go.mod really requires at the
		# published version (sample-cli-plugin and sample-controller are only
		# replaced, and not served by the proxy).
		for p in $(awk '/^require[[:space:]]*\(/{r=1;next} r&&/^\)/{r=0} r&&$2=="v0.0.0"{print $1}' go.mod); do
			args+=("-require=$p@$K8S_STAGING_VERSION")
		done
		[[ ${#args[@]} -gt 0 ]] || die "no staging replaces found in kubernetes go.mod"
		go mod edit "${args[@]}"
	)
}

k8s_ldflags() {
	local minor=${K8S_VERSION#v1.}
	minor=${minor%%.*}
	local f="-s -w" pkg
	for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
		f+=" -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
	done
	printf '%s' "$f"
}

build_k8s() { # build_k8s NAME
	prepare_kubernetes
	(
		cd "$k8s_src"
		go build -mod=mod -ldflags "$(k8s_ldflags)" -o "$work/$1.bin" "./cmd/$1" >&2
	)
	install_bin "$work/$1.bin" "$1"
}

kyverno_src=""
prepare_kyverno() {
	[[ -n "$kyverno_src" ]] && return 0
	kyverno_src="$work/kyverno"
	log "preparing a writable copy of github.com/kyverno/kyverno@$KYVERNO_VERSION"
	writable_copy "github.com/kyverno/kyverno@$KYVERNO_VERSION" "$kyverno_src"
	rm -rf "$kyverno_src/go.work" "$kyverno_src/go.work.sum" "$kyverno_src/vendor"
}

build_kyverno() { # build_kyverno NAME
	prepare_kyverno
	(
		cd "$kyverno_src"
		go build -ldflags "-s -w -X github.com/kyverno/kyverno/pkg/version.BuildVersion=$KYVERNO_VERSION" \
			-o "$work/$1.bin" "./cmd/$1" >&2
	)
	install_bin "$work/$1.bin" "$1"
}

kyverno_assets() {
	prepare_kyverno
	local out="$work/kyverno-assets" d
	mkdir -p "$out/crds"
	for d in kyverno policies.kyverno.io policyreport reports; do
		[[ -d "$kyverno_src/config/crds/$d" ]] || die "missing config/crds/$d in kyverno $KYVERNO_VERSION"
		cp -R "$kyverno_src/config/crds/$d" "$out/crds/$d"
	done
	local install="$kyverno_src/config/install-latest-testing.yaml"
	[[ -f "$install" ]] || die "missing $install"
	# Keep only the documents whose top-level kind is ConfigMap.
	awk '
		function flush() { if (doc != "" && iscm) printf "---\n%s", doc; doc = ""; iscm = 0 }
		/^---[[:space:]]*$/ { flush(); next }
		{ doc = doc $0 "\n"; if ($0 ~ /^kind:[[:space:]]*ConfigMap[[:space:]]*$/) iscm = 1 }
		END { flush() }
	' "$install" >"$out/configmaps.yaml"
	local n
	n=$(grep -c '^kind: *ConfigMap' "$out/configmaps.yaml" || true)
	[[ "$n" -ge 2 ]] || die "expected at least 2 ConfigMaps in $install, found $n"
	log "kyverno assets: $(find "$out/crds" -name '*.yaml' | wc -l) CRD files, $n ConfigMaps"
	rm -rf "$dir/kyverno"
	mv "$out" "$dir/kyverno"
}

total_start=$SECONDS
log "go: $(go version); cache: $dir"
# Plain if-statements, not `test || build`: bash ignores set -e inside a
# function called on the right of || or &&, and a failed build must stop.
if [[ ! -x "$dir/bin/etcd" ]]; then timed etcd build_etcd; fi
if [[ ! -d "$dir/kyverno/crds" || ! -s "$dir/kyverno/configmaps.yaml" ]]; then timed kyverno-assets kyverno_assets; fi
if [[ ! -x "$dir/bin/kube-apiserver" ]]; then timed kube-apiserver build_k8s kube-apiserver; fi
if [[ ! -x "$dir/bin/kubectl" ]]; then timed kubectl build_k8s kubectl; fi
if [[ ! -x "$dir/bin/kyverno" ]]; then timed kyverno build_kyverno kyverno; fi
if [[ ! -x "$dir/bin/reports-controller" ]]; then timed reports-controller build_kyverno reports-controller; fi
complete || die "build finished but $dir is incomplete"
log "done in $((SECONDS - total_start))s"
echo "$dir"
