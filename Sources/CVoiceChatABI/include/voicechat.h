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
 * - Every function may be called from any thread; none calls back into the caller.
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
    VC_ERROR_BUFFER_TOO_SMALL = 6
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

#ifdef __cplusplus
}
#endif

#endif /* VOICECHAT_H */
