/*
 * A game in C that embeds the voice engine with its own audio: it joins a match through a relay,
 * plays a WAV file into the engine as its microphone through vc_engine_process, block by block in
 * real time as an audio callback would, and writes what it heard to another WAV file.
 *
 * Build against the SDK (scripts/build-sdk.sh):
 *   cc -std=c99 join_match.c -o join_match $(pkg-config --cflags --libs sdk/lib/pkgconfig/voicechat.pc)
 * Run:
 *   ./join_match HOST PORT MATCH NAME TOKEN SAID.wav HEARD.wav SECONDS [BLOCK_FRAMES]
 * The WAV is 16-bit PCM or 32-bit float, mono or stereo, at the rate the "game" runs at (44.1 or
 * 48 kHz, say); what it heard is written at the same rate and channels, as 16-bit PCM. SAID.wav
 * "-" says nothing (48 kHz mono silence). It starts speaking once another player is connected, and
 * exits 0 after SECONDS, 1 on an error.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "voicechat.h"

typedef struct {
    uint32_t rate;
    uint16_t channels;
    size_t frames;
    float *samples; /* interleaved */
} wav;

static uint32_t le32(const unsigned char *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }
static uint16_t le16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }

/* Reads a 16-bit PCM or 32-bit float WAV file; 0 on success. */
static int read_wav(const char *path, wav *out) {
    FILE *file = fopen(path, "rb");
    if (!file) { perror(path); return -1; }
    unsigned char header[12], chunk[8];
    if (fread(header, 1, 12, file) != 12 || memcmp(header, "RIFF", 4) || memcmp(header + 8, "WAVE", 4)) {
        fprintf(stderr, "%s: not a WAV file\n", path);
        fclose(file);
        return -1;
    }
    uint16_t format = 0, bits = 0;
    out->channels = 0;
    while (fread(chunk, 1, 8, file) == 8) {
        uint32_t size = le32(chunk + 4);
        if (!memcmp(chunk, "fmt ", 4)) {
            unsigned char fmt[40];
            if (size < 16 || size > sizeof fmt || fread(fmt, 1, size, file) != size) break;
            format = le16(fmt);
            out->channels = le16(fmt + 2);
            out->rate = le32(fmt + 4);
            bits = le16(fmt + 14);
            if (format == 0xFFFE && size >= 26) format = le16(fmt + 24);
        } else if (!memcmp(chunk, "data", 4)) {
            int pcm16 = format == 1 && bits == 16, float32 = format == 3 && bits == 32;
            if (!(pcm16 || float32) || out->channels < 1 || out->channels > 2) break;
            size_t bytes_per_sample = pcm16 ? 2 : 4;
            size_t count = size / bytes_per_sample;
            unsigned char *raw = malloc(size ? size : 1);
            out->samples = malloc((count ? count : 1) * sizeof(float));
            if (!raw || !out->samples || fread(raw, 1, size, file) != size) break;
            for (size_t i = 0; i < count; i++) {
                if (pcm16) {
                    out->samples[i] = (int16_t)le16(raw + 2 * i) / 32768.0f;
                } else {
                    memcpy(&out->samples[i], raw + 4 * i, 4);
                }
            }
            free(raw);
            out->frames = count / out->channels;
            fclose(file);
            return 0;
        } else {
            fseek(file, (long)(size + (size & 1)), SEEK_CUR);
        }
    }
    fprintf(stderr, "%s: only 16-bit PCM or 32-bit float WAV, mono or stereo, is read here\n", path);
    fclose(file);
    return -1;
}

static void put32(FILE *file, uint32_t v) {
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16), (unsigned char)(v >> 24)};
    fwrite(b, 1, 4, file);
}
static void put16(FILE *file, uint16_t v) {
    unsigned char b[2] = {(unsigned char)v, (unsigned char)(v >> 8)};
    fwrite(b, 1, 2, file);
}

/* Writes 16-bit PCM; 0 on success. */
static int write_wav(const char *path, const wav *in) {
    FILE *file = fopen(path, "wb");
    if (!file) { perror(path); return -1; }
    uint32_t data = (uint32_t)(in->frames * in->channels * 2);
    fwrite("RIFF", 1, 4, file); put32(file, 36 + data); fwrite("WAVEfmt ", 1, 8, file);
    put32(file, 16); put16(file, 1); put16(file, in->channels); put32(file, in->rate);
    put32(file, in->rate * in->channels * 2); put16(file, (uint16_t)(in->channels * 2)); put16(file, 16);
    fwrite("data", 1, 4, file); put32(file, data);
    for (size_t i = 0; i < in->frames * in->channels; i++) {
        float s = in->samples[i] < -1 ? -1 : in->samples[i] > 1 ? 1 : in->samples[i];
        put16(file, (uint16_t)(int16_t)(s * 32767));
    }
    return fclose(file);
}

