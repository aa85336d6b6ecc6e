/* Google's woff2 1.0.2 as Debian builds it prints "Compressed <n> to <m>." on stderr after every
   encode (an fprintf it makes when built with FONT_COMPRESSION_BIN), which would land in the
   middle of `larder pack`'s messages. The library has no switch for it, so this definition of
   glibc's __fprintf_chk (what fprintf becomes under _FORTIFY_SOURCE, and what libwoff2enc
   calls) takes the place of glibc's in the programs that link CFontTools, as any definition in
   an executable does, and drops exactly the calls to stderr that come from libwoff2enc itself;
   every other call goes on to glibc's __vfprintf_chk unchanged. */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

int __vfprintf_chk(FILE *stream, int flag, const char *format, va_list arguments);

static void *woff2_base;
static pthread_once_t woff2_once = PTHREAD_ONCE_INIT;

static void find_woff2(void) {
    /* woff2::MaxWOFF2CompressedSize(const uint8_t*, size_t): any function of the library. */
    void *function = dlsym(RTLD_DEFAULT, "_ZN5woff222MaxWOFF2CompressedSizeEPKhm");
    Dl_info info;
    if (function && dladdr(function, &info)) woff2_base = info.dli_fbase;
}

static int from_woff2(void *caller) {
    pthread_once(&woff2_once, find_woff2);
    Dl_info info;
    return woff2_base && dladdr(caller, &info) && info.dli_fbase == woff2_base;
}

int __fprintf_chk(FILE *stream, int flag, const char *format, ...) {
    if (stream == stderr && from_woff2(__builtin_return_address(0))) return 0;
    va_list arguments;
    va_start(arguments, format);
    int result = __vfprintf_chk(stream, flag, format, arguments);
    va_end(arguments);
    return result;
}
