#!/usr/bin/env bash
# Regenerates Fixtures/: two speech clips (a male and a female synthetic voice), a noise clip
# and a tone, all 48 kHz mono 16-bit WAV. Needs espeak-ng and sox (scripts/setup.sh installs
# them). The output is deterministic for a given espeak-ng/sox version, so rerunning it
# normally changes nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
out=Fixtures
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

male_text="The quick brown fox jumps over the lazy dog. Meet me at the north gate, bring two health packs \
and watch the ridge on the left. I can hear footsteps behind the wall. Hold your position until I say go."
female_text="Enemy team spotted near the bridge, three players, one with a sniper rifle. I'm falling back to \
the tower to heal. Can someone cover the east door? Great shot, that was close. Let's regroup at the flag."

# espeak-ng speaks at 22.05 kHz; sox resamples to 48 kHz with its high-quality filter and
# normalises to -3 dBFS so that every clip uses the codec's range the same way.
espeak-ng -v en-us+m3 -s 150 -w "$tmp/male.wav" "$male_text"
espeak-ng -v en-us+f3 -s 160 -p 60 -w "$tmp/female.wav" "$female_text"
sox "$tmp/male.wav" -r 48000 -c 1 -b 16 "$out/speech-male.wav" rate -v norm -3
sox "$tmp/female.wav" -r 48000 -c 1 -b 16 "$out/speech-female.wav" rate -v norm -3

# Pink noise at about -30 dBFS RMS, 4 s, seeded so that it regenerates identically.
sox -R -n -r 48000 -c 1 -b 16 "$out/noise-pink.wav" synth 4 pinknoise vol 0.1
# A 1 kHz tone at -6 dBFS, 2 s.
sox -n -r 48000 -c 1 -b 16 "$out/tone-1k.wav" synth 2 sine 1000 vol 0.5

for f in "$out"/*.wav; do
    printf '%-28s %s s\n' "$f" "$(soxi -D "$f")"
done
