/*
 * powerloss-disk: a FUSE file system of two files, for Larder's crash-state explorer.
 *
 *   disk.img  a disk image held in memory, of a fixed size. A loop device on it carries a real
 *             ext4 or btrfs; every block the file system writes reaches this daemon as a write,
 *             every flush of the loop device (REQ_PREFLUSH, and FUA, which the loop driver does
 *             not offer and the block layer turns into a flush) as an fsync of the image.
 *   marks     write-only: each line written is a mark ("base", "begin <id> ...", "ack <id> ...").
 *
 * From the mark "base" on, the daemon logs, in order: each write of the image (offset and
 * bytes), each range zeroed (fallocate: discards and write-zeroes of the loop device), each
 * fsync of the image and each mark; at "base" it writes the image as it is then to base.img.
 * A crash state is base.img plus a choice of the logged writes (Tools/powerloss/larder-powerloss).
 *
 * Ordering: the daemon runs single-threaded (-s), and the image is opened with direct_io and
 * no writeback cache, so the kernel sends each write of the loop device to the daemon before the
 * write completes. A write completed before a flush was issued is therefore logged before that
 * flush, which is all a block device promises; the writes logged after the last flush before a
 * crash point are the ones a power cut may lose, reorder or tear.
 *
 * Files in <log-dir>: base.img, records (24 bytes each: kind 'W', 'Z', 'F' or 'M', length,
 * offset in the image, offset in data), data (the bytes of writes and the text of marks).
 *
 * Usage: powerloss-disk <log-dir> <image-bytes> <mount-point>   (stays in the foreground;
 * unmount with fusermount3 -u <mount-point>)
 */
#define _GNU_SOURCE
#define FUSE_USE_VERSION 35
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <fuse.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct record {
    uint8_t kind;
    uint8_t pad[3];
    uint32_t length;
    uint64_t offset;
    uint64_t data;
};

static unsigned char *image;
static uint64_t image_size;
static const char *log_dir;
static int records_fd = -1;
static int data_fd = -1;
static uint64_t data_size;
static int logging;
static char pending_mark[4096];
static size_t pending_length;

static void die(const char *what) {
    fprintf(stderr, "powerloss-disk: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void write_all(int fd, const void *bytes, size_t count, const char *what) {
    const unsigned char *p = bytes;
    while (count > 0) {
        ssize_t n = write(fd, p, count);
        if (n < 0) {
            if (errno == EINTR) continue;
            die(what);
        }
        p += n;
        count -= (size_t)n;
    }
}

static int open_log(const char *name) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", log_dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) die(path);
    return fd;
}

static void log_record(uint8_t kind, uint32_t length, uint64_t offset, const void *bytes) {
    if (!logging) return;
    struct record r = {.kind = kind, .length = length, .offset = offset, .data = data_size};
    if (bytes && length) {
        write_all(data_fd, bytes, length, "writing the log's data");
        data_size += length;
    }
    write_all(records_fd, &r, sizeof r, "writing the log's records");
}

static void start_logging(void) {
    int base = open_log("base.img");
    write_all(base, image, image_size, "writing base.img");
    close(base);
    records_fd = open_log("records");
    data_fd = open_log("data");
    logging = 1;
}

/* One line of the marks file: "base" starts the log; every mark from then on is logged. */
static void mark(const char *line, size_t length) {
    if (!logging && length == 4 && memcmp(line, "base", 4) == 0) start_logging();
    log_record('M', (uint32_t)length, 0, line);
}

static int is(const char *path, const char *name) { return path[0] == '/' && strcmp(path + 1, name) == 0; }

static void *disk_init(struct fuse_conn_info *conn, struct fuse_config *cfg) {
    conn->want &= ~FUSE_CAP_WRITEBACK_CACHE;
    cfg->direct_io = 1;
    cfg->kernel_cache = 0;
    cfg->attr_timeout = 3600;
    cfg->entry_timeout = 3600;
    return NULL;
}

static int disk_getattr(const char *path, struct stat *st, struct fuse_file_info *fi) {
    (void)fi;
    memset(st, 0, sizeof *st);
    if (strcmp(path, "/") == 0) {
        st->st_mode = S_IFDIR | 0700;
        st->st_nlink = 2;
    } else if (is(path, "disk.img")) {
        st->st_mode = S_IFREG | 0600;
        st->st_nlink = 1;
        st->st_size = (off_t)image_size;
        st->st_blocks = (blkcnt_t)(image_size / 512);
    } else if (is(path, "marks")) {
        st->st_mode = S_IFREG | 0200;
        st->st_nlink = 1;
    } else {
        return -ENOENT;
    }
    return 0;
}

