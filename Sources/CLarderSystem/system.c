#if defined(__linux__)
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>
#include "larder_system.h"

#if defined(__APPLE__)

int larder_syncfs(int fd) {
    (void)fd;
    errno = ENOTSUP;
    return -1;
}

int larder_rename_noreplace(const char *from, const char *to) { return renamex_np(from, to, RENAME_EXCL); }

int larder_renameat_noreplace(int from_folder, const char *from, int to_folder, const char *to) {
    return renameatx_np(from_folder, from, to_folder, to, RENAME_EXCL);
}

int larder_start_writeback(int fd) {
    (void)fd;
    return 0;
}

int larder_full_fsync(int fd) {
    /* fsync(2) on Darwin leaves the data in the drive's cache; F_FULLFSYNC flushes it. Some file
       systems (network, FAT) do not support it: fsync is the best they offer. */
    if (fcntl(fd, F_FULLFSYNC) == 0) return 0;
    return fsync(fd);
}

#else

int larder_syncfs(int fd) { return syncfs(fd); }

int larder_rename_noreplace(const char *from, const char *to) {
    return renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE);
}

int larder_renameat_noreplace(int from_folder, const char *from, int to_folder, const char *to) {
    return renameat2(from_folder, from, to_folder, to, RENAME_NOREPLACE);
}

int larder_start_writeback(int fd) { return sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE); }

int larder_full_fsync(int fd) { return fsync(fd); }

#endif

int larder_accept(int fd) {
#if defined(__APPLE__)
    int accepted = accept(fd, NULL, NULL);
    if (accepted >= 0) {
        fcntl(accepted, F_SETFD, FD_CLOEXEC);
        fcntl(accepted, F_SETFL, fcntl(accepted, F_GETFL) | O_NONBLOCK);
    }
    return accepted;
#else
    return accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
#endif
}

int larder_make_temporary(char *path_template, int suffix_length) {
    return mkostemps(path_template, suffix_length, O_CLOEXEC);
}

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define LARDER_TSAN 1
#endif
#endif

#if defined(LARDER_TSAN)
/* From the ThreadSanitizer runtime (sanitizer/tsan_interface.h), linked into every program
   built with -fsanitize=thread. */
void __tsan_acquire(void *address);
void __tsan_release(void *address);

void larder_tsan_acquire(void *address) { __tsan_acquire(address); }
void larder_tsan_release(void *address) { __tsan_release(address); }
#else
void larder_tsan_acquire(void *address) { (void)address; }
void larder_tsan_release(void *address) { (void)address; }
#endif
