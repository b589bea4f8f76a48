#!/usr/bin/env bash
# The README's second command: build and run every test suite (see docs/testing.md).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/build.sh build
ctest --test-dir build --output-on-failure --parallel "$(nproc)"