static int fail(const char *what) {
    fprintf(stderr, "join_match: %s: %s\n", what, vc_last_error_message());
    return 1;
}

int main(int argc, char **argv) {
    if (argc < 9) {
        fprintf(stderr, "usage: %s HOST PORT MATCH NAME TOKEN SAID.wav HEARD.wav SECONDS [BLOCK_FRAMES]\n", argv[0]);
        return 2;
    }
    wav said = {0}, heard = {0};
    if (strcmp(argv[6], "-") == 0) {
        said.rate = 48000;
        said.channels = 1;
    } else if (read_wav(argv[6], &said)) {
        return 1;
    }
    double seconds = atof(argv[8]);
    size_t block = argc > 9 ? (size_t)atol(argv[9]) : 256;
    if (seconds <= 0 || block == 0 || block > 65536) {
        fprintf(stderr, "join_match: SECONDS must be more than 0 and BLOCK_FRAMES 1…65536\n");
        return 2;
    }

    vc_engine_options options;
    vc_engine_options_init(&options);
    options.participant = argv[4];
    options.audio_mode = VC_AUDIO_GAME;
    options.sample_rate = said.rate;
    options.channels = said.channels;
    options.block_frames = (uint32_t)block;
    vc_engine *engine = NULL;
    if (vc_engine_create(&options, &engine) != VC_OK) return fail("creating the engine");
    if (vc_engine_start(engine) != VC_OK) return fail("starting the engine");

    vc_relay_join_options join;
    vc_relay_join_options_init(&join);
    join.match = argv[3];
    join.host = argv[1];
    join.port = (uint16_t)atoi(argv[2]);
    join.token = argv[5];
    vc_match *match = NULL;
    if (vc_match_join_relay(engine, &join, &match) != VC_OK) return fail("joining the match");
    if (vc_match_start_channel(match, "all") != VC_OK || vc_match_set_active_channel(match, "all") != VC_OK)
        return fail("starting channel all");

    size_t total = (size_t)(seconds * said.rate);
    heard.rate = said.rate;
    heard.channels = said.channels;
    heard.samples = calloc(total * said.channels + block * said.channels, sizeof(float));
    float *silence = calloc(block * said.channels, sizeof(float));
    if (!heard.samples || !silence) return 1;

    /* The "audio callback": one block every block/rate seconds on an absolute clock. */
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    long period = (long)(1e9 * (double)block / said.rate);
    size_t spoken = 0;
    int speaking = 0, status = 0;
    while (heard.frames < total) {
        const float *captured = silence;
        if (speaking && spoken + block <= said.frames) {
            captured = said.samples + spoken * said.channels;
            spoken += block;
        }
        if (vc_engine_process(engine, captured, heard.samples + heard.frames * said.channels, block) != VC_OK) {
            status = fail("processing a block");
            break;
        }
        heard.frames += block;

        /* The game loop's side: what happened, without waiting. */
        vc_event event;
        event.struct_size = sizeof event;
        while (vc_engine_poll_event(engine, &event) == VC_OK && event.type != VC_EVENT_NONE) {
            if (event.type == VC_EVENT_RELAY_JOINED) printf("joined match %s as %s\n", argv[3], argv[4]);
            if (event.type == VC_EVENT_PLAYER_CONNECTION && event.value) {
                printf("%s connected\n", event.player);
                speaking = 1;
            }
            if (event.type == VC_EVENT_RELAY_REFUSED) {
                fprintf(stderr, "join_match: the relay refused: %s\n", event.text);
                status = 1;
            }
        }
        if (status) break;
        fflush(stdout);

        next.tv_nsec += period;
        while (next.tv_nsec >= 1000000000L) { next.tv_nsec -= 1000000000L; next.tv_sec++; }
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
    }
    if (heard.frames > total) heard.frames = total;
    if (write_wav(argv[7], &heard)) status = 1;
    if (vc_match_leave(match) != VC_OK) status = fail("leaving the match");
    if (vc_engine_destroy(engine) != VC_OK) status = fail("destroying the engine");
    free(said.samples);
    free(heard.samples);
    free(silence);
    printf("spoke %.1f s, heard %.1f s\n", (double)spoken / said.rate, (double)heard.frames / said.rate);
    return status;
}
