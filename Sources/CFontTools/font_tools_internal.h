// What the C++ files of CFontTools share: big-endian reads and writes, table tags, failing with
// a message, handing bytes to the caller, and the WOFF and WOFF2 headers. Not part of the C API.

#ifndef LARDER_FONT_TOOLS_INTERNAL_H
#define LARDER_FONT_TOOLS_INTERNAL_H

#include "larder_font_tools.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace larder_font {

inline uint16_t read16(const uint8_t *p) { return uint16_t(p[0] << 8 | p[1]); }
inline uint32_t read32(const uint8_t *p) { return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3]; }
inline void write16(std::vector<uint8_t> &out, uint16_t value) {
    out.push_back(uint8_t(value >> 8));
    out.push_back(uint8_t(value));
}
inline void write32(std::vector<uint8_t> &out, uint32_t value) {
    write16(out, uint16_t(value >> 16));
    write16(out, uint16_t(value));
}
constexpr uint32_t tag(char a, char b, char c, char d) {
    return uint32_t(uint8_t(a)) << 24 | uint32_t(uint8_t(b)) << 16 | uint32_t(uint8_t(c)) << 8 | uint8_t(d);
}
constexpr uint64_t padded4(uint64_t length) { return (length + 3) & ~uint64_t(3); }

larder_font_status fail(larder_font_status status, char *message, size_t capacity, const char *format, ...)
    __attribute__((format(printf, 4, 5)));

/// A malloc'ed copy of `count` bytes in `out` (LARDER_FONT_NO_MEMORY when malloc fails).
larder_font_status give(const uint8_t *bytes, size_t count, larder_font_buffer *out);

/// A WOFF 1.0 file's header and table directory (https://www.w3.org/TR/WOFF/), checked to lie
/// inside the file.
struct WOFFDirectory {
    uint32_t flavor = 0;
    uint16_t tableCount = 0;
    uint32_t totalSfntSize = 0;
    /// The sfnt its tables rebuild: 12 + 16 × tables + each table's origLength, padded to 4.
    uint64_t rebuiltSize = 0;
};
larder_font_status readWOFFDirectory(const uint8_t *data, size_t count, WOFFDirectory &directory, char *message, size_t capacity);

/// A WOFF2 file's header and table directory (https://www.w3.org/TR/WOFF2/): what woff2's
/// decoder reads before it decompresses anything, checked as it checks them.
struct WOFF2Directory {
    uint32_t flavor = 0;
    uint16_t tableCount = 0;
    uint32_t totalSfntSize = 0;
    uint32_t compressedSize = 0;
    /// Where the table directory ends and the Brotli stream starts.
    size_t directoryEnd = 0;
    /// The sfnt its tables rebuild, by their origLength: 12 + 16 × tables + each padded to 4.
    uint64_t rebuiltSize = 0;
    /// What the Brotli stream decompresses to: each table's transformLength when transformed,
    /// else its origLength (the buffer woff2's decoder allocates before it decompresses).
    uint64_t streamSize = 0;
    uint32_t metadataOffset = 0, metadataLength = 0, privateOffset = 0, privateLength = 0;
};
larder_font_status readWOFF2Directory(const uint8_t *data, size_t count, WOFF2Directory &directory, char *message, size_t capacity);

}  // namespace larder_font

#endif
