/*
 * voicechat.h: the engine's stable C ABI, for games and game servers in any language.
 *
 * Conventions:
 * - Every function returns a vc_result; on an error, vc_last_error_message() gives the calling
 *   thread's last error as text that names the argument and what to do.
 * - Handles are opaque. A handle used after it was destroyed is refused with
 *   VC_ERROR_INVALID_HANDLE (the library keeps a registry of live handles and never dereferences
 *   one it does not hold).
 * - Every options struct begins with struct_size: set it with the matching vc_*_options_init(),
 *   which fills the defaults (those of the voicechat command), so that fields can be added later
 *   without breaking compiled programs. A struct_size the library does not know is refused.
 * - Strings are UTF-8 and NUL-terminated. Buffers belong to the caller: a function that writes
 *   text takes a buffer and its capacity, and says in *needed how many bytes (with the NUL) the
 *   whole text takes; a buffer too small gets VC_ERROR_BUFFER_TOO_SMALL and nothing written.
 * - Nothing the library returns needs freeing except through the vc_*_destroy it names.
 * - Every function may be called from any thread, and none calls back into the caller except an
 *   engine's event callback, which runs on the engine's own event thread (never on an audio
 *   thread, the engine thread, or under a lock of the library).
 * - Calls a game makes every frame (positions, volumes, mutes, push-to-talk, the game's mix,
 *   vc_engine_process) never wait for the engine: they are checked at once and handed over.
 *   Reads of meters, speaking flags and statistics come from a snapshot taken every 50 ms while
 *   the game keeps reading (the first read after two seconds without one takes it, waiting once).
 *   Everything else (create, join, start a channel, calls) waits for the engine's turn, which
 *   takes well under a millisecond but is no call for an audio callback.
 */
#ifndef VOICECHAT_H
#define VOICECHAT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a function reports. */
typedef enum vc_result {
    VC_OK = 0,
    /* An argument is NULL, empty, too long, not a number, out of range, or a struct_size unknown. */
    VC_ERROR_INVALID_ARGUMENT = 1,
    /* A handle that was destroyed, or never was one. */
    VC_ERROR_INVALID_HANDLE = 2,
    /* No match or player of that name. */
    VC_ERROR_NOT_FOUND = 3,
    /* Not now: the relay is not running, or already running. */
    VC_ERROR_INVALID_STATE = 4,
    /* The system refused: a port in use, an address not of this machine. */
    VC_ERROR_SYSTEM = 5,
    /* The caller's buffer cannot hold the text; *needed says how much it takes. */
    VC_ERROR_BUFFER_TOO_SMALL = 6,
    /* The engine thread has not taken the orders handed to it for a while (it is stalled or stopped). */
    VC_ERROR_BUSY = 7
} vc_result;

/*
 * The calling thread's last error, as text naming the argument and what to do; "" when the
 * thread's last call succeeded. Valid until the thread's next call into the library.
 */
const char *vc_last_error_message(void);

/* The ABI version this library implements: VC_ABI_VERSION of the header it was built with. */
#define VC_ABI_VERSION 1
uint32_t vc_abi_version(void);

/* ---- Join tokens, as a game server issues them ---- */

/*
 * Signs a join token for `participant` in `match`, good until `expiry_unix_seconds`, with the
 * relay's shared secret (at least 16 bytes). `audience` names the one relay that takes it (that
 * relay's audience option), or NULL / "" for any relay holding the secret. Match, participant and
 * audience are at most 256 bytes each. Writes the token text (with its NUL) into `buffer`.
 */
vc_result vc_token_sign(
    const uint8_t *secret, size_t secret_length, const char *audience, const char *match, const char *participant,
    uint64_t expiry_unix_seconds, char *buffer, size_t capacity, size_t *needed);

/* ---- The relay, run inside a game server ---- */

typedef struct vc_relay vc_relay;

typedef struct vc_relay_options {
    /* sizeof(vc_relay_options), set by vc_relay_options_init. */
    uint32_t struct_size;
    /* Address for both the UDP socket and the TCP listener; NULL (the default) is 0.0.0.0, every interface. */
    const char *host;
    /* Port for both; 0 takes a free one (vc_relay_start says which). Default 7700. */
    uint16_t port;
    /* The secret tokens are signed with (at least 16 bytes); required. */
    const uint8_t *secret;
    size_t secret_length;
    /* This relay's name in tokens (NULL: it takes only tokens for any relay). */
    const char *audience;
    /* Seconds without traffic after which a member is dropped, more than 0, at most 3600; default 5. */
    double liveness_timeout_seconds;
} vc_relay_options;

