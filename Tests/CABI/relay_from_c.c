/*
 * A game server in C: runs the relay through the C ABI, issues two players' tokens, waits for
 * them to join, gives them orders, and checks that bad input is refused with a code and a message.
 * Prints "relay PORT alice TOKEN bob TOKEN" once listening; exits 0 when every check held.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "checks.h"

int main(void) {
    static const uint8_t secret[] = "0123456789abcdef0123456789abcdef";
    char alice[512], bob[512], text[8192];
    size_t needed = 0;
    uint64_t expiry = (uint64_t)time(NULL) + 600;

    check(vc_abi_version() == VC_ABI_VERSION, "the library implements the header's ABI");
    check(vc_token_sign(secret, 32, NULL, "arena", "alice", expiry, alice, sizeof alice, &needed) == VC_OK, "alice's token");
    check(vc_token_sign(secret, 32, "", "arena", "bob", expiry, bob, sizeof bob, &needed) == VC_OK, "bob's token");

    /* Bad input: a code and a message that names the argument, never a crash. */
    check(vc_token_sign(secret, 8, NULL, "arena", "x", expiry, text, sizeof text, &needed) == VC_ERROR_INVALID_ARGUMENT
              && strstr(vc_last_error_message(), "secret_length") != NULL,
          "a short secret is refused by name");
    check(vc_token_sign(secret, 32, NULL, NULL, "x", expiry, text, sizeof text, &needed) == VC_ERROR_INVALID_ARGUMENT
              && strstr(vc_last_error_message(), "match") != NULL,
          "a NULL match is refused by name");
    check(vc_token_sign(secret, (size_t)-1, NULL, "arena", "x", expiry, text, sizeof text, &needed)
              == VC_ERROR_INVALID_ARGUMENT,
          "a huge secret length is refused");
    check(vc_token_sign(secret, 32, NULL, "arena", "x", UINT64_MAX, text, sizeof text, &needed) == VC_OK,
          "the latest expiry signs");
    check(vc_token_sign(secret, 32, NULL, "arena", "x", expiry, text, 4, &needed) == VC_ERROR_BUFFER_TOO_SMALL
              && needed > 4,
          "a small buffer says how much the token takes");

    vc_relay_options options;
    vc_relay_options_init(&options);
    vc_relay *relay = NULL;
    check(vc_relay_create(&options, &relay) == VC_ERROR_INVALID_ARGUMENT
              && strstr(vc_last_error_message(), "secret") != NULL,
          "a relay without a secret is refused");
    vc_relay_options wrong = options;
    wrong.struct_size = 8;
    wrong.secret = secret;
    wrong.secret_length = 32;
    check(vc_relay_create(&wrong, &relay) == VC_ERROR_INVALID_ARGUMENT
              && strstr(vc_last_error_message(), "struct_size") != NULL,
          "a wrong struct_size is refused");
    options.host = "127.0.0.1";
    options.port = 0;
    options.secret = secret;
    options.secret_length = 32;
    options.liveness_timeout_seconds = NAN;
    check(vc_relay_create(&options, &relay) == VC_ERROR_INVALID_ARGUMENT, "a NaN timeout is refused");
    options.liveness_timeout_seconds = 1e300;
    check(vc_relay_create(&options, &relay) == VC_ERROR_INVALID_ARGUMENT
              && strstr(vc_last_error_message(), "liveness_timeout_seconds") != NULL,
          "a huge timeout is refused by name");
    options.liveness_timeout_seconds = 5;
    options.secret_length = (size_t)-1;
    check(vc_relay_create(&options, &relay) == VC_ERROR_INVALID_ARGUMENT
              && strstr(vc_last_error_message(), "secret_length") != NULL,
          "a huge secret length is refused by name");
    options.secret_length = 32;
    char long_host[400];
    memset(long_host, 'h', sizeof long_host - 1);
    long_host[sizeof long_host - 1] = 0;
    options.host = long_host;
    check(vc_relay_create(&options, &relay) == VC_ERROR_INVALID_ARGUMENT
              && strstr(vc_last_error_message(), "options.host") != NULL,
          "a huge host name is refused by name");
    options.host = "127.0.0.1";
    check(vc_relay_create(&options, NULL) == VC_ERROR_INVALID_ARGUMENT, "a NULL place for the handle is refused");
    check(vc_relay_create(NULL, &relay) == VC_ERROR_INVALID_ARGUMENT, "NULL options are refused");
    check(vc_relay_create(&options, &relay) == VC_OK && relay != NULL, "the relay is made");
    check(vc_relay_players_json(relay, "arena", text, sizeof text, &needed) == VC_ERROR_INVALID_STATE,
          "a relay not started says so");

    uint16_t port = 0;
    check(vc_relay_start(relay, &port) == VC_OK && port != 0, "the relay listens");
    printf("relay %u alice %s bob %s\n", (unsigned)port, alice, bob);
    fflush(stdout);

    /* The players join from their own processes. */
    int joined = 0;
    for (int tries = 0; tries < 300 && !joined; tries++) {
        if (vc_relay_players_json(relay, "arena", text, sizeof text, &needed) == VC_OK
            && strstr(text, "\"alice\"") != NULL && strstr(text, "\"bob\"") != NULL) {
            joined = 1;
        } else {
            struct timespec pause = {0, 100000000};
            nanosleep(&pause, NULL);
        }
    }
    check(joined, "both players joined");
    check(strstr(text, "\"channels\":[\"all\"]") != NULL, "the players list their channels by name");

    check(vc_relay_set_server_mute(relay, "arena", "bob", 1) == VC_OK, "bob is server-muted");
    check(vc_relay_set_position(relay, "arena", "alice", 1.0f, 2.0f, 3.0f) == VC_OK, "alice is placed");
    check(vc_relay_players_json(relay, "arena", text, sizeof text, &needed) == VC_OK
              && strstr(text, "\"serverMuted\":true") != NULL && strstr(text, "\"position\":[1,2,3]") != NULL,
          "the orders show in the players list");
    check(vc_relay_set_position(relay, "arena", "alice", NAN, 0, 0) == VC_ERROR_INVALID_ARGUMENT,
          "a NaN position is refused");
    check(vc_relay_set_position(relay, "arena", "alice", 0, HUGE_VALF, 0) == VC_ERROR_INVALID_ARGUMENT,
          "an infinite position is refused");
    check(vc_relay_set_server_mute(relay, NULL, "bob", 1) == VC_ERROR_INVALID_ARGUMENT
              && strstr(vc_last_error_message(), "match") != NULL,
          "a NULL match is refused by name");
    check(vc_relay_players_json(relay, "arena", NULL, 0, &needed) == VC_ERROR_INVALID_ARGUMENT && needed > 0,
          "a NULL buffer says how much the list takes");
    check(vc_relay_kick(relay, "arena", "carol") == VC_ERROR_NOT_FOUND
              && strstr(vc_last_error_message(), "carol") != NULL,
          "an unknown player is named");
    check(vc_relay_move(relay, "nowhere", "bob", "all") == VC_ERROR_NOT_FOUND, "an unknown match is refused");
    check(vc_relay_statistics_json(relay, text, sizeof text, &needed) == VC_OK && strstr(text, "\"players\":2") != NULL,
          "the statistics count both players");
    printf("%s\n", text);

    check(vc_relay_stop(relay) == VC_OK, "the relay stops");
    check(vc_relay_destroy(relay) == VC_OK, "the relay is destroyed");
    check(vc_relay_destroy(relay) == VC_ERROR_INVALID_HANDLE, "a destroyed relay is refused");
    check(vc_relay_start(relay, &port) == VC_ERROR_INVALID_HANDLE, "a destroyed relay cannot start");
    check(vc_relay_start(NULL, &port) == VC_ERROR_INVALID_ARGUMENT, "a NULL relay is refused");
    if (failures == 0) {
        printf("all checks held\n");
    } else {
        printf("%d checks failed\n", failures);
    }
    return failures == 0 ? 0 : 1;
}
