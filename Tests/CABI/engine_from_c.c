/*
 * A game in C with two players in one process, alice and bob, each an engine with its own audio
 * (vc_engine_process) whose signalling the game carries from one to the other: a 1:1 call, then a
 * match with a channel, game data, positions and per-frame controls. Every function is also tried
 * with NULLs, destroyed handles, wrong struct sizes, NaN, zero and huge values. Prints
 * "all checks held" and exits 0 when every check held.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "checks.h"

#define BLOCK 240
static vc_engine *alice, *bob;
static vc_match *alice_match, *bob_match;
static float alice_out[BLOCK], bob_out[BLOCK], tone[BLOCK];
static long block_number = 0;
static int bob_invited = 0, alice_started = 0, bob_started = 0, bob_stopped = 0;
static int bob_connected = 0, bob_got_reliable = 0, bob_got_unreliable = 0;
static double bob_heard_energy = 0;

/* Delivers what one engine's game would send to the other's. */
static void carry(vc_engine *from, vc_engine *to, const char *to_name) {
    vc_event event;
    event.struct_size = sizeof event;
    while (vc_engine_poll_event(from, &event) == VC_OK && event.type != VC_EVENT_NONE) {
        const char *sender = from == alice ? "alice" : "bob";
        vc_match *to_match = to == alice ? alice_match : bob_match;
        switch (event.type) {
        case VC_EVENT_SIGNALLING_OUT:
            if (strcmp(event.player, to_name) != 0) break;
            if (event.match == NULL) {
                check(vc_engine_receive_call_signalling(to, sender, event.data, event.data_length) == VC_OK,
                      "call signalling is taken");
            } else if (to_match != NULL) {
                check(vc_match_receive_signalling(to_match, sender, event.data, event.data_length) == VC_OK,
                      "match signalling is taken");
            }
            break;
        case VC_EVENT_REAL_TIME_OUT:
            check(vc_engine_receive_real_time(to, sender, event.data, event.data_length) == VC_OK,
                  "real-time data is taken");
            break;
        case VC_EVENT_CALL_INVITATION:
            if (from == bob) {
                bob_invited = 1;
                check(strcmp(event.player, "alice") == 0 && strlen(event.call) == 32, "the invitation names alice");
                check(vc_call_accept(bob, event.call) == VC_OK, "bob accepts");
            }
            break;
        case VC_EVENT_CALL_STARTED:
            if (from == alice) alice_started = 1; else bob_started = 1;
            break;
        case VC_EVENT_CALL_STOPPED:
            if (from == bob) bob_stopped = 1;
            break;
        case VC_EVENT_PLAYER_CONNECTION:
            if (from == bob && event.value && strcmp(event.player, "alice") == 0) {
                check(event.match == bob_match, "the event names bob's match");
                bob_connected = 1;
            }
            break;
        case VC_EVENT_GAME_DATA:
            if (from == bob && event.data_length == 5 && memcmp(event.data, "hello", 5) == 0) {
                if (event.value) bob_got_reliable = 1; else bob_got_unreliable = 1;
            }
            break;
        default:
            break;
        }
    }
}

/* One block of both games' audio, in real time, with their events carried. */
static void run_block(void) {
    check(vc_engine_process(alice, tone, alice_out, BLOCK) == VC_OK, "alice's block");
    check(vc_engine_process(bob, NULL, bob_out, BLOCK) == VC_OK, "bob's block");
    for (int i = 0; i < BLOCK; i++) bob_heard_energy += (double)bob_out[i] * bob_out[i];
    carry(alice, bob, "bob");
    carry(bob, alice, "alice");
    block_number++;
    struct timespec pause = {0, 5000000};
    nanosleep(&pause, NULL);
}

static int run_until(int *flag, double seconds) {
    for (long i = 0; i < (long)(seconds * 200) && !*flag; i++) run_block();
    return *flag;
}

static vc_engine *make_engine(const char *name) {
    vc_engine_options options;
    vc_engine_options_init(&options);
    options.participant = name;
    options.audio_mode = VC_AUDIO_GAME;
    options.block_frames = BLOCK;
    options.udp_host = "127.0.0.1";
    options.offers_real_time_data = 1;
    vc_engine *engine = NULL;
    check(vc_engine_create(&options, &engine) == VC_OK && engine != NULL, "an engine with the game's audio");
    check(vc_engine_start(engine) == VC_OK, "the engine starts");
    return engine;
}