/* Fills `options` with the defaults of `voicechat relay`. */
void vc_relay_options_init(vc_relay_options *options);

/* Makes a relay, not yet listening. */
vc_result vc_relay_create(const vc_relay_options *options, vc_relay **relay);

/* Binds and starts forwarding on the relay's own threads; returns once it listens, with the port in *port (may be NULL). */
vc_result vc_relay_start(vc_relay *relay, uint16_t *port);

/* Tells every member it is going away, closes the sockets and stops its threads; returns when done. */
vc_result vc_relay_stop(vc_relay *relay);

/* Stops the relay if it runs, and frees it; the handle is invalid from then on. */
vc_result vc_relay_destroy(vc_relay *relay);

/* The game server's orders, for a player of a match on this relay. */
vc_result vc_relay_set_server_mute(vc_relay *relay, const char *match, const char *player, int muted);
/* Makes `channel` (a channel's name; "" for none) the player's only voice channel. */
vc_result vc_relay_move(vc_relay *relay, const char *match, const char *player, const char *channel);
vc_result vc_relay_kick(vc_relay *relay, const char *match, const char *player);
/* Places the player for positional channels; its own reports are ignored until released. */
vc_result vc_relay_set_position(vc_relay *relay, const char *match, const char *player, float x, float y, float z);
vc_result vc_relay_release_position(vc_relay *relay, const char *match, const char *player);

/*
 * The players of `match` as JSON: an array of objects with "player", "mediaID", "channels" (the
 * names the players gave them), "serverMuted", "overUDP", "overTCP", "sending", "packetsReceived",
 * "packetsForwarded" and, when known, "position" ([x, y, z]).
 */
vc_result vc_relay_players_json(vc_relay *relay, const char *match, char *buffer, size_t capacity, size_t *needed);

/* The relay's figures as JSON: "matches", "players", "joins", "packetsReceived", "packetsForwarded". */
vc_result vc_relay_statistics_json(vc_relay *relay, char *buffer, size_t capacity, size_t *needed);


/* ---- The voice engine, embedded in a game ---- */

typedef struct vc_engine vc_engine;
typedef struct vc_match vc_match;

/* Where the engine's audio comes from and goes to. */
typedef enum vc_audio_mode {
    /* The engine opens ALSA devices itself (capture_device, playback_device), as voicechat does. */
    VC_AUDIO_DEVICES = 0,
    /* The game owns audio and calls vc_engine_process from its audio callback. */
    VC_AUDIO_GAME = 1
} vc_audio_mode;

/* When the engine removes the speaker's echo from the microphone. */
typedef enum vc_echo_cancellation {
    /* With real microphones and speakers (both audio modes); the default. */
    VC_ECHO_CANCELLATION_AUTO = 0,
    VC_ECHO_CANCELLATION_ON = 1,
    VC_ECHO_CANCELLATION_OFF = 2
} vc_echo_cancellation;

typedef struct vc_event vc_event;

/*
 * Called with every event, on the engine's event thread, one at a time, in order; the event and
 * its strings and bytes are valid during the call only. Return quickly: events wait meanwhile.
 */
typedef void (*vc_event_callback)(const vc_event *event, void *context);

typedef struct vc_engine_options {
    /* sizeof(vc_engine_options), set by vc_engine_options_init. */
    uint32_t struct_size;
    /* This player's ID as the other players' games know it (at most 256 bytes); required. */
    const char *participant;
    vc_audio_mode audio_mode;
    /* VC_AUDIO_DEVICES: ALSA device names; NULL is "default". */
    const char *capture_device;
    const char *playback_device;
    /* VC_AUDIO_GAME: the game's sample rate (8000…192000, default 48000), channels (1 or 2, both
     * ways; default 1) and block size, if it always uses one (0, the default: blocks vary). */
    uint32_t sample_rate;
    uint32_t channels;
    uint32_t block_frames;
    /* Opus frame length in ms: 5, 10, 20 (the default), 40 or 60. */
    uint32_t frame_ms;
    /* Bit/s of the voice sent, 6000…510000 (default 32000). */
    uint32_t bitrate;
    /* Opus encoder complexity, 0…10 (default 10). */
    uint32_t complexity;
    /* The most mouth-to-ear delay the engine may add, ms; 0 (the default) is 60 + 2 frames. */
    double maximum_delay_ms;
    /* Noise suppression and automatic gain control of the microphone (non-zero: on; default 0, off). */
    int denoise;
    int automatic_gain_control;
    vc_echo_cancellation echo_cancellation;
    /* The UDP socket for direct paths: address (NULL: every interface) and port (0: any free one). */
    const char *udp_host;
    uint16_t udp_port;
    /* Non-zero: the game carries real-time data itself (VC_EVENT_REAL_TIME_OUT, *_receive_real_time),
     * a path for when no direct one works. Default 0. */
    int offers_real_time_data;
    /* Optional: events go here instead of to vc_engine_poll_event. */
    vc_event_callback event_callback;
    void *event_context;
} vc_engine_options;

