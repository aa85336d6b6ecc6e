#ifndef LARDER_CZSTD_SHIM_H
#define LARDER_CZSTD_SHIM_H
/* The reference-prefix API (ZSTD_CCtx_refPrefix, ZSTD_DCtx_refPrefix) and the advanced
 * parameters are in the stable section of zstd.h since 1.4.0; Debian 12 has 1.5.4. */
#include <zstd.h>
#endif
