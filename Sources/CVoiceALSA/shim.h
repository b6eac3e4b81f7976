#ifndef CVOICE_ALSA_SHIM_H
#define CVOICE_ALSA_SHIM_H

// alsa-lib's functions are callable from Swift, with two exceptions handled here. Its
// *_alloca macros are not; the project uses the *_malloc / *_free functions instead, at
// device setup (never on an audio thread). And its error handler is variadic, which Swift
// can neither define nor pass.

#include <alsa/asoundlib.h>

// alsa-lib prints its own diagnostics ("ALSA lib pcm.c:…: Unknown PCM x") to stderr before
// returning an error code. The project reports every failure itself, naming the device with
// snd_strerror's reason and what to do, so the library's extra line is noise in a tool's
// one-line error message.
static void cvoice_alsa_ignore_error(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

// Installs the handler above; idempotent.
static inline void cvoice_alsa_silence_library_messages(void) {
    snd_lib_error_set_handler(cvoice_alsa_ignore_error);
}

#endif