/* Fills `options` with the defaults of `voicechat join`. */
void vc_engine_options_init(vc_engine_options *options);

/* Makes an engine: opens the devices (VC_AUDIO_DEVICES) and binds its UDP socket. Audio starts with vc_engine_start. */
vc_result vc_engine_create(const vc_engine_options *options, vc_engine **engine);

/* Starts the engine's thread (and, with VC_AUDIO_DEVICES, the devices). */
vc_result vc_engine_start(vc_engine *engine);

/* Leaves every match, stops the engine and frees it; the handle is invalid from then on. A
 * vc_engine_process under way on another thread is waited for; later ones are refused. May be
 * called from the event callback. */
vc_result vc_engine_destroy(vc_engine *engine);

/* The port of the engine's UDP socket. */
vc_result vc_engine_udp_port(vc_engine *engine, uint16_t *port);

/*
 * VC_AUDIO_GAME: one block of the game's audio, from its audio callback. `captured` holds `frames`
 * frames of what the microphone took (interleaved, `channels` per frame, floats in -1…1) or is
 * NULL; `output` gets as many frames of what the engine mixed (silence before vc_engine_start, or
 * where it has nothing) or is NULL. Any block size up to 65536 frames. Never allocates, locks or
 * waits; one thread at a time.
 */
vc_result vc_engine_process(vc_engine *engine, const float *captured, float *output, size_t frames);

/*
 * VC_AUDIO_GAME: what the game plays besides the engine's voices (music, effects), `frames` frames
 * at its rate and channels, as it hands them to its device: the echo canceller removes it from the
 * microphone too. From the audio thread, like vc_engine_process.
 */
vc_result vc_engine_add_game_mix(vc_engine *engine, const float *mix, size_t frames);

/* Per-frame controls of the whole engine (handed over without waiting). */
vc_result vc_engine_set_microphone_muted(vc_engine *engine, int muted);
/* With push-to-talk on, the microphone sends only while the talk key is down. */
vc_result vc_engine_set_push_to_talk(vc_engine *engine, int on);
vc_result vc_engine_set_talk_key(vc_engine *engine, int down);
/* A player's own volume in every call and match, 0…2 (1: as sent). */
vc_result vc_engine_set_player_volume(vc_engine *engine, const char *player, float volume);

/* The delay budget (ms, 40…1000) and the microphone's processing. */
vc_result vc_engine_set_maximum_delay(vc_engine *engine, double milliseconds);
vc_result vc_engine_set_speech_processing(vc_engine *engine, int denoise, int automatic_gain_control);

/* The microphone's and the mix's levels, dBFS (-inf for silence), from the snapshot. */
vc_result vc_engine_meters(vc_engine *engine, float *input_dbfs, float *output_dbfs);

/*
 * Every remote player of every call and match, from the snapshot, as JSON: an array of objects
 * with "session" (call or match ID), "participant", "path", "roundTripMilliseconds" and "streams"
 * (by channel name: "levelDBFS", "isSpeaking", "hasEnded", "receive" with packet and delay figures).
 */
vc_result vc_engine_statistics_json(vc_engine *engine, char *buffer, size_t capacity, size_t *needed);

/*
 * Each player apart (a bot that records everyone to a file of their own, a transcriber): from the
 * next frame on, `player`'s voice as the mix hears it (every channel they are heard in, at its
 * volumes) is kept for vc_engine_read_player_audio, 48 kHz mono, silence while they say nothing,
 * up to 2 s of it; what is not read in time is dropped. Close stops it.
 */
