#!/usr/bin/env bash
# Installs the Debian packages zksim needs, and does nothing when they are all there.
# Usage: scripts/install-deps.sh   (needs root, or sudo, only when something is missing)
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libgtest-dev libgmock-dev librapidcheck-dev libfmt-dev libbenchmark-dev libssl-dev
  libzookeeper-mt-dev          # the real backend: ZooKeeper's C client
  nlohmann-json3-dev           # the zksim program's --json output
  zookeeper default-jre-headless  # the real server the conformance tests start
  chromium                     # the HTML timeline test loads the page in headless Chromium
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
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
