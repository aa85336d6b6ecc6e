#ifndef LARDER_CLIBDEFLATE_SHIM_H
#define LARDER_CLIBDEFLATE_SHIM_H
#include <libdeflate.h>
#endif
