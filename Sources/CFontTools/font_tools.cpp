// Larder's font conversions: HarfBuzz's subsetter and Google's WOFF2 encoder behind the C
// functions of include/larder_font_tools.h. Nothing here throws across the C boundary.

#include "font_tools_internal.h"

#include <brotli/encode.h>
#include <dlfcn.h>
#include <harfbuzz/hb-subset.h>
#include <woff2/decode.h>
#include <woff2/encode.h>
#include <zlib.h>

#include <algorithm>
#include <climits>
#include <new>
#include <string>

using namespace larder_font;

namespace {

/// Fonts larger than this are refused by larder_font_check (woff2's own decoder stops at 30 MiB).
constexpr size_t kMaximumFontSize = 64u << 20;

/// A HarfBuzz face over bytes the caller keeps alive; destroyed with the object.
struct Face {
    hb_blob_t *blob;
    hb_face_t *face;
    Face(const uint8_t *data, size_t count) {
        blob = hb_blob_create_or_fail(reinterpret_cast<const char *>(data), unsigned(count), HB_MEMORY_MODE_READONLY, nullptr, nullptr);
        face = blob ? hb_face_create(blob, 0) : nullptr;
    }
    ~Face() {
        if (face) hb_face_destroy(face);
        if (blob) hb_blob_destroy(blob);
    }
    Face(const Face &) = delete;
    Face &operator=(const Face &) = delete;
};

/// WOFF 1.0 (https://www.w3.org/TR/WOFF/): a header, a table directory, and each table zlib-
/// compressed when that made it smaller. Rebuilt into the sfnt it came from; nothing is inflated
/// when the tables would rebuild more than `limit` bytes.
larder_font_status inflateWOFF(const uint8_t *data, size_t count, size_t limit, std::vector<uint8_t> &sfnt, char *message, size_t capacity) {
    WOFFDirectory directory;
    const larder_font_status status = readWOFFDirectory(data, count, directory, message, capacity);
    if (status != LARDER_FONT_OK) return status;
    if (directory.rebuiltSize > limit)
        return fail(LARDER_FONT_TOO_LARGE, message, capacity, "its tables inflate to %llu bytes, over the %zu a font may have",
                    (unsigned long long)directory.rebuiltSize, limit);
    const uint16_t tableCount = directory.tableCount;
    uint16_t power = 1, log = 0;
    while (power * 2 <= tableCount) power *= 2, log += 1;
    sfnt.clear();
    sfnt.reserve(directory.rebuiltSize);
    write32(sfnt, directory.flavor);
    write16(sfnt, tableCount);
    write16(sfnt, uint16_t(power * 16));
    write16(sfnt, log);
    write16(sfnt, uint16_t(tableCount * 16 - power * 16));
    size_t offset = 12 + size_t(tableCount) * 16;
    std::vector<uint8_t> tables;
    tables.reserve(directory.rebuiltSize - offset);
    for (uint16_t index = 0; index < tableCount; index++) {
        const uint8_t *entry = data + 44 + size_t(index) * 20;
        const uint32_t start = read32(entry + 4), stored = read32(entry + 8), length = read32(entry + 12);
        write32(sfnt, read32(entry));
        write32(sfnt, read32(entry + 16));
        write32(sfnt, uint32_t(offset));
        write32(sfnt, length);
        const size_t at = tables.size();
        tables.resize(at + length);
        if (stored == length) {
            memcpy(tables.data() + at, data + start, length);
        } else {
            uLongf written = length;
            if (uncompress(tables.data() + at, &written, data + start, stored) != Z_OK || written != length)
                return fail(LARDER_FONT_UNREADABLE, message, capacity, "WOFF table %u does not inflate to its declared %u bytes", index, length);
        }
        while (tables.size() % 4) tables.push_back(0);
        offset = 12 + size_t(tableCount) * 16 + tables.size();
    }
    sfnt.insert(sfnt.end(), tables.begin(), tables.end());
    return LARDER_FONT_OK;
}

/// Remaps the format-0 subtables of an OpenType `kern` table (version 0) to the subset's glyph
/// ids; other subtable formats and Apple's version 1 table are left out. Empty when nothing is left.
std::vector<uint8_t> subsetKern(const uint8_t *table, size_t length, const hb_map_t *glyphs) {
    std::vector<uint8_t> out;
    if (length < 4 || read16(table) != 0) return out;
    const uint16_t subtableCount = read16(table + 2);
    std::vector<std::vector<uint8_t>> subtables;
    size_t position = 4;
    for (uint16_t index = 0; index < subtableCount && position + 6 <= length; index++) {
        const uint8_t *subtable = table + position;
        const uint16_t declared = read16(subtable + 2), coverage = read16(subtable + 4);
        if ((coverage >> 8) != 0 || position + 14 > length) {
            position += std::max<size_t>(declared, 6);
            continue;
        }
        const size_t pairCount = read16(subtable + 6);
        // Large tables overflow the 16-bit length: the pair count is what readers trust.
        const size_t available = (length - position - 14) / 6;
        const size_t count = std::min(pairCount, available);
        std::vector<uint64_t> pairs;  // (left << 32 | right << 16 | value), sorted by glyph pair
        for (size_t pair = 0; pair < count; pair++) {
            const uint8_t *p = subtable + 14 + pair * 6;
            const hb_codepoint_t left = hb_map_get(glyphs, read16(p)), right = hb_map_get(glyphs, read16(p + 2));
            if (left == HB_MAP_VALUE_INVALID || right == HB_MAP_VALUE_INVALID || left > 0xFFFF || right > 0xFFFF) continue;
            pairs.push_back(uint64_t(left) << 32 | uint64_t(right) << 16 | read16(p + 4));
        }
        position += std::max<size_t>(14 + pairCount * 6, declared);
        if (pairs.empty()) continue;
        std::sort(pairs.begin(), pairs.end());
        std::vector<uint8_t> bytes;
        const size_t kept = std::min<size_t>(pairs.size(), 0xFFFF);
        uint16_t power = 1, log = 0;
        while (power * 2 <= kept) power *= 2, log += 1;
        write16(bytes, 0);
        write16(bytes, uint16_t(14 + kept * 6));  // wraps past 64 KiB, as in the fonts that need it
        write16(bytes, coverage);
        write16(bytes, uint16_t(kept));
        write16(bytes, uint16_t(power * 6));
        write16(bytes, log);
        write16(bytes, uint16_t(kept * 6 - power * 6));
        for (size_t pair = 0; pair < kept; pair++) {
            write16(bytes, uint16_t(pairs[pair] >> 32));
            write16(bytes, uint16_t(pairs[pair] >> 16));
            write16(bytes, uint16_t(pairs[pair]));
        }
        subtables.push_back(std::move(bytes));
    }
    if (subtables.empty()) return out;
    write16(out, 0);
    write16(out, uint16_t(subtables.size()));
    for (const auto &bytes : subtables) out.insert(out.end(), bytes.begin(), bytes.end());
    return out;
}

/// The characters a face maps to one of its glyphs: hb_face_collect_unicodes, less those its
/// character map sends to .notdef or past its last glyph, which HarfBuzz's subsetter drops (and
/// which no engine draws).
void collectCharacters(hb_face_t *face, hb_set_t *characters) {
    hb_set_t *listed = hb_set_create();
    hb_face_collect_unicodes(face, listed);
    hb_font_t *font = hb_font_create(face);
    const unsigned glyphs = hb_face_get_glyph_count(face);
    hb_codepoint_t first = HB_SET_VALUE_INVALID, last = HB_SET_VALUE_INVALID;
    while (hb_set_next_range(listed, &first, &last)) {
        for (hb_codepoint_t character = first;; character++) {
            hb_codepoint_t glyph = 0;
            if (hb_font_get_nominal_glyph(font, character, &glyph) && glyph != 0 && glyph < glyphs) hb_set_add(characters, character);
            if (character == last) break;
        }
    }
    hb_font_destroy(font);
    hb_set_destroy(listed);
}

/// Whether an sfnt's table directory lists `name`.
bool listsTable(const uint8_t *sfnt, size_t count, uint32_t name) {
    const size_t tables = count >= 12 ? read16(sfnt + 4) : 0;
    for (size_t index = 0; index < tables && 12 + (index + 1) * 16 <= count; index++)
        if (read32(sfnt + 12 + index * 16) == name) return true;
    return false;
}

/// A subset HarfBuzz made is one only when it passes larder_font_check and keeps the outline
/// tables of its source: HarfBuzz 6 drops a table it cannot subset (a CFF whose charstrings it
/// cannot read) and still succeeds, and a font without outlines draws nothing.
larder_font_status checkSubset(hb_face_t *source, const uint8_t *subset, size_t count, char *message, size_t capacity) {
    for (const uint32_t name : {tag('g', 'l', 'y', 'f'), tag('C', 'F', 'F', ' '), tag('C', 'F', 'F', '2')}) {
        hb_blob_t *table = hb_face_reference_table(source, name);
        const bool present = hb_blob_get_length(table) > 0;
        hb_blob_destroy(table);
        if (present && !listsTable(subset, count, name)) {
            return fail(LARDER_FONT_SUBSET_FAILED, message, capacity, "HarfBuzz could not subset its '%c%c%c%c' table and left it out",
                        char(name >> 24), char(name >> 16), char(name >> 8), char(name));
        }
    }
    char reason[200] = "";
    if (larder_font_check(subset, count, reason, sizeof reason) != LARDER_FONT_OK)
        return fail(LARDER_FONT_SUBSET_FAILED, message, capacity, "HarfBuzz's subset is not a font: %s", reason);
    return LARDER_FONT_OK;
}

}  // namespace