static void bad_options(void) {
    vc_engine_options options;
    vc_engine *engine = (vc_engine *)1;
    vc_engine_options_init(&options);
    options.participant = "x";
    options.audio_mode = VC_AUDIO_GAME;
    refused(vc_engine_create(NULL, &engine), VC_ERROR_INVALID_ARGUMENT, "options", "NULL options");
    check(engine == NULL, "a refused create leaves no handle");
    refused(vc_engine_create(&options, NULL), VC_ERROR_INVALID_ARGUMENT, "engine", "NULL engine place");
    vc_engine_options wrong = options;
    wrong.struct_size = 12;
    refused(vc_engine_create(&wrong, &engine), VC_ERROR_INVALID_ARGUMENT, "struct_size", "a wrong struct_size");
    wrong = options;
    wrong.participant = NULL;
    refused(vc_engine_create(&wrong, &engine), VC_ERROR_INVALID_ARGUMENT, "participant", "no participant");
    static char long_name[400];
    memset(long_name, 'a', sizeof long_name - 1);
    wrong.participant = long_name;
    refused(vc_engine_create(&wrong, &engine), VC_ERROR_INVALID_ARGUMENT, "participant", "a huge participant");
    wrong = options;
    wrong.frame_ms = 7;
    refused(vc_engine_create(&wrong, &engine), VC_ERROR_INVALID_ARGUMENT, "frame_ms", "a frame of 7 ms");
    wrong = options;
    wrong.bitrate = 0xFFFFFFFFu;
    refused(vc_engine_create(&wrong, &engine), VC_ERROR_INVALID_ARGUMENT, "bitrate", "a huge bitrate");
    wrong = options;
    wrong.complexity = 11;
    refused(vc_engine_create(&wrong, &engine), VC_ERROR_INVALID_ARGUMENT, "complexity", "complexity 11");
    wrong = options;
    wrong.maximum_delay_ms = NAN;
    refused(vc_engine_create(&wrong, &engine), VC_ERROR_INVALID_ARGUMENT, "maximum_delay_ms", "a NaN budget");
    wrong.maximum_delay_ms = 1e300;
    refused(vc_engine_create(&wrong, &engine), VC_ERROR_INVALID_ARGUMENT, "maximum_delay_ms", "a huge budget");
    wrong = options;
    wrong.echo_cancellation = (vc_echo_cancellation)9;
    refused(vc_engine_create(&wrong, &engine), VC_ERROR_INVALID_ARGUMENT, "echo_cancellation", "an unknown mode");
    wrong = options;
    wrong.audio_mode = (vc_audio_mode)5;
    refused(vc_engine_create(&wrong, &engine), VC_ERROR_INVALID_ARGUMENT, "audio_mode", "an unknown audio mode");
    wrong = options;
    wrong.sample_rate = 0;
    refused(vc_engine_create(&wrong, &engine), VC_ERROR_INVALID_ARGUMENT, "sample rate", "a rate of 0");
    wrong = options;
    wrong.channels = 3;
    refused(vc_engine_create(&wrong, &engine), VC_ERROR_INVALID_ARGUMENT, "channels", "three channels");
    wrong = options;
    wrong.block_frames = 0xFFFFFFFFu;
    refused(vc_engine_create(&wrong, &engine), VC_ERROR_INVALID_ARGUMENT, "block size", "a huge block");
    wrong = options;
    wrong.audio_mode = VC_AUDIO_DEVICES;
    wrong.capture_device = "no-such-device";
    refused(vc_engine_create(&wrong, &engine), VC_ERROR_SYSTEM, "no-such-device", "a device that is not there");
    wrong = options;
    wrong.udp_host = "192.0.2.1";
    refused(vc_engine_create(&wrong, &engine), VC_ERROR_SYSTEM, "192.0.2.1", "an address not of this machine");
    vc_engine_options_init(NULL);
}

