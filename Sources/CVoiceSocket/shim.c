#define _GNU_SOURCE
#include <stddef.h>
#include <sys/socket.h>

#include "CVoiceSocket.h"

_Static_assert(sizeof(cvoice_mmsghdr) == sizeof(struct mmsghdr), "cvoice_mmsghdr must match struct mmsghdr");
_Static_assert(offsetof(cvoice_mmsghdr, msg_len) == offsetof(struct mmsghdr, msg_len),
               "cvoice_mmsghdr must match struct mmsghdr");

int cvoice_sendmmsg(int descriptor, cvoice_mmsghdr *messages, unsigned int count, int flags) {
    return sendmmsg(descriptor, (struct mmsghdr *)messages, count, flags);
}
