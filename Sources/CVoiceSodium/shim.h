#ifndef CVOICE_SODIUM_SHIM_H
#define CVOICE_SODIUM_SHIM_H

// libsodium's IETF ChaCha20-Poly1305 (RFC 8439) seals and opens in caller-owned buffers
// without allocating, which the engine thread needs for every envelope it seals and opens.

#include <sodium.h>

#endif