extern "C" {

void larder_font_buffer_free(larder_font_buffer *buffer) {
    if (!buffer) return;
    free(buffer->bytes);
    buffer->bytes = nullptr;
    buffer->count = 0;
}

larder_font_status larder_font_check(const uint8_t *data, size_t count, char *message, size_t capacity) {
    if (count < 12) return fail(LARDER_FONT_UNREADABLE, message, capacity, "%zu bytes: too short for a font header", count);
    if (count > kMaximumFontSize) return fail(LARDER_FONT_UNREADABLE, message, capacity, "%zu bytes: over the 64 MiB a font may have", count);
    const uint32_t version = read32(data);
    if (version == tag('t', 't', 'c', 'f'))
        return fail(LARDER_FONT_UNREADABLE, message, capacity, "a TrueType collection: CSS cannot choose one of its faces");
    if (version != 0x00010000 && version != tag('t', 'r', 'u', 'e') && version != tag('O', 'T', 'T', 'O'))
        return fail(LARDER_FONT_UNREADABLE, message, capacity, "no TrueType, OpenType, WOFF or WOFF2 header");
    const uint16_t tableCount = read16(data + 4);
    if (tableCount == 0 || 12 + size_t(tableCount) * 16 > count)
        return fail(LARDER_FONT_UNREADABLE, message, capacity, "the table directory (%u tables) does not fit in the file", tableCount);
    bool cmap = false, head = false, hhea = false, hmtx = false, maxp = false, glyf = false, loca = false, cff = false;
    for (uint16_t index = 0; index < tableCount; index++) {
        const uint8_t *entry = data + 12 + size_t(index) * 16;
        const uint32_t name = read32(entry);
        // OpenType tags are four printable ASCII characters; woff2's encoder takes a tag with a
        // high bit for one of its own transformed tables, leaves it out of the WOFF2's directory
        // but not of its stream, and makes a file its decoder refuses.
        for (const unsigned shift : {24u, 16u, 8u, 0u}) {
            const uint8_t byte = uint8_t(name >> shift);
            if (byte < 0x20 || byte > 0x7E)
                return fail(LARDER_FONT_UNREADABLE, message, capacity, "table %u's tag is not four printable ASCII characters", index);
        }
        if (uint64_t(read32(entry + 8)) + read32(entry + 12) > count) {
            return fail(
                LARDER_FONT_UNREADABLE, message, capacity, "table '%c%c%c%c' ends past the end of the file (truncated?)", char(name >> 24),
                char(name >> 16), char(name >> 8), char(name));
        }
        cmap |= name == tag('c', 'm', 'a', 'p');
        head |= name == tag('h', 'e', 'a', 'd');
        hhea |= name == tag('h', 'h', 'e', 'a');
        hmtx |= name == tag('h', 'm', 't', 'x');
        maxp |= name == tag('m', 'a', 'x', 'p');
        glyf |= name == tag('g', 'l', 'y', 'f');
        loca |= name == tag('l', 'o', 'c', 'a');
        cff |= name == tag('C', 'F', 'F', ' ') || name == tag('C', 'F', 'F', '2');
    }
    if (!(cmap && head && hhea && hmtx && maxp && ((glyf && loca) || cff)))
        return fail(LARDER_FONT_UNREADABLE, message, capacity, "a table a font needs is missing (cmap, head, hhea, hmtx, maxp, glyf/loca or CFF)");
    Face face(data, count);
    if (!face.face || hb_face_get_glyph_count(face.face) == 0)
        return fail(LARDER_FONT_UNREADABLE, message, capacity, "HarfBuzz finds no glyphs in it");
    hb_set_t *characters = hb_set_create();
    collectCharacters(face.face, characters);
    const bool mapped = !hb_set_is_empty(characters);
    hb_set_destroy(characters);
    if (!mapped) return fail(LARDER_FONT_UNREADABLE, message, capacity, "its character map maps no character");
    return LARDER_FONT_OK;
}

larder_font_status larder_font_sfnt(
    const uint8_t *data, size_t count, size_t limit, larder_font_buffer *out, char *message, size_t capacity) {
    out->bytes = nullptr;
    out->count = 0;
    try {
        uint64_t declared = 0;
        larder_font_status status = larder_font_decoded_size(data, count, &declared, message, capacity);
        if (status != LARDER_FONT_OK) return status;
        if (declared > limit)
            return fail(LARDER_FONT_TOO_LARGE, message, capacity, "it decodes to %llu bytes of font, over the %zu a font may have",
                        (unsigned long long)declared, limit);
        std::vector<uint8_t> decoded;
        const uint8_t *sfnt = data;
        size_t size = count;
        if (read32(data) == tag('w', 'O', 'F', 'F')) {
            status = inflateWOFF(data, count, limit, decoded, message, capacity);
            if (status != LARDER_FONT_OK) return status;
            sfnt = decoded.data();
            size = decoded.size();
        } else if (read32(data) == tag('w', 'O', 'F', '2')) {
            // The headers said at most `limit` bytes; the decoder is held to it too.
            std::string text;
            woff2::WOFF2StringOut output(&text);
            output.SetMaxSize(limit);
            if (!woff2::ConvertWOFF2ToTTF(data, count, &output))
                return fail(LARDER_FONT_WOFF2_FAILED, message, capacity, "the WOFF2 decoder cannot read it");
            decoded.assign(text.begin(), text.begin() + output.Size());
            sfnt = decoded.data();
            size = decoded.size();
        }
        status = larder_font_check(sfnt, size, message, capacity);
        if (status != LARDER_FONT_OK) return status;
        return give(sfnt, size, out);
    } catch (const std::bad_alloc &) {
        return fail(LARDER_FONT_NO_MEMORY, message, capacity, "out of memory");
    } catch (...) {
        return fail(LARDER_FONT_UNREADABLE, message, capacity, "the decoder failed");
    }
}

larder_font_status larder_font_characters(const uint8_t *sfnt, size_t count, uint32_t **ranges, size_t *pair_count) {
    *ranges = nullptr;
    *pair_count = 0;
    Face face(sfnt, count);
    if (!face.face) return LARDER_FONT_UNREADABLE;
    hb_set_t *characters = hb_set_create();
    collectCharacters(face.face, characters);
    std::vector<uint32_t> pairs;
    hb_codepoint_t first = HB_SET_VALUE_INVALID, last = HB_SET_VALUE_INVALID;
    while (hb_set_next_range(characters, &first, &last)) {
        pairs.push_back(first);
        pairs.push_back(last);
    }
    hb_set_destroy(characters);
    *ranges = static_cast<uint32_t *>(malloc((pairs.size() ? pairs.size() : 1) * sizeof(uint32_t)));
    if (!*ranges) return LARDER_FONT_NO_MEMORY;
    if (!pairs.empty()) memcpy(*ranges, pairs.data(), pairs.size() * sizeof(uint32_t));
    *pair_count = pairs.size() / 2;
    return LARDER_FONT_OK;
}

larder_font_status larder_font_subset(
    const uint8_t *sfnt, size_t count, const uint32_t *ranges, size_t pair_count, const uint32_t *features, size_t feature_count,
    int all_features, larder_font_buffer *out, char *message, size_t capacity) {
    out->bytes = nullptr;
    out->count = 0;
    Face face(sfnt, count);
    if (!face.face) return fail(LARDER_FONT_UNREADABLE, message, capacity, "HarfBuzz cannot read the font");
    hb_subset_input_t *input = hb_subset_input_create_or_fail();
    if (!input) return fail(LARDER_FONT_NO_MEMORY, message, capacity, "out of memory");
    hb_set_t *characters = hb_subset_input_unicode_set(input);
    for (size_t pair = 0; pair < pair_count; pair++) hb_set_add_range(characters, ranges[2 * pair], ranges[2 * pair + 1]);
    // Everything that changes how the text looks stays: the features engines apply unasked
    // (HarfBuzz's default set) and those asked for, every script and language system, every
    // name record, hinting (the default), the .notdef outline.
    const hb_subset_sets_t everything[] = {HB_SUBSET_SETS_LAYOUT_SCRIPT_TAG, HB_SUBSET_SETS_NAME_ID, HB_SUBSET_SETS_NAME_LANG_ID};
    for (hb_subset_sets_t set : everything) {
        hb_set_clear(hb_subset_input_set(input, set));
        hb_set_invert(hb_subset_input_set(input, set));
    }
    hb_set_t *layout = hb_subset_input_set(input, HB_SUBSET_SETS_LAYOUT_FEATURE_TAG);
    if (all_features) {
        hb_set_clear(layout);
        hb_set_invert(layout);
    } else {
        for (size_t index = 0; index < feature_count; index++) hb_set_add(layout, features[index]);
    }
    hb_subset_input_set_flags(input, HB_SUBSET_FLAGS_NOTDEF_OUTLINE);
    hb_subset_plan_t *plan = hb_subset_plan_create_or_fail(face.face, input);
    hb_subset_input_destroy(input);
    if (!plan) return fail(LARDER_FONT_SUBSET_FAILED, message, capacity, "HarfBuzz could not plan the subset");
    hb_face_t *result = hb_subset_plan_execute_or_fail(plan);
    if (!result) {
        hb_subset_plan_destroy(plan);
        return fail(LARDER_FONT_SUBSET_FAILED, message, capacity, "HarfBuzz could not subset the font");
    }
    larder_font_status status = LARDER_FONT_OK;
    try {
        hb_blob_t *kern = hb_face_reference_table(face.face, HB_TAG('k', 'e', 'r', 'n'));
        unsigned kernLength = 0;
        const uint8_t *kernData = reinterpret_cast<const uint8_t *>(hb_blob_get_data(kern, &kernLength));
        if (kernLength) {
            std::vector<uint8_t> subset = subsetKern(kernData, kernLength, hb_subset_plan_old_to_new_glyph_mapping(plan));
            if (!subset.empty()) {
                hb_blob_t *table = hb_blob_create(
                    reinterpret_cast<const char *>(subset.data()), unsigned(subset.size()), HB_MEMORY_MODE_DUPLICATE, nullptr, nullptr);
                if (!hb_face_builder_add_table(result, HB_TAG('k', 'e', 'r', 'n'), table))
                    status = fail(LARDER_FONT_SUBSET_FAILED, message, capacity, "cannot add the kern table to the subset");
                hb_blob_destroy(table);
            }
        }
        hb_blob_destroy(kern);
        if (status == LARDER_FONT_OK) {
            hb_blob_t *bytes = hb_face_reference_blob(result);
            unsigned length = 0;
            const char *data = hb_blob_get_data(bytes, &length);
            if (length == 0) {
                status = fail(LARDER_FONT_SUBSET_FAILED, message, capacity, "HarfBuzz made an empty font");
            } else {
                status = checkSubset(face.face, reinterpret_cast<const uint8_t *>(data), length, message, capacity);
                if (status == LARDER_FONT_OK) status = give(reinterpret_cast<const uint8_t *>(data), length, out);
            }
            hb_blob_destroy(bytes);
        }
    } catch (const std::bad_alloc &) {
        status = fail(LARDER_FONT_NO_MEMORY, message, capacity, "out of memory");
    }
    hb_face_destroy(result);
    hb_subset_plan_destroy(plan);
    return status;
}

larder_font_status larder_font_woff2_encode(
    const uint8_t *sfnt, size_t count, int quality, larder_font_buffer *out, char *message, size_t capacity) {
    out->bytes = nullptr;
    out->count = 0;
    try {
        size_t length = woff2::MaxWOFF2CompressedSize(sfnt, count);
        std::vector<uint8_t> result(length);
        woff2::WOFF2Params parameters;
        parameters.brotli_quality = std::clamp(quality, 0, 11);
        if (!woff2::ConvertTTFToWOFF2(sfnt, count, result.data(), &length, parameters))
            return fail(LARDER_FONT_WOFF2_FAILED, message, capacity, "the WOFF2 encoder refused the font");
        // What ships decodes: the decoder reads it back (milliseconds, where encoding takes
        // seconds) and what it gives passes the check.
        std::string text;
        woff2::WOFF2StringOut decoded(&text);
        decoded.SetMaxSize(std::max<size_t>(count, kMaximumFontSize));
        char reason[200] = "";
        if (!woff2::ConvertWOFF2ToTTF(result.data(), length, &decoded) ||
            larder_font_check(reinterpret_cast<const uint8_t *>(text.data()), decoded.Size(), reason, sizeof reason) != LARDER_FONT_OK)
            return fail(LARDER_FONT_WOFF2_FAILED, message, capacity, "the WOFF2 encoder made a file its decoder does not read back%s%s",
                        reason[0] ? ": " : "", reason);
        return give(result.data(), length, out);
    } catch (const std::bad_alloc &) {
        return fail(LARDER_FONT_NO_MEMORY, message, capacity, "out of memory");
    } catch (...) {
        return fail(LARDER_FONT_WOFF2_FAILED, message, capacity, "the WOFF2 encoder failed");
    }
}

const char *larder_font_harfbuzz_version(void) { return hb_version_string(); }

const char *larder_font_brotli_version(void) {
    static const std::string version = [] {
        const uint32_t value = BrotliEncoderVersion();
        char text[32];
        snprintf(text, sizeof text, "%u.%u.%u", value >> 24, (value >> 12) & 0xFFF, value & 0xFFF);
        return std::string(text);
    }();
    return version.c_str();
}

const char *larder_font_woff2_version(void) {
    static const std::string version = [] {
        Dl_info info;
        const auto function = static_cast<size_t (*)(const uint8_t *, size_t)>(&woff2::MaxWOFF2CompressedSize);
        if (!dladdr(reinterpret_cast<void *>(function), &info) || !info.dli_fname) return std::string("unknown");
        char resolved[PATH_MAX];
        std::string name = realpath(info.dli_fname, resolved) ? resolved : info.dli_fname;
        name = name.substr(name.rfind('/') + 1);
        const std::string prefix = "libwoff2enc.so.";
        return name.compare(0, prefix.size(), prefix) == 0 ? name.substr(prefix.size()) : name;
    }();
    return version.c_str();
}

}  // extern "C"
