#ifndef CVOICE_OPUS_SHIM_H
#define CVOICE_OPUS_SHIM_H

// libopus configures encoders and decoders through the variadic opus_encoder_ctl /
// opus_decoder_ctl, whose request arguments are function-like macros. Swift can call
// neither, so each request the project uses gets one typed, prefixed wrapper here.
// Every wrapper returns libopus's status code (OPUS_OK or a negative error).

#include <opus/opus.h>

// MARK: Encoder setters

static inline int cvoice_opus_encoder_set_bitrate(OpusEncoder *encoder, opus_int32 bitsPerSecond) {
    return opus_encoder_ctl(encoder, OPUS_SET_BITRATE(bitsPerSecond));
}

static inline int cvoice_opus_encoder_set_complexity(OpusEncoder *encoder, opus_int32 complexity) {
    return opus_encoder_ctl(encoder, OPUS_SET_COMPLEXITY(complexity));
}

static inline int cvoice_opus_encoder_set_vbr(OpusEncoder *encoder, opus_int32 enabled) {
    return opus_encoder_ctl(encoder, OPUS_SET_VBR(enabled));
}

static inline int cvoice_opus_encoder_set_vbr_constraint(OpusEncoder *encoder, opus_int32 constrained) {
    return opus_encoder_ctl(encoder, OPUS_SET_VBR_CONSTRAINT(constrained));
}

static inline int cvoice_opus_encoder_set_dtx(OpusEncoder *encoder, opus_int32 enabled) {
    return opus_encoder_ctl(encoder, OPUS_SET_DTX(enabled));
}

static inline int cvoice_opus_encoder_set_inband_fec(OpusEncoder *encoder, opus_int32 enabled) {
    return opus_encoder_ctl(encoder, OPUS_SET_INBAND_FEC(enabled));
}

static inline int cvoice_opus_encoder_set_packet_loss_percent(OpusEncoder *encoder, opus_int32 percent) {
    return opus_encoder_ctl(encoder, OPUS_SET_PACKET_LOSS_PERC(percent));
}

static inline int cvoice_opus_encoder_set_signal(OpusEncoder *encoder, opus_int32 signal) {
    return opus_encoder_ctl(encoder, OPUS_SET_SIGNAL(signal));
}

static inline int cvoice_opus_encoder_set_max_bandwidth(OpusEncoder *encoder, opus_int32 bandwidth) {
    return opus_encoder_ctl(encoder, OPUS_SET_MAX_BANDWIDTH(bandwidth));
}

static inline int cvoice_opus_encoder_reset_state(OpusEncoder *encoder) {
    return opus_encoder_ctl(encoder, OPUS_RESET_STATE);
}

// MARK: Encoder getters

static inline int cvoice_opus_encoder_get_bitrate(OpusEncoder *encoder, opus_int32 *bitsPerSecond) {
    return opus_encoder_ctl(encoder, OPUS_GET_BITRATE(bitsPerSecond));
}

static inline int cvoice_opus_encoder_get_lookahead(OpusEncoder *encoder, opus_int32 *samples) {
    return opus_encoder_ctl(encoder, OPUS_GET_LOOKAHEAD(samples));
}

static inline int cvoice_opus_encoder_get_in_dtx(OpusEncoder *encoder, opus_int32 *inDTX) {
    return opus_encoder_ctl(encoder, OPUS_GET_IN_DTX(inDTX));
}

static inline int cvoice_opus_encoder_get_final_range(OpusEncoder *encoder, opus_uint32 *range) {
    return opus_encoder_ctl(encoder, OPUS_GET_FINAL_RANGE(range));
}

// MARK: Decoder

static inline int cvoice_opus_decoder_get_last_packet_duration(OpusDecoder *decoder, opus_int32 *samples) {
    return opus_decoder_ctl(decoder, OPUS_GET_LAST_PACKET_DURATION(samples));
}

static inline int cvoice_opus_decoder_set_gain(OpusDecoder *decoder, opus_int32 q8Decibels) {
    return opus_decoder_ctl(decoder, OPUS_SET_GAIN(q8Decibels));
}

static inline int cvoice_opus_decoder_reset_state(OpusDecoder *decoder) {
    return opus_decoder_ctl(decoder, OPUS_RESET_STATE);
}

static inline int cvoice_opus_decoder_get_final_range(OpusDecoder *decoder, opus_uint32 *range) {
    return opus_decoder_ctl(decoder, OPUS_GET_FINAL_RANGE(range));
}

#endif
