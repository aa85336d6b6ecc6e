#ifndef LARDER_SYSTEM_H
#define LARDER_SYSTEM_H

/* Linux calls that Swift's Glibc module does not import (they need _GNU_SOURCE). */

/* syncfs(2): flushes every dirty page and inode of the file system holding fd. Returns 0 or -1
   with errno set. */
int larder_syncfs(int fd);

/* renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE): moves a file into place only if
   nothing is there; fails with EEXIST otherwise. Returns 0 or -1. */
int larder_rename_noreplace(const char *from, const char *to);

/* sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE): starts writing a file's dirty pages to
   disk without waiting, so the flush that makes a batch durable has less left to wait for.
   Returns 0 or -1. */
int larder_start_writeback(int fd);

#endif
