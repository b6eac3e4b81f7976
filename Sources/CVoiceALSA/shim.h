#ifndef CVOICE_ALSA_SHIM_H
#define CVOICE_ALSA_SHIM_H

// alsa-lib's functions are all callable from Swift. Its *_alloca macros are not; the
// project uses the *_malloc / *_free functions instead, at device setup (never on an
// audio thread), so no wrappers are needed here.

#include <alsa/asoundlib.h>

#endif
