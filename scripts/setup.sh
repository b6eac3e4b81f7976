#!/usr/bin/env bash
# Installs what the engine, its tests and its benchmarks need on a fresh Debian 12 machine,
# and only what is missing: the C libraries' development packages, the tools the tests drive
# (ALSA utilities, a JACK server with ALSA's jack plugin, sox, espeak-ng, opus-tools,
# iproute2, netcat, tmux, etcd and curl, and PipeWire for the end-to-end benchmark), and a
# Python venv in .venv with the speech-quality scorer.
# Safe to rerun.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
    libopus-dev libasound2-dev libspeexdsp-dev # the C libraries the engine wraps
    libsodium-dev                                # its envelopes' AEAD, which seals and opens in place
    alsa-utils jackd2 libasound2-plugins         # headless ALSA devices, real-time-paced through JACK
    sox espeak-ng opus-tools                     # fixtures and the codec reference
    iproute2                                     # network namespaces for two-host tests
    netcat-openbsd                               # `nc -U`, to talk to a control socket by hand
    tmux                                         # a terminal for the interactive console's tests
    gcc g++ binutils pkg-config                  # the C ABI's tests compile C and C++ against it
    patchelf                                     # scripts/build-sdk.sh points the SDK's library at its own folder
    python3-venv                                 # the scoring venv
    etcd-server curl                             # the relay cluster's store, and its tests' view of it
    pipewire wireplumber pipewire-alsa dbus      # `bench/run e2e --devices pipewire`: a real sound server
)
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]}" >&2
    as_root=()
    [ "$(id -u)" -eq 0 ] || as_root=(sudo)
    "${as_root[@]}" apt-get update -qq
    # pipewire-alsa would make PipeWire every program's default ALSA device; the benchmark opens
    # it by name, and everything else keeps the machine's default.
    if [[ " ${missing[*]} " == *" pipewire-alsa "* ]] \
        && ! dpkg-divert --list /etc/alsa/conf.d/99-pipewire-default.conf | grep -q .; then
        "${as_root[@]}" dpkg-divert --quiet --local --rename \
            --divert /etc/alsa/conf.d/99-pipewire-default.conf.disabled --add /etc/alsa/conf.d/99-pipewire-default.conf
    fi
    # jackd2 asks whether to enable real-time priority; answer for it.
    DEBIAN_FRONTEND=noninteractive "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    # The tests start private etcd members of their own; the package's system service is not needed.
    if [[ " ${missing[*]} " == *" etcd-server "* ]] && command -v systemctl >/dev/null \
        && systemctl is-active --quiet etcd 2>/dev/null; then
        "${as_root[@]}" systemctl disable --now etcd >/dev/null 2>&1 || true
    fi
fi

# The scorer (bench/) and the Python package's tests (pytest) run in their own venv so nothing is
# installed globally.
if [ ! -x .venv/bin/python ] || ! .venv/bin/python -c "import numpy, scipy, soundfile, pesq, pytest" 2>/dev/null; then
    echo "setup: creating the scoring venv in .venv" >&2
    python3 -m venv .venv
    .venv/bin/pip install --quiet --disable-pip-version-check -r bench/requirements.txt pytest
fi
