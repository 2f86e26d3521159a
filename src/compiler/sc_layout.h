/*
 * Memory layout of SPIR-V types.
 *
 * Design note
 * -----------
 * Owns nothing. Explicitly laid out types (Block members with Offset,
 * arrays with ArrayStride, matrices with MatrixStride / RowMajor) use their
 * decorations; other types (Function, Private, Workgroup storage) get a
 * natural layout: scalars at their size (bool as 4 bytes), vectors and
 * matrix columns packed, arrays at their element's aligned size, struct
 * members at their alignment. Pure functions of the module; any thread.
 */
#ifndef SC_LAYOUT_H
#define SC_LAYOUT_H

#include "sc_spirv.h"

void sc_layout_size_align(const struct sc_module *m, uint32_t type_id, uint32_t *size,
                          uint32_t *align);
uint32_t sc_layout_array_stride(const struct sc_module *m, uint32_t type_id);
uint32_t sc_layout_member_offset(const struct sc_module *m, uint32_t struct_id,
                                 uint32_t member);
/* Matrix layout of a struct member (through arrays of matrices). */
void sc_layout_matrix(const struct sc_module *m, uint32_t struct_id, uint32_t member,
                      uint32_t member_type, uint32_t *stride, bool *row_major);

#endif