/* Every function that takes an engine or a match refuses a NULL one by name. */
static void null_handles(void) {
    float samples[4] = {0}, at[3] = {0, 0, 0};
    char text[64];
    size_t needed = 0;
    uint16_t port = 0;
    int flag = 0;
    float level = 0;
    vc_player_state state;
    vc_event event;
    event.struct_size = sizeof event;
    vc_relay_join_options join;
    vc_relay_join_options_init(&join);
    vc_relay_join_options_init(NULL);
    vc_match *match = NULL;
    const uint8_t byte = 1;
    const vc_result engine_calls[] = {
        vc_engine_start(NULL), vc_engine_destroy(NULL), vc_engine_udp_port(NULL, &port),
        vc_engine_process(NULL, samples, samples, 4), vc_engine_add_game_mix(NULL, samples, 4),
        vc_engine_set_microphone_muted(NULL, 1), vc_engine_set_push_to_talk(NULL, 1), vc_engine_set_talk_key(NULL, 1),
        vc_engine_set_player_volume(NULL, "bob", 1), vc_engine_set_maximum_delay(NULL, 100),
        vc_engine_set_speech_processing(NULL, 1, 1), vc_engine_meters(NULL, &level, &level),
        vc_engine_statistics_json(NULL, text, sizeof text, &needed), vc_engine_open_player_audio(NULL, "bob"),
        vc_engine_read_player_audio(NULL, "bob", samples, 4, &needed), vc_engine_close_player_audio(NULL, "bob"),
        vc_engine_poll_event(NULL, &event), vc_call_start(NULL, "bob", text, sizeof text, &needed),
        vc_call_accept(NULL, "0123"), vc_call_deny(NULL, "0123"), vc_call_stop(NULL, "bob"),
        vc_engine_receive_call_signalling(NULL, "bob", &byte, 1), vc_engine_receive_real_time(NULL, "bob", &byte, 1),
        vc_match_join_relay(NULL, &join, &match), vc_match_create(NULL, "m", NULL, 0, &match),
    };
    for (size_t i = 0; i < sizeof engine_calls / sizeof engine_calls[0]; i++) {
        if (engine_calls[i] != VC_ERROR_INVALID_ARGUMENT) {
            fprintf(stderr, "FAILED: engine function %zu took a NULL engine: result %d\n", i, engine_calls[i]);
            failures++;
        }
    }
    refused(vc_engine_start(NULL), VC_ERROR_INVALID_ARGUMENT, "engine", "a NULL engine is named");
    const vc_result match_calls[] = {
        vc_match_add_player(NULL, "bob"), vc_match_remove_player(NULL, "bob"),
        vc_match_receive_signalling(NULL, "bob", &byte, 1), vc_match_leave(NULL), vc_match_start_channel(NULL, "all"),
        vc_match_stop_channel(NULL, "all"), vc_match_set_active_channel(NULL, "all"),
        vc_match_set_proximity(NULL, "all", 10, 1, 0), vc_match_set_channel_volume(NULL, "all", 1),
        vc_match_set_player_muted(NULL, "all", "bob", 1), vc_match_set_position(NULL, at, NULL),
        vc_match_set_player_position(NULL, "bob", at), vc_match_player_state(NULL, "all", "bob", &state),
        vc_match_player_speaking(NULL, "all", "bob", &flag, &level),
        vc_match_send_data(NULL, NULL, 0, &byte, 1, 1),
    };
    for (size_t i = 0; i < sizeof match_calls / sizeof match_calls[0]; i++) {
        if (match_calls[i] != VC_ERROR_INVALID_ARGUMENT) {
            fprintf(stderr, "FAILED: match function %zu took a NULL match: result %d\n", i, match_calls[i]);
            failures++;
        }
    }
    refused(vc_match_leave(NULL), VC_ERROR_INVALID_ARGUMENT, "match", "a NULL match is named");
}

