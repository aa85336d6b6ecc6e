#ifndef LARDER_SYSTEM_H
#define LARDER_SYSTEM_H

/* System calls the cache needs that Swift's Glibc module does not import (they need
   _GNU_SOURCE), chosen per platform: on Apple platforms renamex_np(RENAME_EXCL) and
   fcntl(F_FULLFSYNC), and no syncfs or sync_file_range (see LarderCache's Durability). */

/* syncfs(2): flushes every dirty page and inode of the file system holding fd. Returns 0 or -1
   with errno set (ENOTSUP on Apple platforms). */
int larder_syncfs(int fd);

/* renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) (renamex_np(RENAME_EXCL) on Apple
   platforms): moves a file into place only if nothing is there; fails with EEXIST otherwise.
   Returns 0 or -1. */
int larder_rename_noreplace(const char *from, const char *to);

/* larder_rename_noreplace relative to two open folders: renameat2(from_folder, from, to_folder,
   to, RENAME_NOREPLACE) (renameatx_np(RENAME_EXCL) on Apple platforms). Returns 0 or -1. */
int larder_renameat_noreplace(int from_folder, const char *from, int to_folder, const char *to);

/* sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE): starts writing a file's dirty pages to
   disk without waiting, so the flush that makes a batch durable has less left to wait for.
   Returns 0 or -1; does nothing on Apple platforms. */
int larder_start_writeback(int fd);

/* Makes a file's (or a folder's) data durable: fsync(2), or fcntl(F_FULLFSYNC) on Apple
   platforms, where fsync leaves data in the drive's cache. Returns 0 or -1. */
int larder_full_fsync(int fd);

/* accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK): takes the next connection of a
   listening socket, close-on-exec from the start (so a process another thread spawns meanwhile
   never inherits it) and non-blocking. Returns the descriptor or -1 with errno set. */
int larder_accept(int fd);

/* mkostemps(path_template, suffix_length, O_CLOEXEC): creates and opens a new file exclusively,
   replacing the template's XXXXXX, close-on-exec from the start, so a process another thread
   spawns meanwhile never inherits it. Returns the descriptor or -1. */
int larder_make_temporary(char *path_template, int suffix_length);

/* Tell ThreadSanitizer that a lock keyed by `address` was taken (acquire) or is about to be let
   go (release), so that what one thread did holding it happens before what the next thread does
   holding it. Synchronization's Mutex blocks in futex calls TSan cannot see; without these, every
   access to a Mutex's value from two threads reads as a race. Both do nothing unless this file is
   compiled with -fsanitize=thread (`swift build --sanitize=thread`). */
void larder_tsan_acquire(void *address);
void larder_tsan_release(void *address);

#endif