vc_result vc_engine_open_player_audio(vc_engine *engine, const char *player);
/* Takes up to `capacity` frames of `player`'s voice into `samples`; *frames says how many. Never waits; one thread at a time. */
vc_result vc_engine_read_player_audio(
    vc_engine *engine, const char *player, float *samples, size_t capacity, size_t *frames);
vc_result vc_engine_close_player_audio(vc_engine *engine, const char *player);

/* ---- Events ---- */

typedef enum vc_event_type {
    VC_EVENT_NONE = 0,
    /* Bytes the game delivers reliably and in order to `player` (signalling): then that player's game
     * calls vc_engine_receive_call_signalling (match NULL) or vc_match_receive_signalling. */
    VC_EVENT_SIGNALLING_OUT = 1,
    /* Bytes the game delivers best-effort, at once, to `player` (offers_real_time_data only): that
     * player's game calls vc_engine_receive_real_time. A callback suits these better than polling. */
    VC_EVENT_REAL_TIME_OUT = 2,
    /* Calls (match NULL): `call` is the call ID, `player` the other side. */
    VC_EVENT_CALL_INVITATION = 3,
    VC_EVENT_CALL_STARTED = 4,      /* `text`: the path */
    VC_EVENT_CALL_DID_NOT_START = 5, /* `text`: why */
    VC_EVENT_CALL_STOPPED = 6,       /* `text`: why */
    /* A call's or a match player's path changed; `text` is the path ("direct", "relay",
     * "relay-tcp", "app") or "" for none. */
    VC_EVENT_PATH_CHANGED = 7,
    /* `player`'s state in `channel` became `value` (a vc_player_state). */
    VC_EVENT_PLAYER_STATE = 8,
    /* `player` connected (value 1) or disconnected (0). */
    VC_EVENT_PLAYER_CONNECTION = 9,
    /* Game data from `player`: `data`, `data_length`; value 1 if it came reliably. */
    VC_EVENT_GAME_DATA = 10,
    /* Signalling from `player` was refused; `text` says why. */
    VC_EVENT_SIGNALLING_REJECTED = 11,
    /* The relay refused or dropped this player on a transport; `text` says which and why. */
    VC_EVENT_RELAY_FAILED = 12,
    /* The game server muted (value 1) or unmuted (0) this player. */
    VC_EVENT_SERVER_MUTED = 13,
    /* The game server moved this player to `channel` ("" for none it opened). */
    VC_EVENT_MOVED = 14,
    /* The relay admitted this player (or again after a lost link, value 1). */
    VC_EVENT_RELAY_JOINED = 15,
    /* The relay's signalling link was lost; the engine rejoins by itself. */
    VC_EVENT_RELAY_LOST = 16,
    /* The relay refused the join (`text`: why; ask the game server for a new token) or removed the
     * player (value 1). The match is of no use until joined again. */
    VC_EVENT_RELAY_REFUSED = 17
} vc_event_type;

typedef enum vc_player_state {
    VC_PLAYER_CONNECTING = 0,
    VC_PLAYER_CONNECTED = 1,
    VC_PLAYER_DISCONNECTED = 2,
    VC_PLAYER_SPEAKING = 3,
    VC_PLAYER_SILENT = 4
} vc_player_state;

struct vc_event {
    /* sizeof(vc_event): set it before vc_engine_poll_event. */
    uint32_t struct_size;
    vc_event_type type;
    /* The match the event is about; NULL for calls and the engine. */
    vc_match *match;
    /* Each "" when the event has none. */
    const char *call;
    const char *player;
    const char *channel;
    const char *text;
    int32_t value;
    const uint8_t *data;
    size_t data_length;
};

/*
 * Takes the oldest event not yet taken into *event, or sets event->type to VC_EVENT_NONE; never
 * waits. The strings and bytes stay valid until the next poll on this engine. One thread at a time.
 * An engine with an event callback has no events to poll.
 */
vc_result vc_engine_poll_event(vc_engine *engine, vc_event *event);

/* ---- 1:1 calls whose signalling the game carries (GameKit's GKVoiceChatService) ---- */

