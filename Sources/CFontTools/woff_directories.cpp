// The headers and table directories of WOFF 1.0 and WOFF2 files, read without inflating or
// decompressing anything: what a font decodes to (larder_font_decoded_size, so a few bytes on
// disk cannot make the packer inflate 64 MiB), and whether a WOFF2 is exactly the encoding of an
// sfnt (larder_font_woff2_matches, the font cache's check of what it stored).

#include "font_tools_internal.h"

#include <brotli/decode.h>
#include <woff2/encode.h>

#include <algorithm>
#include <new>

namespace larder_font {

larder_font_status fail(larder_font_status status, char *message, size_t capacity, const char *format, ...) {
    if (message && capacity) {
        va_list arguments;
        va_start(arguments, format);
        vsnprintf(message, capacity, format, arguments);
        va_end(arguments);
    }
    return status;
}

larder_font_status give(const uint8_t *bytes, size_t count, larder_font_buffer *out) {
    out->bytes = static_cast<uint8_t *>(malloc(count ? count : 1));
    out->count = 0;
    if (!out->bytes) return LARDER_FONT_NO_MEMORY;
    if (count) memcpy(out->bytes, bytes, count);
    out->count = count;
    return LARDER_FONT_OK;
}

larder_font_status readWOFFDirectory(const uint8_t *data, size_t count, WOFFDirectory &directory, char *message, size_t capacity) {
    if (count < 44) return fail(LARDER_FONT_UNREADABLE, message, capacity, "a WOFF header needs 44 bytes, the file has %zu", count);
    directory.flavor = read32(data + 4);
    directory.tableCount = read16(data + 12);
    directory.totalSfntSize = read32(data + 16);
    if (directory.tableCount == 0 || 44 + size_t(directory.tableCount) * 20 > count)
        return fail(LARDER_FONT_UNREADABLE, message, capacity, "the WOFF table directory (%u tables) does not fit in the file", directory.tableCount);
    directory.rebuiltSize = 12 + uint64_t(directory.tableCount) * 16;
    for (uint16_t index = 0; index < directory.tableCount; index++) {
        const uint8_t *entry = data + 44 + size_t(index) * 20;
        const uint32_t start = read32(entry + 4), stored = read32(entry + 8), length = read32(entry + 12);
        if (uint64_t(start) + stored > count || stored > length)
            return fail(LARDER_FONT_UNREADABLE, message, capacity, "WOFF table %u lies outside the file or is larger than declared", index);
        directory.rebuiltSize += padded4(length);
    }
    return LARDER_FONT_OK;
}

namespace {

/// WOFF2's UIntBase128 (at most 5 bytes, no leading zeros, no overflow), as woff2 reads it.
bool readBase128(const uint8_t *data, size_t count, size_t &offset, uint32_t &value) {
    uint32_t result = 0;
    for (size_t index = 0; index < 5; index++) {
        if (offset >= count) return false;
        const uint8_t code = data[offset++];
        if (index == 0 && code == 0x80) return false;
        if (result & 0xFE000000) return false;
        result = result << 7 | (code & 0x7F);
        if (!(code & 0x80)) {
            value = result;
            return true;
        }
    }
    return false;
}

}  // namespace

larder_font_status readWOFF2Directory(const uint8_t *data, size_t count, WOFF2Directory &directory, char *message, size_t capacity) {
    if (count < 48) return fail(LARDER_FONT_UNREADABLE, message, capacity, "a WOFF2 header needs 48 bytes, the file has %zu", count);
    directory.flavor = read32(data + 4);
    if (read32(data + 8) != count)
        return fail(LARDER_FONT_UNREADABLE, message, capacity, "the WOFF2 header says %u bytes, the file has %zu", read32(data + 8), count);
    if (directory.flavor == tag('t', 't', 'c', 'f'))
        return fail(LARDER_FONT_UNREADABLE, message, capacity, "a TrueType collection: CSS cannot choose one of its faces");
    directory.tableCount = read16(data + 12);
    directory.totalSfntSize = read32(data + 16);
    directory.compressedSize = read32(data + 20);
    directory.metadataOffset = read32(data + 28);
    directory.metadataLength = read32(data + 32);
    directory.privateOffset = read32(data + 40);
    directory.privateLength = read32(data + 44);
    if (directory.tableCount == 0) return fail(LARDER_FONT_UNREADABLE, message, capacity, "the WOFF2 file has no tables");
    directory.rebuiltSize = 12 + uint64_t(directory.tableCount) * 16;
    size_t offset = 48;
    for (uint16_t index = 0; index < directory.tableCount; index++) {
        if (offset >= count) return fail(LARDER_FONT_UNREADABLE, message, capacity, "the WOFF2 table directory does not fit in the file");
        const uint8_t flags = data[offset++];
        uint32_t name = 0;
        if ((flags & 0x3F) == 0x3F) {
            if (offset + 4 > count) return fail(LARDER_FONT_UNREADABLE, message, capacity, "the WOFF2 table directory does not fit in the file");
            name = read32(data + offset);
            offset += 4;
        } else if ((flags & 0x3F) == 10) {
            name = tag('g', 'l', 'y', 'f');
        } else if ((flags & 0x3F) == 11) {
            name = tag('l', 'o', 'c', 'a');
        }
        // Version 0 transforms glyf and loca; any other version transforms the other tables.
        const unsigned version = flags >> 6;
        const bool glyfOrLoca = name == tag('g', 'l', 'y', 'f') || name == tag('l', 'o', 'c', 'a');
        const bool transformed = glyfOrLoca ? version == 0 : version != 0;
        uint32_t length = 0, transformLength = 0;
        if (!readBase128(data, count, offset, length) || (transformed && !readBase128(data, count, offset, transformLength)))
            return fail(LARDER_FONT_UNREADABLE, message, capacity, "WOFF2 table %u has a malformed length", index);
        if (transformed && name == tag('l', 'o', 'c', 'a') && transformLength != 0)
            return fail(LARDER_FONT_UNREADABLE, message, capacity, "the WOFF2 loca table is transformed but not empty");
        directory.rebuiltSize += padded4(length);
        directory.streamSize += transformed ? transformLength : length;
    }
    directory.directoryEnd = offset;
    if (uint64_t(offset) + directory.compressedSize > count)
        return fail(LARDER_FONT_UNREADABLE, message, capacity, "the WOFF2 compressed tables end past the end of the file");
    if ((directory.metadataOffset && uint64_t(directory.metadataOffset) + directory.metadataLength > count) ||
        (directory.privateOffset && uint64_t(directory.privateOffset) + directory.privateLength > count))
        return fail(LARDER_FONT_UNREADABLE, message, capacity, "the WOFF2 metadata or private block ends past the end of the file");
    return LARDER_FONT_OK;
}

}  // namespace larder_font

