#define _GNU_SOURCE
#include <unistd.h>
#include "larder_system.h"

int larder_syncfs(int fd) { return syncfs(fd); }
