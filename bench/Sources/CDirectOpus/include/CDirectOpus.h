#ifndef CDIRECT_OPUS_H
#define CDIRECT_OPUS_H
#endif
