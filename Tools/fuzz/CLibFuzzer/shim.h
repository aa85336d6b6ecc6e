// libFuzzer's driver, as the toolchain's runtime provides it when a program is linked with
// `-sanitize=fuzzer` (libclang_rt.fuzzer): nothing to link here, and nothing calls it in a
// build without the fuzzer (Tools/fuzz.sh defines LARDER_FUZZING for the one with it).
#include <stddef.h>
#include <stdint.h>

/// Runs libFuzzer with the command line `argc`/`argv` (its flags, corpus folders or inputs to
/// replay) on `callback`; returns the process's exit status.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
