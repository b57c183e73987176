/*
 * wire/npz.h -- .npz bodies (`Accept: application/x-npz`): several .npy arrays in one ZIP
 * archive, as numpy.savez writes them and numpy.load reads them in one call.
 *
 * The archive (PKWARE APPNOTE.TXT 6.3.x) is written while it is sent, member after member, never
 * held whole: every member is stored (method 0, no compression) under the name "<key>.npy", with
 * general purpose flag bit 3 set, so its CRC-32 (wire/crc32.h, the ZIP polynomial) is computed as
 * the bytes pass and written in the data descriptor that follows the data (signature PK\7\10);
 * the central directory at the end repeats every CRC and size. Timestamps are the DOS epoch
 * (1980-01-01 00:00), so equal answers are equal bytes. ZIP64 (extra field 0x0001, the ZIP64 end
 * of central directory record and its locator, version needed 4.5) is used for a member whose
 * size reaches 0xFFFFFFFF, for a local header that starts at or past that offset, and for the end
 * records when the directory's size or offset does; force_zip64 uses it everywhere (tests).
 * The total size is known before the first byte (Content-Length).
 *
 * An archive can also be laid out by the caller (api/bin_answer.c writes one into a spool file
 * and sends the file): wire_npz_add_laid gives each member's place, and the local header, data
 * descriptor and central directory come out as bytes, the same bytes wire_npz_stream sends for
 * the same members. Every piece but the directory is independent of where the member sits (the
 * local header holds no offset), so a member's bytes can be written before the members before
 * it are known.
 */
#ifndef WIRE_NPZ_H
#define WIRE_NPZ_H

#include "wire/err.h"
#include "wire/jw.h"
#include "wire/stream.h"

typedef struct wire_npz wire_npz;

/* An empty archive. NULL when out of memory. */
wire_npz *wire_npz_new(int force_zip64);

/*
 * Appends the member name (at most 200 bytes, e.g. "sin.npy") whose bytes are those of part, a
 * stream of known size (wire_stream_size). Takes part (freed with z, or at once on failure).
 * Returns 0, or -1 with pb filled (WIRE_ENOMEM; WIRE_EINTERNAL for a name too long or a part of
 * unknown size).
 */
int wire_npz_add(wire_npz *z, const char *name, wire_stream *part, wire_err *pb);

/* The most bytes of one local header (a 200-byte name, ZIP64) and of one data descriptor. */
#define WIRE_NPZ_LOCAL_MAX (30 + 200 + 20)
#define WIRE_NPZ_DESC_MAX 24

/*
 * Appends the member name (at most 200 bytes) of size bytes (the whole .npy: header and data)
 * whose bytes the caller writes itself, at wire_npz_offset: its local header
 * (wire_npz_local_header), its size bytes, its data descriptor (wire_npz_descriptor). An archive
 * with such a member is not a stream (wire_npz_stream refuses it). 0, or -1 with pb filled
 * (WIRE_ENOMEM; WIRE_EINTERNAL for a name too long).
 */
int wire_npz_add_laid(wire_npz *z, const char *name, uint64_t size, wire_err *pb);

/* Where member i's local header starts, in bytes from the start of the archive. */
uint64_t wire_npz_offset(const wire_npz *z, size_t i);

/* The local header of member i into out (WIRE_NPZ_LOCAL_MAX bytes); returns its length (the
 * member's data starts that many bytes after wire_npz_offset). */
size_t wire_npz_local_header(const wire_npz *z, size_t i, unsigned char *out);

/* Member i's CRC-32 (wire/crc32.h, over its size bytes) is crc: its data descriptor into out
 * (WIRE_NPZ_DESC_MAX bytes); returns its length. It goes right after the member's data. */
size_t wire_npz_descriptor(wire_npz *z, size_t i, uint32_t crc, unsigned char *out);

/* The central directory and the end records, once every member's CRC is set (wire_npz_descriptor):
 * malloc'd, *len bytes, to be written at *at (the end of the members); the archive ends there.
 * NULL when out of memory. */
unsigned char *wire_npz_directory(const wire_npz *z, uint64_t *at, size_t *len);

/* The archive as a stream (its size is known); takes z. NULL with pb filled when out of memory
 * (z freed). */
wire_stream *wire_npz_stream(wire_npz *z, wire_err *pb);

/* Frees z and every part it holds. NULL is allowed. */
void wire_npz_free(wire_npz *z);

/*
 * An .npz body from w (WIRE_JW_NPY mode after wire_jw_npy_multi, ok, no non-finite value): one
 * member "<key>.npy" per captured array, in response order, each encoded as wire_stream_npy does
 * ('<f4' with f32 for floating arrays). w is reset. NULL with pb filled when no array was captured
 * (WIRE_EINTERNAL), on float32 overflow (WIRE_EINVALID at /dtype) or out of memory.
 */
wire_stream *wire_stream_npz(wire_jw *w, int f32, wire_err *pb);

#endif