static void bad_engine_calls(void) {
    float samples[BLOCK] = {0};
    vc_event event;
    event.struct_size = sizeof event;
    char text[64];
    size_t needed = 0;
    vc_engine *made_up = (vc_engine *)(uintptr_t)0x12345670;
    static char huge_name[400];
    memset(huge_name, 'b', sizeof huge_name - 1);
    refused(vc_engine_udp_port(alice, NULL), VC_ERROR_INVALID_ARGUMENT, "port", "no place for the port");
    refused(vc_engine_open_player_audio(alice, NULL), VC_ERROR_INVALID_ARGUMENT, "player", "a NULL player's audio");
    refused(vc_engine_set_player_volume(alice, huge_name, 1), VC_ERROR_INVALID_ARGUMENT, "player", "a huge player name");
    refused(vc_call_start(alice, huge_name, NULL, 0, NULL), VC_ERROR_INVALID_ARGUMENT, "participant", "calling a huge name");
    refused(vc_engine_process(NULL, samples, samples, BLOCK), VC_ERROR_INVALID_ARGUMENT, "engine", "NULL engine");
    refused(vc_engine_process(made_up, samples, samples, BLOCK), VC_ERROR_INVALID_HANDLE, "engine", "a made-up engine");
    refused(vc_engine_process(alice, samples, samples, 0), VC_ERROR_INVALID_ARGUMENT, "frames", "zero frames");
    refused(vc_engine_process(alice, samples, samples, (size_t)-1), VC_ERROR_INVALID_ARGUMENT, "frames", "huge frames");
    refused(vc_engine_process(alice, NULL, NULL, BLOCK), VC_ERROR_INVALID_ARGUMENT, "NULL", "no buffers");
    refused(vc_engine_add_game_mix(alice, NULL, BLOCK), VC_ERROR_INVALID_ARGUMENT, "mix", "a NULL mix");
    check(vc_engine_add_game_mix(alice, samples, BLOCK) == VC_OK, "the game's mix is taken");
    refused(vc_engine_set_player_volume(alice, "bob", NAN), VC_ERROR_INVALID_ARGUMENT, "volume", "a NaN volume");
    refused(vc_engine_set_player_volume(alice, "bob", 2.5f), VC_ERROR_INVALID_ARGUMENT, "volume", "volume 2.5");
    refused(vc_engine_set_player_volume(alice, NULL, 1), VC_ERROR_INVALID_ARGUMENT, "player", "a NULL player");
    refused(vc_engine_set_maximum_delay(alice, INFINITY), VC_ERROR_INVALID_ARGUMENT, "milliseconds", "an infinite budget");
    refused(vc_engine_set_maximum_delay(alice, 5), VC_ERROR_INVALID_ARGUMENT, "milliseconds", "a 5 ms budget");
    check(vc_engine_set_maximum_delay(alice, 120) == VC_OK, "a 120 ms budget");
    check(vc_engine_set_speech_processing(alice, 1, 1) == VC_OK, "denoise and gain control on");
    check(vc_engine_set_speech_processing(alice, 0, 0) == VC_OK, "and off");
    refused(vc_engine_meters(alice, NULL, NULL), VC_ERROR_INVALID_ARGUMENT, "NULL", "meters nowhere");
    refused(vc_engine_statistics_json(alice, text, 1, &needed), VC_ERROR_BUFFER_TOO_SMALL, "needed", "a tiny buffer");
    refused(vc_engine_statistics_json(alice, NULL, 0, &needed), VC_ERROR_INVALID_ARGUMENT, "buffer", "no buffer");
    refused(vc_engine_poll_event(alice, NULL), VC_ERROR_INVALID_ARGUMENT, "event", "a NULL event");
    event.struct_size = 3;
    refused(vc_engine_poll_event(alice, &event), VC_ERROR_INVALID_ARGUMENT, "struct_size", "an event of unknown size");
    refused(vc_engine_receive_call_signalling(alice, "bob", NULL, 4), VC_ERROR_INVALID_ARGUMENT, "data", "NULL data");
    refused(vc_engine_receive_call_signalling(alice, "bob", (const uint8_t *)"x", 0), VC_ERROR_INVALID_ARGUMENT,
            "length", "zero length");
    refused(vc_engine_receive_call_signalling(alice, "bob", (const uint8_t *)"x", (size_t)-1),
            VC_ERROR_INVALID_ARGUMENT, "length", "a huge length");
    refused(vc_engine_receive_real_time(alice, NULL, (const uint8_t *)"x", 1), VC_ERROR_INVALID_ARGUMENT, "from",
            "a NULL sender");
    refused(vc_call_start(alice, "bob", text, 8, &needed), VC_ERROR_BUFFER_TOO_SMALL, "call_id", "a short call ID buffer");
    refused(vc_call_start(alice, "alice", text, sizeof text, &needed), VC_ERROR_INVALID_ARGUMENT, "itself",
            "calling oneself");
    refused(vc_call_accept(alice, "0123"), VC_ERROR_NOT_FOUND, "0123", "an unknown call");
    refused(vc_call_deny(alice, NULL), VC_ERROR_INVALID_ARGUMENT, "call_id", "a NULL call");
    refused(vc_call_stop(alice, "nobody"), VC_ERROR_NOT_FOUND, "nobody", "no call with nobody");
    vc_relay_join_options join;
    vc_relay_join_options_init(&join);
    vc_match *match = NULL;
    refused(vc_match_join_relay(alice, &join, &match), VC_ERROR_INVALID_ARGUMENT, "match", "a join without a match");
    join.match = "m";
    join.host = "127.0.0.1";
    join.other_relays = "127.0.0.1:7701,127.0.0.1";
    refused(vc_match_join_relay(alice, &join, &match), VC_ERROR_INVALID_ARGUMENT, "other_relays",
            "another relay without a port");
    join.other_relays = NULL;
    join.token = "not a token";
    refused(vc_match_join_relay(alice, &join, &match), VC_ERROR_INVALID_ARGUMENT, "token", "a join with a bad token");
    join.struct_size = 1;
    refused(vc_match_join_relay(alice, &join, &match), VC_ERROR_INVALID_ARGUMENT, "struct_size", "a wrong size");
    const char *players[] = {"bob", NULL};
    refused(vc_match_create(alice, "m", players, 2, &match), VC_ERROR_INVALID_ARGUMENT, "players[1]", "a NULL player");
    refused(vc_match_create(alice, "m", NULL, 3, &match), VC_ERROR_INVALID_ARGUMENT, "players", "no player list");
    refused(vc_match_create(alice, "m", players, (size_t)-1, &match), VC_ERROR_INVALID_ARGUMENT, "player_count",
            "a huge player count");
}

