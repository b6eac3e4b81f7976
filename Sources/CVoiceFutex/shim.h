#ifndef CVOICE_FUTEX_SHIM_H
#define CVOICE_FUTEX_SHIM_H

// A 32-bit counter that one thread bumps and another sleeps on, through Linux futexes.
//
// A device thread must wake the engine the moment a period arrives without taking a lock:
// a condition variable needs its mutex on the signalling side, and POSIX semaphores cannot
// wait on CLOCK_MONOTONIC from Swift (sem_clockwait is a GNU extension the Glibc module does
// not declare). The futex system call is variadic, which Swift cannot call, hence this shim.
// The counter's memory is owned by the caller and must not move while any thread uses it.

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

// The counter's current value (acquire: what the bumping thread wrote before is visible).
static inline uint32_t cvoice_futex_counter_load(uint32_t *counter) {
    return __atomic_load_n(counter, __ATOMIC_ACQUIRE);
}

// Adds one and wakes every thread sleeping on the counter. Never blocks and takes no lock in
// user space: safe on an audio thread.
static inline void cvoice_futex_counter_bump(uint32_t *counter) {
    __atomic_fetch_add(counter, 1, __ATOMIC_RELEASE);
    syscall(SYS_futex, counter, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

// Sleeps while the counter still equals `seen`, at most until `deadline_nanoseconds` on
// CLOCK_MONOTONIC (absolute, so a wait that is interrupted and repeated keeps its deadline).
// Returns 0 when woken or when the counter had already moved on, else the error number:
// ETIMEDOUT at the deadline, EINTR after a signal.
static inline int cvoice_futex_counter_wait(uint32_t *counter, uint32_t seen, int64_t deadline_nanoseconds) {
    struct timespec deadline = {
        .tv_sec = (time_t)(deadline_nanoseconds / 1000000000),
        .tv_nsec = (long)(deadline_nanoseconds % 1000000000),
    };
    long status = syscall(
        SYS_futex, counter, FUTEX_WAIT_BITSET_PRIVATE, seen, &deadline, NULL, FUTEX_BITSET_MATCH_ANY);
    if (status == 0) return 0;
    return errno == EAGAIN ? 0 : errno;
}

#endif
