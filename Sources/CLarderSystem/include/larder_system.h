#ifndef LARDER_SYSTEM_H
#define LARDER_SYSTEM_H

/* Linux calls that Swift's Glibc module does not import (they need _GNU_SOURCE). */

/* syncfs(2): flushes every dirty page and inode of the file system holding fd. Returns 0 or -1
   with errno set. */
int larder_syncfs(int fd);

#endif