static void bad_match_calls(void) {
    float at[3] = {1, 2, 3}, nowhere[3] = {NAN, 0, 0};
    vc_player_state state;
    int speaking;
    refused(vc_match_start_channel(alice_match, NULL), VC_ERROR_INVALID_ARGUMENT, "name", "a NULL channel");
    refused(vc_match_start_channel(alice_match, ""), VC_ERROR_INVALID_ARGUMENT, "name", "an empty channel");
    refused(vc_match_stop_channel(alice_match, "never"), VC_ERROR_NOT_FOUND, "never", "an unknown channel");
    refused(vc_match_set_active_channel(alice_match, "never"), VC_ERROR_NOT_FOUND, "never", "activating an unknown one");
    refused(vc_match_set_channel_volume(alice_match, "all", 1.5f), VC_ERROR_INVALID_ARGUMENT, "volume", "volume 1.5");
    refused(vc_match_set_channel_volume(alice_match, "never", 1), VC_ERROR_NOT_FOUND, "never", "an unknown channel's volume");
    refused(vc_match_set_player_muted(alice_match, "all", "nobody", 1), VC_ERROR_NOT_FOUND, "nobody", "an unknown player");
    refused(vc_match_set_position(alice_match, nowhere, NULL), VC_ERROR_INVALID_ARGUMENT, "position", "a NaN position");
    refused(vc_match_set_position(alice_match, NULL, NULL), VC_ERROR_INVALID_ARGUMENT, "position", "no position");
    float zero[3] = {0, 0, 0};
    refused(vc_match_set_position(alice_match, at, nowhere), VC_ERROR_INVALID_ARGUMENT, "right", "a NaN right");
    refused(vc_match_set_position(alice_match, at, zero), VC_ERROR_INVALID_ARGUMENT, "direction", "a zero right");
    refused(vc_match_set_player_position(alice_match, "nobody", at), VC_ERROR_NOT_FOUND, "nobody", "placing nobody");
    refused(vc_match_set_proximity(alice_match, "all", NAN, 1, 0), VC_ERROR_INVALID_ARGUMENT, "range", "a NaN range");
    refused(vc_match_set_proximity(alice_match, "all", 10, 20, 0), VC_ERROR_INVALID_ARGUMENT, "reference", "reference > range");
    refused(vc_match_player_state(alice_match, "all", "nobody", &state), VC_ERROR_NOT_FOUND, "nobody", "nobody's state");
    refused(vc_match_player_state(alice_match, "all", "bob", NULL), VC_ERROR_INVALID_ARGUMENT, "state", "no state place");
    refused(vc_match_player_speaking(alice_match, "all", "nobody", &speaking, NULL), VC_ERROR_NOT_FOUND, "nobody",
            "nobody speaking");
    refused(vc_match_send_data(alice_match, NULL, 0, (const uint8_t *)"x", 2000, 0), VC_ERROR_INVALID_ARGUMENT, "1000",
            "unreliable data over 1000 bytes");
    refused(vc_match_send_data(alice_match, NULL, 0, NULL, 1, 1), VC_ERROR_INVALID_ARGUMENT, "data", "NULL data");
    refused(vc_match_receive_signalling(alice_match, "bob", NULL, 1), VC_ERROR_INVALID_ARGUMENT, "data", "NULL signalling");
    refused(vc_match_add_player(alice_match, NULL), VC_ERROR_INVALID_ARGUMENT, "player", "adding NULL");
    refused(vc_match_remove_player(alice_match, "nobody"), VC_ERROR_NOT_FOUND, "nobody", "removing nobody");
}

