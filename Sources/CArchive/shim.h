#ifndef LARDER_CARCHIVE_SHIM_H
#define LARDER_CARCHIVE_SHIM_H
#include <archive.h>
#include <archive_entry.h>
#include <sys/stat.h>

/* File-type macros that Swift does not import as constants. */
static inline unsigned int larder_ae_ifreg(void) { return AE_IFREG; }
static inline unsigned int larder_ae_ifdir(void) { return AE_IFDIR; }
static inline unsigned int larder_ae_iflnk(void) { return AE_IFLNK; }
static inline unsigned int larder_ae_ifchr(void) { return AE_IFCHR; }
static inline unsigned int larder_ae_ifblk(void) { return AE_IFBLK; }
static inline unsigned int larder_ae_ififo(void) { return AE_IFIFO; }
static inline unsigned int larder_ae_ifsock(void) { return AE_IFSOCK; }
#endif
