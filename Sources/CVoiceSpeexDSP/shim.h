#ifndef CVOICE_SPEEXDSP_SHIM_H
#define CVOICE_SPEEXDSP_SHIM_H

// speexdsp's API is plain functions; its *_ctl calls take `void *` and are callable from
// Swift as they are, so this header only gathers the headers the project uses. No wrappers
// are needed.

#include <speex/speex_jitter.h>
#include <speex/speex_preprocess.h>
#include <speex/speex_resampler.h>

#endif
