#include "CDirectOpus.h"

#include <time.h>

static int64_t direct_opus_now(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

OpusEncoder *direct_opus_encoder_create(int channels, int bitrate, int complexity, int inband_fec,
                                        int packet_loss_percent, int *status) {
    OpusEncoder *encoder = opus_encoder_create(48000, channels, OPUS_APPLICATION_VOIP, status);
    if (encoder == NULL || *status != OPUS_OK) return NULL;
    // The same requests, in the same order, as OpusEncoder.apply.
    int results[] = {
        opus_encoder_ctl(encoder, OPUS_SET_BITRATE(bitrate)),
        opus_encoder_ctl(encoder, OPUS_SET_COMPLEXITY(complexity)),
        opus_encoder_ctl(encoder, OPUS_SET_VBR(1)),
        opus_encoder_ctl(encoder, OPUS_SET_VBR_CONSTRAINT(1)),
        opus_encoder_ctl(encoder, OPUS_SET_DTX(0)),
        opus_encoder_ctl(encoder, OPUS_SET_INBAND_FEC(inband_fec)),
        opus_encoder_ctl(encoder, OPUS_SET_PACKET_LOSS_PERC(packet_loss_percent)),
        opus_encoder_ctl(encoder, OPUS_SET_SIGNAL(OPUS_SIGNAL_VOICE)),
        opus_encoder_ctl(encoder, OPUS_SET_MAX_BANDWIDTH(OPUS_BANDWIDTH_FULLBAND)),
    };
    for (unsigned index = 0; index < sizeof results / sizeof results[0]; index++) {
        if (results[index] != OPUS_OK) {
            *status = results[index];
            opus_encoder_destroy(encoder);
            return NULL;
        }
    }
    return encoder;
}

void direct_opus_encoder_destroy(OpusEncoder *encoder) { opus_encoder_destroy(encoder); }

int64_t direct_opus_encode_frames(OpusEncoder *encoder, const float *pcm, int channels, int frame_size,
                                  int frame_count, unsigned char *packets, int packet_stride, int *lengths) {
    int64_t start = direct_opus_now();
    for (int index = 0; index < frame_count; index++) {
        int length = opus_encode_float(encoder, pcm + (int64_t)index * frame_size * channels, frame_size,
                                       packets + (int64_t)index * packet_stride, packet_stride);
        if (length < 0) return length;
        lengths[index] = length;
    }
    return direct_opus_now() - start;
}

OpusDecoder *direct_opus_decoder_create(int channels, int *status) {
    OpusDecoder *decoder = opus_decoder_create(48000, channels, status);
    return *status == OPUS_OK ? decoder : NULL;
}

void direct_opus_decoder_destroy(OpusDecoder *decoder) { opus_decoder_destroy(decoder); }

int64_t direct_opus_decode_frames(OpusDecoder *decoder, const unsigned char *packets, int packet_stride,
                                  const int *lengths, int frame_count, float *pcm, int channels, int frame_size) {
    int64_t start = direct_opus_now();
    for (int index = 0; index < frame_count; index++) {
        int frames = opus_decode_float(decoder, packets + (int64_t)index * packet_stride, lengths[index],
                                       pcm + (int64_t)index * frame_size * channels, frame_size, 0);
        if (frames < 0) return frames;
    }
    return direct_opus_now() - start;
}

int64_t direct_opus_conceal_alternate_frames(OpusDecoder *decoder, const unsigned char *packets,
                                             int packet_stride, const int *lengths, int frame_count, float *pcm,
                                             int channels, int frame_size) {
    int64_t concealing = 0;
    for (int index = 0; index < frame_count; index++) {
        float *output = pcm + (int64_t)index * frame_size * channels;
        if (index % 2 == 0) {
            int frames = opus_decode_float(decoder, packets + (int64_t)index * packet_stride, lengths[index], output,
                                           frame_size, 0);
            if (frames < 0) return frames;
        } else {
            int64_t start = direct_opus_now();
            int frames = opus_decode_float(decoder, NULL, 0, output, frame_size, 0);
            concealing += direct_opus_now() - start;
            if (frames < 0) return frames;
        }
    }
    return concealing;
}
