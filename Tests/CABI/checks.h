/* What the C tests check with: each failed check is printed and counted in `failures`. */
#ifndef CHECKS_H
#define CHECKS_H

#include <stdio.h>
#include <string.h>

#include "voicechat.h"

static int failures = 0;

static inline void check(int condition, const char *what) {
    if (!condition) {
        fprintf(stderr, "FAILED: %s (last error: %s)\n", what, vc_last_error_message());
        failures++;
    }
}

/* A call refused with `code` and a message that names `word`. */
static inline void refused(vc_result result, vc_result code, const char *word, const char *what) {
    if (result != code || strstr(vc_last_error_message(), word) == NULL) {
        fprintf(stderr, "FAILED: %s: result %d (wanted %d), message \"%s\" (wanted it to name %s)\n", what, result,
                code, vc_last_error_message(), word);
        failures++;
    }
}

#endif
