"""The Python package against the real library, a real relay and real `voicechat join` players:
a bot and `voicechat join` hear each other, scored; bad input raises with the library's words."""

import array
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import voicechat

ROOT = Path(__file__).resolve().parents[3]
VOICECHAT = Path(os.environ.get("VOICECHAT_BIN", ROOT / ".build" / "debug" / "voicechat"))
SECRET = b"0123456789abcdef0123456789abcdef"
BOT = ROOT / "bindings" / "python" / "examples" / "bot.py"


def score(reference: str, *degraded: str) -> list:
    """PESQ-WB of each recording against what was said (bench/scoring/score.py)."""
    output = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "scoring" / "score.py"), reference, *degraded, "--max-delay-ms", "10000"],
        check=True, capture_output=True, text=True,
    ).stdout
    return [json.loads(line)["pesq_wb"] for line in output.splitlines()]


def start(arguments: list, name: str, cwd: Path) -> subprocess.Popen:
    """Runs `arguments` with its output in NAME.out and NAME.err in `cwd`."""
    return subprocess.Popen(arguments, cwd=cwd, stdout=open(cwd / f"{name}.out", "w"),
                            stderr=open(cwd / f"{name}.err", "w"))


def output(name: str, cwd: Path) -> str:
    return (cwd / f"{name}.out").read_text() + (cwd / f"{name}.err").read_text()


def join(name: str, port: int, token: str, channels: list, said: str, heard: str, seconds: int, cwd: Path):
    arguments = [str(VOICECHAT), "join", "--relay", f"127.0.0.1:{port}", "--match", "arena", "--name", name,
                 "--token", token, "--input", said, "--output", heard, "--duration", str(seconds), "--no-console"]
    for channel in channels:
        arguments += ["--channel", channel]
    return start(arguments, name, cwd)


def wait_for(name: str, text: str, cwd: Path, seconds: float = 15) -> None:
    """Waits until `text` appears in what NAME printed; fails when it does not in time."""
    deadline = time.monotonic() + seconds
    while text not in output(name, cwd):
        if time.monotonic() > deadline:
            pytest.fail(f"{text!r} did not appear in {output(name, cwd)!r}")
        time.sleep(0.05)


@pytest.fixture
def relay():
    with voicechat.Relay(SECRET, host="127.0.0.1", port=0) as running:
        yield running


def test_a_bot_and_voicechat_join_hear_each_other_as_well_as_join_does(relay, tmp_path):
    """alice (`voicechat join`) speaks in channel all; carol (`voicechat join`) and the bot listen;
    the bot speaks in channel bot, which only alice hears. What the bot recorded of alice scores
    within 0.1 PESQ-WB of what carol heard, and alice hears the bot clearly."""
    if not VOICECHAT.exists():
        pytest.skip(f"{VOICECHAT} is not built: run swift build first (scripts/test.sh does)")
    male, female = str(ROOT / "Fixtures" / "speech-male.wav"), str(ROOT / "Fixtures" / "speech-female.wav")
    silence = tmp_path / "silence.wav"
    with voicechat.WavWriter(str(silence)) as writer:
        writer.write(array.array("f", bytes(4 * 48_000 * 30)))
    token = {name: voicechat.sign_token(SECRET, "arena", name) for name in ("alice", "bot", "carol")}
    bot = start([sys.executable, str(BOT), "127.0.0.1", str(relay.port), "arena", "bot", token["bot"], female, "24", "2",
                 "bot"], "bot", tmp_path)
    carol = join("carol", relay.port, token["carol"], ["all"], str(silence), str(tmp_path / "carol-heard.wav"), 24,
                 tmp_path)
    try:
        wait_for("carol", "joined", tmp_path)
        alice = join("alice", relay.port, token["alice"], ["all", "bot"], male, str(tmp_path / "alice-heard.wav"), 20,
                     tmp_path)
        assert alice.wait(60) == 0, output("alice", tmp_path)
        assert carol.wait(30) == 0, output("carol", tmp_path)
        assert bot.wait(30) == 0, output("bot", tmp_path)
    finally:
        for process in (bot, carol):
            if process.poll() is None:
                process.kill()
    assert "bot heard alice, carol" in output("bot", tmp_path)
    bot_heard, carol_heard = score(male, str(tmp_path / "alice.wav"), str(tmp_path / "carol-heard.wav"))
    print(f"PESQ-WB of alice: the bot {bot_heard}, voicechat join {carol_heard}")
    assert bot_heard > carol_heard - 0.1
    (alice_heard,) = score(female, str(tmp_path / "alice-heard.wav"))
    print(f"PESQ-WB of the bot as alice heard it: {alice_heard}")
    assert alice_heard > 3.5


def test_bad_input_raises_with_the_librarys_words():
    with pytest.raises(voicechat.VoiceChatError, match="secret_length"):
        voicechat.sign_token(b"short", "arena", "bot")
    with pytest.raises(voicechat.VoiceChatError, match="frame_ms"):
        voicechat.Engine("bot", voicechat.GameAudio(), frame_ms=7)
    with pytest.raises(voicechat.VoiceChatError, match="sample rate"):
        voicechat.Engine("bot", voicechat.GameAudio(rate=0))
    with pytest.raises(ValueError):
        voicechat.Engine("bot", voicechat.GameAudio(), echo_cancellation="loud")
    with voicechat.Engine("bot", voicechat.GameAudio(block_frames=480)) as engine:
        with pytest.raises(voicechat.VoiceChatError, match="volume"):
            engine.set_player_volume("alice", math.nan)
        with pytest.raises(voicechat.VoiceChatError, match="token"):
            engine.join_relay("arena", "127.0.0.1", 7700, "not a token")
        with pytest.raises(voicechat.VoiceChatError, match="frames"):
            engine.process(None, 0)
        with pytest.raises(TypeError):
            engine.process([0.0] * 480)
        match = engine.create_match("arena", ["alice"])
        with pytest.raises(voicechat.VoiceChatError, match="nobody"):
            match.set_player_position("nobody", (0, 0, 0))
        with pytest.raises(voicechat.VoiceChatError, match="position"):
            match.set_position((math.inf, 0, 0))
        match.start_channel("all", active=True)
        assert match.player_state("all", "alice") == voicechat.PlayerState.CONNECTING
        events = engine.poll_events()
        assert any(event.type == voicechat.EventType.SIGNALLING_OUT and event.player == "alice" and event.match is match
                   for event in events)
        match.leave()
        with pytest.raises(voicechat.VoiceChatError, match="not a live handle"):
            match.start_channel("all")
    with pytest.raises(voicechat.VoiceChatError, match="closed"):
        engine.start()


def test_the_game_audio_loop_moves_blocks_of_any_size():
    with voicechat.Engine("bot", voicechat.GameAudio(rate=44_100, channels=2, block_frames=441)) as engine:
        block = array.array("f", [0.1] * 882)
        for _ in range(20):
            heard = engine.process(block)
            assert len(heard) == 882
        engine.add_game_mix(block)
        level_in, level_out = engine.meters()
        assert level_out <= 0
