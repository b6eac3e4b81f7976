#ifndef CVOICE_SOCKET_H
#define CVOICE_SOCKET_H

// sendmmsg(2) and its message header, which glibc declares only under _GNU_SOURCE: the Glibc
// module Swift imports is built without it, so neither reaches Swift from there. The wrapper is
// compiled in shim.c, where _GNU_SOURCE is defined before any system header.

#include <sys/socket.h>

// The layout of glibc's `struct mmsghdr` (shim.c checks that it is).
typedef struct {
    struct msghdr msg_hdr;
    unsigned int msg_len;
} cvoice_mmsghdr;

// Sends `count` messages in one system call; returns how many were sent, or -1 with errno set.
int cvoice_sendmmsg(int descriptor, cvoice_mmsghdr *messages, unsigned int count, int flags);

#endif