int main(void) {
    for (int i = 0; i < BLOCK; i++) tone[i] = 0.3f * (float)sin(2 * 3.14159265 * 440 * i / 48000.0 * 1.0);
    bad_options();
    null_handles();
    alice = make_engine("alice");
    bob = make_engine("bob");
    bad_engine_calls();

    /* A 1:1 call whose signalling the game carries. */
    char call[33];
    size_t needed = 0;
    check(vc_call_start(alice, "bob", call, sizeof call, &needed) == VC_OK && needed == 33, "alice calls bob");
    check(run_until(&bob_invited, 5), "bob is invited");
    run_until(&alice_started, 10);
    check(alice_started && run_until(&bob_started, 5), "the call starts on both sides");
    bob_heard_energy = 0;
    for (int i = 0; i < 200; i++) run_block();
    check(bob_heard_energy > 10, "bob hears alice's tone");
    float input = 0, output = 0;
    check(vc_engine_meters(bob, &input, &output) == VC_OK && output > -40, "bob's output meter moves");
    char json[8192];
    check(vc_engine_statistics_json(bob, json, sizeof json, &needed) == VC_OK && strstr(json, "\"alice\"") != NULL,
          "bob's statistics name alice");
    check(vc_call_stop(alice, "bob") == VC_OK, "alice hangs up");
    check(run_until(&bob_stopped, 5), "bob hears the call stop");

    /* A match whose signalling the game carries. */
    const char *for_alice[] = {"bob"}, *for_bob[] = {"alice"};
    check(vc_match_create(alice, "arena", for_alice, 1, &alice_match) == VC_OK, "alice's match");
    check(vc_match_create(bob, "arena", for_bob, 1, &bob_match) == VC_OK, "bob's match");
    check(vc_match_start_channel(alice_match, "all") == VC_OK && vc_match_set_active_channel(alice_match, "all") == VC_OK,
          "alice talks in all");
    check(vc_match_start_channel(bob_match, "all") == VC_OK, "bob listens to all");
    check(run_until(&bob_connected, 10), "bob sees alice connect");
    bad_match_calls();
    check(vc_match_send_data(alice_match, NULL, 0, (const uint8_t *)"hello", 5, 1) == VC_OK, "reliable data");
    check(run_until(&bob_got_reliable, 5), "bob gets the reliable data");
    for (int i = 0; i < 50 && !bob_got_unreliable; i++) {
        check(vc_match_send_data(alice_match, NULL, 0, (const uint8_t *)"hello", 5, 0) == VC_OK, "unreliable data");
        run_block();
    }
    check(bob_got_unreliable, "bob gets the unreliable data");
    float here[3] = {0, 0, 0}, there[3] = {3, 0, 0}, right[3] = {1, 0, 0};
    check(vc_match_set_position(alice_match, here, right) == VC_OK, "alice stands somewhere");
    check(vc_match_set_player_position(alice_match, "bob", there) == VC_OK, "and places bob");
    check(vc_match_set_proximity(bob_match, "all", 50, 2, 0) == VC_OK, "all is positional for bob");
    check(vc_match_set_proximity(bob_match, "all", 0, 0, 0) == VC_OK, "and whole again");
    check(vc_match_set_channel_volume(bob_match, "all", 0.5f) == VC_OK, "bob turns all down");
    check(vc_engine_set_player_volume(bob, "alice", 1.5f) == VC_OK, "and alice up");
    check(vc_match_set_player_muted(bob_match, "all", "alice", 0) == VC_OK, "bob leaves alice unmuted");
    check(vc_engine_set_push_to_talk(alice, 0) == VC_OK && vc_engine_set_talk_key(alice, 1) == VC_OK
              && vc_engine_set_microphone_muted(alice, 0) == VC_OK,
          "alice's microphone controls");
    bob_heard_energy = 0;
    for (int i = 0; i < 200; i++) run_block();
    check(bob_heard_energy > 10, "bob hears alice in the channel");
    vc_player_state state = VC_PLAYER_DISCONNECTED;
    check(vc_match_player_state(bob_match, "all", "alice", &state) == VC_OK
              && (state == VC_PLAYER_SPEAKING || state == VC_PLAYER_CONNECTED || state == VC_PLAYER_SILENT),
          "alice is in all for bob");
    int speaking = 0;
    float level = -1000;
    check(vc_match_player_speaking(bob_match, "all", "alice", &speaking, &level) == VC_OK && speaking && level > -40,
          "bob sees alice speak");
    float voice[4800];
    size_t got = 0;
    refused(vc_engine_read_player_audio(bob, "alice", voice, 4800, &got), VC_ERROR_NOT_FOUND, "vc_engine_open_player_audio",
            "reading a voice not opened");
    check(vc_engine_open_player_audio(bob, "alice") == VC_OK, "bob keeps alice's voice apart");
    for (int i = 0; i < 40; i++) run_block();
    check(vc_engine_read_player_audio(bob, "alice", voice, 4800, &got) == VC_OK && got >= 960, "alice's voice comes apart");
    double alone = 0;
    for (size_t i = 0; i < got; i++) alone += (double)voice[i] * voice[i];
    check(alone > 1, "and holds her tone");
    refused(vc_engine_read_player_audio(bob, "alice", NULL, 4800, &got), VC_ERROR_INVALID_ARGUMENT, "samples", "no room");
    refused(vc_engine_read_player_audio(bob, "alice", voice, 0, &got), VC_ERROR_INVALID_ARGUMENT, "capacity", "zero room");
    refused(vc_engine_read_player_audio(bob, "alice", voice, (size_t)-1, &got), VC_ERROR_INVALID_ARGUMENT, "capacity",
            "huge room");
    check(vc_engine_close_player_audio(bob, "alice") == VC_OK, "and stops");
    refused(vc_engine_close_player_audio(bob, "alice"), VC_ERROR_NOT_FOUND, "alice", "closing twice");
    check(vc_match_set_player_muted(bob_match, "all", "alice", 1) == VC_OK, "bob mutes alice");
    for (int i = 0; i < 20; i++) run_block();
    bob_heard_energy = 0;
    for (int i = 0; i < 100; i++) run_block();
    check(bob_heard_energy < 1e-3, "bob hears nothing of a muted alice");

    /* Handles after their end. */
    check(vc_match_leave(alice_match) == VC_OK, "alice leaves");
    refused(vc_match_leave(alice_match), VC_ERROR_INVALID_HANDLE, "match", "leaving twice");
    refused(vc_match_start_channel(alice_match, "all"), VC_ERROR_INVALID_HANDLE, "match", "a left match");
    refused(vc_engine_process((vc_engine *)alice_match, tone, NULL, BLOCK), VC_ERROR_INVALID_HANDLE, "engine",
            "a match passed as an engine");
    check(vc_engine_destroy(bob) == VC_OK, "bob's engine ends");
    refused(vc_match_set_channel_volume(bob_match, "all", 1), VC_ERROR_INVALID_HANDLE, "match",
            "a match of a destroyed engine");
    refused(vc_engine_process(bob, NULL, bob_out, BLOCK), VC_ERROR_INVALID_HANDLE, "engine", "a destroyed engine");
    refused(vc_engine_destroy(bob), VC_ERROR_INVALID_HANDLE, "engine", "destroying twice");
    check(vc_engine_destroy(alice) == VC_OK, "alice's engine ends");
    if (failures == 0) printf("all checks held\n");
    return failures == 0 ? 0 : 1;
}
