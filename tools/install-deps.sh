#!/usr/bin/env bash
# Installs the Debian 12 packages the build and the tests need (list: tools/debian-packages.txt).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
sudo=""
if [[ $(id -u) != 0 ]]; then sudo="sudo"; fi
$sudo apt-get update
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
  $(grep -v '^#' "$here/debian-packages.txt")
