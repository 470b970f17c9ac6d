/*
 * dlconform design variant "a2" of the DLPack versioning RFC: alternative A2, a versioned wrapper that holds the legacy struct.
 *
 * Not a DLPack release. It declares the layout one of the alternatives weighed while DLPack 1.0
 * was designed, so that the matrix can build producers and consumers of it and show, by running
 * them, which exchanges survive. What the RFC discussion concluded of it:
 * the exchanged pointer is the embedded legacy struct, so an old consumer keeps working (S0
 * holds); a new consumer finds the version by stepping back from that pointer, which reads
 * memory before an old producer's struct (S1 breaks).
 */
#ifndef DLPACK_DLPACK_H_
#define DLPACK_DLPACK_H_

#include <stddef.h>
#include <stdint.h>

#define DLCONFORM_VARIANT "a2"
#define DLCONFORM_VARIANT_A2 1
#define DLPACK_MAJOR_VERSION 1
#define DLPACK_MINOR_VERSION 0

#ifdef __cplusplus
extern "C" {
#endif

/* DLPackVersion and the v1.0 device and dtype declarations every variant shares. */
#include "../../variant_common.h"

/* The v1.0 DLTensor, unchanged in this design. */
DLCONFORM_VARIANT_STANDARD_TENSOR

typedef struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(struct DLManagedTensor* self);
} DLManagedTensor;

/* The wrapper; the pointer exchanged is &legacy, and the deleter receives &legacy too. */
typedef struct DLManagedTensorWrapped {
  DLPackVersion version;
  uint64_t flags;
  DLManagedTensor legacy;
} DLManagedTensorWrapped;

/* How far a consumer steps back from the exchanged pointer to find the wrapper. */
#define DLCONFORM_A2_WRAPPER_OFFSET 16

#ifdef __cplusplus
} /* extern "C" */
#endif
#endif /* DLPACK_DLPACK_H_ */