static int disk_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t offset, struct fuse_file_info *fi,
                        enum fuse_readdir_flags flags) {
    (void)offset, (void)fi, (void)flags;
    if (strcmp(path, "/") != 0) return -ENOENT;
    fill(buf, ".", NULL, 0, 0);
    fill(buf, "..", NULL, 0, 0);
    fill(buf, "disk.img", NULL, 0, 0);
    fill(buf, "marks", NULL, 0, 0);
    return 0;
}

static int disk_open(const char *path, struct fuse_file_info *fi) {
    if (!is(path, "disk.img") && !is(path, "marks")) return -ENOENT;
    fi->direct_io = 1;
    fi->keep_cache = 0;
    return 0;
}

static int disk_truncate(const char *path, off_t size, struct fuse_file_info *fi) {
    (void)fi;
    if (is(path, "marks")) return 0;  /* ">" on the marks file */
    return (uint64_t)size == image_size ? 0 : -EPERM;
}

static int disk_read(const char *path, char *buf, size_t size, off_t offset, struct fuse_file_info *fi) {
    (void)fi;
    if (!is(path, "disk.img")) return 0;
    if ((uint64_t)offset >= image_size) return 0;
    if ((uint64_t)offset + size > image_size) size = (size_t)(image_size - (uint64_t)offset);
    memcpy(buf, image + offset, size);
    return (int)size;
}

static int disk_write(const char *path, const char *buf, size_t size, off_t offset, struct fuse_file_info *fi) {
    (void)fi;
    if (is(path, "marks")) {
        for (size_t i = 0; i < size; i++) {
            if (buf[i] == '\n') {
                mark(pending_mark, pending_length);
                pending_length = 0;
            } else if (pending_length < sizeof pending_mark) {
                pending_mark[pending_length++] = buf[i];
            }
        }
        return (int)size;
    }
    if ((uint64_t)offset + size > image_size) return -ENOSPC;
    memcpy(image + offset, buf, size);
    log_record('W', (uint32_t)size, (uint64_t)offset, buf);
    return (int)size;
}

static int disk_fsync(const char *path, int datasync, struct fuse_file_info *fi) {
    (void)datasync, (void)fi;
    if (is(path, "disk.img")) log_record('F', 0, 0, NULL);
    return 0;
}

static int disk_fallocate(const char *path, int mode, off_t offset, off_t length, struct fuse_file_info *fi) {
    (void)fi;
    if (!is(path, "disk.img")) return -EOPNOTSUPP;
    if (!(mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE))) return mode == 0 ? 0 : -EOPNOTSUPP;
    if ((uint64_t)offset >= image_size) return 0;
    if ((uint64_t)(offset + length) > image_size) length = (off_t)(image_size - (uint64_t)offset);
    memset(image + offset, 0, (size_t)length);
    log_record('Z', (uint32_t)length, (uint64_t)offset, NULL);
    return 0;
}

static void disk_destroy(void *private_data) {
    (void)private_data;
    if (pending_length) mark(pending_mark, pending_length);
    if (records_fd >= 0) close(records_fd);
    if (data_fd >= 0) close(data_fd);
}

static const struct fuse_operations operations = {
    .init = disk_init,
    .getattr = disk_getattr,
    .readdir = disk_readdir,
    .open = disk_open,
    .truncate = disk_truncate,
    .read = disk_read,
    .write = disk_write,
    .fsync = disk_fsync,
    .fallocate = disk_fallocate,
    .destroy = disk_destroy,
};

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: powerloss-disk <log-dir> <image-bytes> <mount-point>\n");
        return 64;
    }
    log_dir = argv[1];
    image_size = strtoull(argv[2], NULL, 10);
    if (image_size == 0 || image_size % 4096) {
        fprintf(stderr, "powerloss-disk: the image size must be a positive multiple of 4096\n");
        return 64;
    }
    image = calloc(1, image_size);
    if (!image) die("allocating the image");
    char *fuse_argv[] = {argv[0], argv[3], "-f", "-s", "-o", "fsname=powerloss-disk", NULL};
    return fuse_main(6, fuse_argv, &operations, NULL);
}
