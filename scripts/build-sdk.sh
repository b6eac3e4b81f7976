#!/usr/bin/env bash
# Makes sdk/: what a game developer copies to embed the engine from C, C++, C# or Python.
#   sdk/include/voicechat.h       the C ABI
#   sdk/lib/libvoicechat.so       the library, finding what it needs beside it ($ORIGIN)
#   sdk/lib/libswift*.so, ...     the Swift runtime it was built with, so no toolchain is needed
#   sdk/lib/pkgconfig/voicechat.pc
# The libraries the engine wraps (libopus, alsa-lib, libspeexdsp, libsodium) stay Debian's.
# Usage: scripts/build-sdk.sh [DIR]   (default: sdk in the project)
set -euo pipefail
cd "$(dirname "$0")/.."
sdk=${1:-sdk}
command -v patchelf >/dev/null || { echo "build-sdk: patchelf is missing: run scripts/setup.sh" >&2; exit 1; }
# A build folder of its own: the SDK's release build never waits on (or for) another build's lock.
swift build -c release --product voicechat-c --scratch-path .build-sdk >&2
bin=$(swift build -c release --scratch-path .build-sdk --show-bin-path)
toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")
rm -rf "$sdk"
mkdir -p "$sdk/include" "$sdk/lib/pkgconfig"
cp Sources/CVoiceChatABI/include/voicechat.h "$sdk/include/"
cp "$bin/libvoicechat-c.so" "$sdk/lib/libvoicechat.so"
# The toolchain's libraries the library loads, directly or through each other; they find each
# other through their own $ORIGIN.
ldd "$bin/libvoicechat-c.so" | awk -v toolchain="$toolchain" '$3 ~ "^" toolchain { print $3 }' | while read -r library; do
    cp -L "$library" "$sdk/lib/"
done
# One change a call: patchelf 0.14 leaves the run path as it was when both come in one.
patchelf --set-soname libvoicechat.so "$sdk/lib/libvoicechat.so"
patchelf --set-rpath '$ORIGIN' "$sdk/lib/libvoicechat.so"
cat > "$sdk/lib/pkgconfig/voicechat.pc" <<'PC'
prefix=${pcfiledir}/../..
includedir=${prefix}/include
libdir=${prefix}/lib

Name: voicechat
Description: Real-time voice chat for games: the C ABI
Version: 1
Requires.private: opus alsa speexdsp libsodium
Cflags: -I${includedir}
Libs: -L${libdir} -lvoicechat -Wl,-rpath,${libdir}
PC
echo "build-sdk: made $sdk ($(du -sh "$sdk" | cut -f1)); link with: cc \$(pkg-config --cflags --libs $sdk/lib/pkgconfig/voicechat.pc)" >&2
