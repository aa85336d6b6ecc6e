#ifndef LARDER_FONT_TOOLS_H
#define LARDER_FONT_TOOLS_H

/* Larder's font conversions, in C for Swift: HarfBuzz's subsetter (hb-subset) and Google's WOFF2
   encoder (woff2/encode.h, a C++ API) behind a few functions, so no Swift module needs C++
   interoperability. Every function is thread-safe (each call owns its objects), never throws
   across this boundary, and returns LARDER_FONT_OK or another status with a message. */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    LARDER_FONT_OK = 0,
    /* Not a font the tools read: no sfnt, WOFF or WOFF2 header, tables past its end, a
       collection, or no glyphs or character map. */
    LARDER_FONT_UNREADABLE = 1,
    /* The subsetter failed. */
    LARDER_FONT_SUBSET_FAILED = 2,
    /* The WOFF2 encoder or decoder failed. */
    LARDER_FONT_WOFF2_FAILED = 3,
    /* Out of memory. */
    LARDER_FONT_NO_MEMORY = 4,
    /* The font decodes to more bytes than the limit given (larder_font_sfnt). */
    LARDER_FONT_TOO_LARGE = 5,
    /* The WOFF2 is not the encoding of the sfnt (larder_font_woff2_matches). */
    LARDER_FONT_MISMATCH = 6,
} larder_font_status;

/* Bytes a function made; free them with larder_font_buffer_free. */
typedef struct {
    uint8_t *bytes;
    size_t count;
} larder_font_buffer;

void larder_font_buffer_free(larder_font_buffer *buffer);

/* The size of the sfnt a font file decodes to, from its headers alone (nothing is inflated or
   decompressed): an sfnt's own size; for a WOFF 1.0 file its totalSfntSize or what its table
   directory rebuilds (12 + 16 per table + each table's origLength padded to 4), the larger; for
   a WOFF2 file the largest of its totalSfntSize, what its table directory rebuilds, and what its
   Brotli stream decompresses to (the buffer woff2's decoder allocates first). A header that does
   not fit in the file, or no font header, is LARDER_FONT_UNREADABLE. */
larder_font_status larder_font_decoded_size(const uint8_t *data, size_t count, uint64_t *size, char *message, size_t capacity);

/* The plain sfnt (TrueType or CFF OpenType) of a font file: a copy of an sfnt, a WOFF 1.0 file
   inflated (zlib), or a WOFF2 file decoded (woff2's ConvertWOFF2ToTTF). LARDER_FONT_TOO_LARGE,
   before anything is inflated, when larder_font_decoded_size is over `limit` bytes; the decoders
   are held to `limit` too. The result is checked as larder_font_check does. `message`
   (`capacity` bytes, NUL-terminated) says what is wrong. */
larder_font_status larder_font_sfnt(
    const uint8_t *data, size_t count, size_t limit, larder_font_buffer *out, char *message, size_t capacity);

/* Checks that `data` is one sfnt font HarfBuzz and woff2 can read: a TrueType (0x00010000,
   'true') or CFF ('OTTO') header, every table's tag four printable ASCII characters and the
   table inside the file, the tables a font needs (cmap,
   head, hhea, hmtx, maxp, and glyf with loca or CFF/CFF2), at least one glyph and one
   character mapped to one (larder_font_characters). */
larder_font_status larder_font_check(const uint8_t *data, size_t count, char *message, size_t capacity);

/* The characters the font maps (its cmap) to one of its glyphs (not .notdef, not past its last
   glyph: HarfBuzz's subsetter drops those), as `pair_count` inclusive [first, last] pairs in
   increasing order, in `*ranges` (free with free()). */
larder_font_status larder_font_characters(const uint8_t *sfnt, size_t count, uint32_t **ranges, size_t *pair_count);

/* A subset of an sfnt with HarfBuzz's subsetter (hb_subset_plan_execute_or_fail): the glyphs of
   the characters in `ranges` (`pair_count` inclusive pairs) and every glyph they reach through
   GSUB (for the layout features kept), COLR or composites; the layout features HarfBuzz keeps
   by default (those engines apply without being asked: kern, liga, calt, ccmp, locl, mark,
   mkmk, the script shaping features…) plus `features` (`feature_count` OpenType tags), or every
   feature when `all_features`; every script and language system, hinting (fpgm, prep, cvt,
   glyph instructions), GDEF/GPOS/GSUB, every name record, and the legacy `kern` table (format
   0 subtables, remapped to the new glyph ids here: HarfBuzz 6 drops `kern`). The subset passes
   larder_font_check and keeps the source's outline tables (glyf, CFF, CFF2), else
   LARDER_FONT_SUBSET_FAILED: HarfBuzz 6 leaves out a table it cannot subset and succeeds. */
larder_font_status larder_font_subset(
    const uint8_t *sfnt, size_t count, const uint32_t *ranges, size_t pair_count, const uint32_t *features, size_t feature_count,
    int all_features, larder_font_buffer *out, char *message, size_t capacity);

/* An sfnt encoded as WOFF2 (woff2::ConvertTTFToWOFF2) at Brotli quality `quality` (0 to 11),
   with the glyf/loca transform; LARDER_FONT_WOFF2_FAILED unless woff2's decoder reads it back
   into a font that passes larder_font_check. */
larder_font_status larder_font_woff2_encode(
    const uint8_t *sfnt, size_t count, int quality, larder_font_buffer *out, char *message, size_t capacity);

/* LARDER_FONT_OK when `woff2` is the encoding of `sfnt` that larder_font_woff2_encode makes at
   any quality: the sfnt encoded again at Brotli quality 0 (milliseconds, where quality 11 takes
   seconds) has the same header (but for the file and stream sizes), the same table directory,
   and a Brotli stream that decompresses to the same transformed tables, padded with zeros to 4
   bytes as the encoder pads it, nothing after. So it decodes to the very font a new encoding would; only how well Brotli compressed
   it may differ. LARDER_FONT_MISMATCH, saying where, when it is not. */
larder_font_status larder_font_woff2_matches(
    const uint8_t *woff2, size_t count, const uint8_t *sfnt, size_t sfnt_count, char *message, size_t capacity);

/* The versions the bytes depend on: HarfBuzz (hb_version_string), Brotli
   (BrotliEncoderVersion) and woff2 (the file name of the loaded libwoff2enc, which carries its
   version, as the library has no version call). Static strings. */
const char *larder_font_harfbuzz_version(void);
const char *larder_font_brotli_version(void);
const char *larder_font_woff2_version(void);

#ifdef __cplusplus
}
#endif

#endif