/* Invites `participant`; writes the call ID (32 hex digits and a NUL: 33 bytes). */
vc_result vc_call_start(vc_engine *engine, const char *participant, char *call_id, size_t capacity, size_t *needed);
vc_result vc_call_accept(vc_engine *engine, const char *call_id);
vc_result vc_call_deny(vc_engine *engine, const char *call_id);
/* Ends the call with `participant`, or withdraws the invitation. */
vc_result vc_call_stop(vc_engine *engine, const char *participant);
/* Signalling for calls that `from`'s game sent this one (VC_EVENT_SIGNALLING_OUT with match NULL). */
vc_result vc_engine_receive_call_signalling(vc_engine *engine, const char *from, const uint8_t *data, size_t length);
/* Real-time data that `from`'s game sent this one (VC_EVENT_REAL_TIME_OUT), for calls and matches. */
vc_result vc_engine_receive_real_time(vc_engine *engine, const char *from, const uint8_t *data, size_t length);

/* ---- Matches and their named voice channels (GameKit's GKMatch and voiceChatWithName:) ---- */

typedef struct vc_relay_join_options {
    /* sizeof(vc_relay_join_options), set by vc_relay_join_options_init. */
    uint32_t struct_size;
    const char *match;
    /* The relay's host name or address and port (default 7700). */
    const char *host;
    uint16_t port;
    /* The token the game server signed for this player and match (vc_token_sign). */
    const char *token;
    /* Non-zero: voice always goes through the relay, and players' addresses stay hidden. Default 0. */
    int relay_primary;
    /* Other relays of the same cluster, "HOST:PORT,HOST:PORT": tried in turn when `host` does not answer
     * or goes away (a relay of the cluster sends the player to its match's home). NULL or "": none. */
    const char *other_relays;
} vc_relay_join_options;

void vc_relay_join_options_init(vc_relay_join_options *options);

/* Joins a match through a relay, which carries its signalling and its players' roster. */
vc_result vc_match_join_relay(vc_engine *engine, const vc_relay_join_options *options, vc_match **match);

/* Joins a match whose signalling the game carries: `players` (count of them) are the others known
 * now; VC_EVENT_SIGNALLING_OUT says what to deliver. */
vc_result vc_match_create(
    vc_engine *engine, const char *match_id, const char *const *players, size_t player_count, vc_match **match);

/* Players who arrived (or left) after the match was made, for a match whose signalling the game carries. */
vc_result vc_match_add_player(vc_match *match, const char *player);
vc_result vc_match_remove_player(vc_match *match, const char *player);

/* Signalling for this match that `from`'s game sent this one. */
vc_result vc_match_receive_signalling(vc_match *match, const char *from, const uint8_t *data, size_t length);

/* Leaves the match, telling the others, and frees the handle. */
vc_result vc_match_leave(vc_match *match);

/* Starts hearing channel `name` (players who start the same name hear each other), or stops it. */
vc_result vc_match_start_channel(vc_match *match, const char *name);
vc_result vc_match_stop_channel(vc_match *match, const char *name);
/* Gives the microphone to the started channel `name` (NULL: to none). */
vc_result vc_match_set_active_channel(vc_match *match, const char *name);
/* Makes channel `name` positional: heard within `range`, full level within `reference_distance`,
 * falling off inversely with distance (linear non-zero: in a straight line); range 0 makes it heard whole again. */
vc_result vc_match_set_proximity(
    vc_match *match, const char *name, float range, float reference_distance, int linear);

/* Per-frame controls of a match (handed over without waiting). */
vc_result vc_match_set_channel_volume(vc_match *match, const char *name, float volume);
vc_result vc_match_set_player_muted(vc_match *match, const char *channel, const char *player, int muted);
/* Where this player stands, and (right: 3 floats, or NULL to keep the last) its right-hand direction for stereo. */
vc_result vc_match_set_position(vc_match *match, const float *position, const float *right);
/* Where the game has another player stand. */
vc_result vc_match_set_player_position(vc_match *match, const char *player, const float *position);

/* `player`'s last state in `channel`, as the events reported it. */
vc_result vc_match_player_state(vc_match *match, const char *channel, const char *player, vc_player_state *state);
/* Whether `player` speaks in `channel` now, and how loud, from the snapshot. */
vc_result vc_match_player_speaking(
    vc_match *match, const char *channel, const char *player, int *speaking, float *level_dbfs);

/* The game's own data for `players` (count of them; NULL and 0: everyone): reliable (non-zero) up
 * to 87 KB through the signalling, or unreliable up to 1000 bytes on the real-time path. */
vc_result vc_match_send_data(
    vc_match *match, const char *const *players, size_t player_count, const uint8_t *data, size_t length,
    int reliable);

#ifdef __cplusplus
}
#endif

#endif /* VOICECHAT_H */