using namespace larder_font;

extern "C" {

larder_font_status larder_font_decoded_size(const uint8_t *data, size_t count, uint64_t *size, char *message, size_t capacity) {
    *size = 0;
    if (count < 4) return fail(LARDER_FONT_UNREADABLE, message, capacity, "%zu bytes: too short for a font header", count);
    const uint32_t magic = read32(data);
    if (magic == tag('w', 'O', 'F', 'F')) {
        WOFFDirectory directory;
        const larder_font_status status = readWOFFDirectory(data, count, directory, message, capacity);
        if (status != LARDER_FONT_OK) return status;
        *size = std::max<uint64_t>(directory.totalSfntSize, directory.rebuiltSize);
        return LARDER_FONT_OK;
    }
    if (magic == tag('w', 'O', 'F', '2')) {
        WOFF2Directory directory;
        const larder_font_status status = readWOFF2Directory(data, count, directory, message, capacity);
        if (status != LARDER_FONT_OK) return status;
        *size = std::max({uint64_t(directory.totalSfntSize), directory.rebuiltSize, directory.streamSize});
        return LARDER_FONT_OK;
    }
    if (magic == 0x00010000 || magic == tag('t', 'r', 'u', 'e') || magic == tag('O', 'T', 'T', 'O') || magic == tag('t', 't', 'c', 'f')) {
        *size = count;
        return LARDER_FONT_OK;
    }
    return fail(LARDER_FONT_UNREADABLE, message, capacity, "no TrueType, OpenType, WOFF or WOFF2 header");
}

larder_font_status larder_font_woff2_matches(
    const uint8_t *woff2, size_t count, const uint8_t *sfnt, size_t sfnt_count, char *message, size_t capacity) {
    try {
        if (count < 4 || read32(woff2) != tag('w', 'O', 'F', '2')) return fail(LARDER_FONT_MISMATCH, message, capacity, "not a WOFF2 file");
        WOFF2Directory stored;
        if (readWOFF2Directory(woff2, count, stored, message, capacity) != LARDER_FONT_OK) return LARDER_FONT_MISMATCH;
        // The same encoder at Brotli quality 0: the same header, table directory and transformed
        // tables as at any quality, in a stream made in milliseconds.
        size_t length = woff2::MaxWOFF2CompressedSize(sfnt, sfnt_count);
        std::vector<uint8_t> made(length);
        woff2::WOFF2Params parameters;
        parameters.brotli_quality = 0;
        if (!woff2::ConvertTTFToWOFF2(sfnt, sfnt_count, made.data(), &length, parameters))
            return fail(LARDER_FONT_WOFF2_FAILED, message, capacity, "the WOFF2 encoder refused the font");
        WOFF2Directory expected;
        if (readWOFF2Directory(made.data(), length, expected, message, capacity) != LARDER_FONT_OK) return LARDER_FONT_WOFF2_FAILED;
        // Every byte but the stream and the two sizes that follow from it (file, stream) is the same.
        if (memcmp(woff2, made.data(), 8) != 0 || memcmp(woff2 + 12, made.data() + 12, 8) != 0 || memcmp(woff2 + 24, made.data() + 24, 24) != 0)
            return fail(LARDER_FONT_MISMATCH, message, capacity, "its WOFF2 header is not this font's");
        if (stored.directoryEnd != expected.directoryEnd || memcmp(woff2 + 48, made.data() + 48, expected.directoryEnd - 48) != 0)
            return fail(LARDER_FONT_MISMATCH, message, capacity, "its table directory is not this font's");
        // The encoder pads the stream to 4 bytes with zeros and adds nothing after it.
        const size_t streamEnd = stored.directoryEnd + stored.compressedSize;
        if (count != padded4(streamEnd) || std::any_of(woff2 + streamEnd, woff2 + count, [](uint8_t byte) { return byte != 0; }))
            return fail(LARDER_FONT_MISMATCH, message, capacity, "what follows its compressed tables is not the encoder's padding");
        // The two streams decompress to the same tables (at most streamSize bytes each: the
        // directory, equal to the one made, says how many).
        std::vector<uint8_t> storedTables(expected.streamSize), madeTables(expected.streamSize);
        size_t storedCount = storedTables.size(), madeCount = madeTables.size();
        if (BrotliDecoderDecompress(stored.compressedSize, woff2 + stored.directoryEnd, &storedCount, storedTables.data()) !=
                BROTLI_DECODER_RESULT_SUCCESS ||
            storedCount != storedTables.size())
            return fail(LARDER_FONT_MISMATCH, message, capacity, "its compressed tables do not decompress to this font's");
        if (BrotliDecoderDecompress(expected.compressedSize, made.data() + expected.directoryEnd, &madeCount, madeTables.data()) !=
                BROTLI_DECODER_RESULT_SUCCESS ||
            madeCount != madeTables.size())
            return fail(LARDER_FONT_WOFF2_FAILED, message, capacity, "the WOFF2 encoder made a stream Brotli cannot decompress");
        if (storedTables != madeTables) return fail(LARDER_FONT_MISMATCH, message, capacity, "its tables are not this font's");
        return LARDER_FONT_OK;
    } catch (const std::bad_alloc &) {
        return fail(LARDER_FONT_NO_MEMORY, message, capacity, "out of memory");
    } catch (...) {
        return fail(LARDER_FONT_WOFF2_FAILED, message, capacity, "the WOFF2 encoder failed");
    }
}

}  // extern "C"
