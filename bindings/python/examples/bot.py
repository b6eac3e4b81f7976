"""A bot: joins a match through a relay, says a WAV file once PLAYERS others are there, and records
each player it hears to PLAYER.wav, all on one timeline from the bot's start.
bot.py HOST PORT MATCH NAME TOKEN SAID.wav SECONDS [PLAYERS] [CHANNEL]"""
import array
import sys

import voicechat

host, port, match_id, name, token, said_path, seconds = sys.argv[1:8]
players_to_wait_for = int(sys.argv[8]) if len(sys.argv) > 8 else 1
channel = sys.argv[9] if len(sys.argv) > 9 else "all"
said, rate, channels = voicechat.read_wav(said_path)  # any PCM a text-to-speech engine makes
block = rate // 100  # a 10 ms audio callback
recordings, spoken = {}, None
# A bot has no speaker in a room, so no echo to cancel.
with voicechat.Engine(name, voicechat.GameAudio(rate, channels, block), echo_cancellation="off") as engine, \
        engine.join_relay(match_id, host, int(port), token) as match:
    match.start_channel("all", active=channel == "all")
    match.start_channel(channel, active=channel != "all")
    for turn in voicechat.every(block / rate, float(seconds)):
        start = (spoken or 0) * block * channels
        engine.process(said[start:start + block * channels] if spoken is not None else None, block)
        spoken = spoken + 1 if spoken is not None else (0 if len(recordings) >= players_to_wait_for else None)
        for event in engine.poll_events():
            if event.type == voicechat.EventType.PLAYER_CONNECTION and event.value and event.player not in recordings:
                engine.open_player_audio(event.player)  # their voice apart, 48 kHz mono
                recordings[event.player] = voicechat.WavWriter(f"{event.player}.wav")
                recordings[event.player].write(array.array("f", bytes(4 * 480 * turn)))  # the time before
        for player, recording in recordings.items():
            recording.write(engine.read_player_audio(player))
for recording in recordings.values():
    recording.close()
print(f"{name} heard {', '.join(sorted(recordings)) or 'nobody'}")
