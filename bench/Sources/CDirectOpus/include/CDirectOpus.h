#ifndef CDIRECT_OPUS_H
#define CDIRECT_OPUS_H

// The libopus calls that VoiceCodec's OpusEncoder and OpusDecoder make, made directly from C
// in the same loops the codec benchmark runs through the Swift layer. The difference between
// the two timings is what the Swift layer costs.

#include <opus/opus.h>
#include <stdint.h>

// Creates an encoder configured with exactly the requests OpusEncoder.init sends for the
// same settings (48 kHz, VoIP, constrained VBR, DTX off, voice signal, full band). Returns NULL
// and sets *status on failure.
OpusEncoder *direct_opus_encoder_create(int channels, int bitrate, int complexity, int inband_fec,
                                        int packet_loss_percent, int *status);

void direct_opus_encoder_destroy(OpusEncoder *encoder);

// Encodes frame_count consecutive frames of frame_size samples per channel from pcm, packet i
// into packets + i * packet_stride with its length in lengths[i]. Returns the nanoseconds the
// loop took, or a negative libopus status.
int64_t direct_opus_encode_frames(OpusEncoder *encoder, const float *pcm, int channels, int frame_size,
                                  int frame_count, unsigned char *packets, int packet_stride, int *lengths);

OpusDecoder *direct_opus_decoder_create(int channels, int *status);

void direct_opus_decoder_destroy(OpusDecoder *decoder);

// Decodes frame_count packets (laid out as direct_opus_encode_frames writes them) into pcm,
// frame_size samples per channel each. Returns the nanoseconds the loop took, or a negative
// libopus status.
int64_t direct_opus_decode_frames(OpusDecoder *decoder, const unsigned char *packets, int packet_stride,
                                  const int *lengths, int frame_count, float *pcm, int channels, int frame_size);

// Decodes the even-numbered packets and conceals the odd-numbered ones, as if every other
// packet were lost. Returns the nanoseconds spent concealing (the decodes are not counted), or
// a negative libopus status.
int64_t direct_opus_conceal_alternate_frames(OpusDecoder *decoder, const unsigned char *packets,
                                             int packet_stride, const int *lengths, int frame_count, float *pcm,
                                             int channels, int frame_size);

#endif
