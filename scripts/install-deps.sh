#!/usr/bin/env bash
# Installs the Debian packages zksim needs, and does nothing when they are all there.
# Usage: scripts/install-deps.sh   (needs root, or sudo, only when something is missing)
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  lld                          # links the tests four times faster than GNU ld (CMakeLists.txt)
  libgtest-dev libgmock-dev librapidcheck-dev libfmt-dev libbenchmark-dev libssl-dev
  libzookeeper-mt-dev          # the real backend: ZooKeeper's C client
  nlohmann-json3-dev           # the zksim program's --json output
  zookeeper default-jre-headless  # the real server the conformance tests start
  redis-server libhiredis-dev   # the Redis model's conformance tests (label lease-real): Redis 7.0 and its C client
  etcd-server                  # the real etcd 3.4 the etcd model is compared with (tests/etcd, label lease-real)
  libcurl4-openssl-dev         # that test talks to etcd's gRPC gateway (JSON over HTTP) with libcurl
  chromium                     # the HTML timeline test loads the page in headless Chromium
  jq                           # scripts/figures.sh reads the benchmarks' and zksim's JSON reports
  python3                      # tests/docs/docs_check.py runs and checks the documents' commands
  clang libclang-rt-14-dev     # the wire decoders' libFuzzer smoke test (tests/wire/fuzz)
  python3-kazoo                # tests/wire/capture/capture.py: kazoo is one of the captured clients,
                               # and tests/wire/clients/kazoo_recipes.py runs its recipes on zksim serve
  libcurator-recipes-java default-jdk-headless  # tests/wire/clients: Curator's recipes, compiled with javac
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}" >&2
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
# Another apt-get (unattended upgrades, a second build) may hold apt's locks:
# wait for them, up to this long, rather than fail at once. Measured with
# apt 2.6: DPkg::Lock::Timeout makes install wait for the dpkg lock, but
# update does not wait for the lists lock it takes, so update is retried
# (its message read in the C locale). The environment goes through env:
# sudo does not pass the caller's on.
lock_wait_s=600
apt_get=("${sudo_cmd[@]}" env LC_ALL=C DEBIAN_FRONTEND=noninteractive apt-get -o "DPkg::Lock::Timeout=$lock_wait_s")
waited_s=0
until update_err="$("${apt_get[@]}" update -qq 2>&1 >/dev/null)"; do
  if ! grep -q "Could not get lock" <<<"$update_err" || [ "$waited_s" -ge "$lock_wait_s" ]; then
    printf '%s\n' "$update_err" >&2
    exit 1
  fi
  sleep 5
  waited_s=$((waited_s + 5))
done
"${apt_get[@]}" install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
