/*
 * dlconform design variant "a3" of the DLPack versioning RFC: alternative A3, a magic-tagged version after the legacy struct.
 *
 * Not a DLPack release. It declares the layout one of the alternatives weighed while DLPack 1.0
 * was designed, so that the matrix can build producers and consumers of it and show, by running
 * them, which exchanges survive. What the RFC discussion concluded of it:
 * the legacy struct comes first, so an old consumer keeps working (S0 holds); a new consumer
 * tests a magic number after byte 64 to learn whether a version follows, which reads past the
 * end of an old producer's struct (S1 breaks).
 */
#ifndef DLPACK_DLPACK_H_
#define DLPACK_DLPACK_H_

#include <stddef.h>
#include <stdint.h>

#define DLCONFORM_VARIANT "a3"
#define DLCONFORM_VARIANT_A3 1
#define DLPACK_MAJOR_VERSION 1
#define DLPACK_MINOR_VERSION 0

#ifdef __cplusplus
extern "C" {
#endif

/* DLPackVersion and the v1.0 device and dtype declarations every variant shares. */
#include "../../variant_common.h"

/* The v1.0 DLTensor, unchanged in this design. */
DLCONFORM_VARIANT_STANDARD_TENSOR

/* The tag that says "a version follows". */
#define DLCONFORM_A3_MAGIC 0x444C5041434B5631ULL /* "DLPACKV1" */

typedef struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(struct DLManagedTensor* self);
  uint64_t magic; /* DLCONFORM_A3_MAGIC when version is valid */
  DLPackVersion version;
} DLManagedTensor;

#ifdef __cplusplus
} /* extern "C" */
#endif
#endif /* DLPACK_DLPACK_H_ */
