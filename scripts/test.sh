#!/usr/bin/env bash
# The whole test suite: installs what is missing, then builds and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift build --build-tests
swift test --skip-build "$@"
