/*
 * dlconform design variant "a1" of the DLPack versioning RFC: alternative A1, version and flags appended after the deleter.
 *
 * Not a DLPack release. It declares the layout one of the alternatives weighed while DLPack 1.0
 * was designed, so that the matrix can build producers and consumers of it and show, by running
 * them, which exchanges survive. What the RFC discussion concluded of it:
 * the first 64 bytes are the legacy struct, so an old consumer keeps working (S0 holds); a new
 * consumer handed an old producer's 64-byte struct reads its version past the end (S1 breaks
 * without the capsule name to tell them apart).
 */
#ifndef DLPACK_DLPACK_H_
#define DLPACK_DLPACK_H_

#include <stddef.h>
#include <stdint.h>

#define DLCONFORM_VARIANT "a1"
#define DLCONFORM_VARIANT_A1 1
#define DLPACK_MAJOR_VERSION 1
#define DLPACK_MINOR_VERSION 0

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  uint32_t major;
  uint32_t minor;
} DLPackVersion;

/* Device and dtype declarations are those of v1.0. */
typedef enum {
  kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3, kDLOpenCL = 4, kDLVulkan = 7, kDLMetal = 8,
  kDLVPI = 9, kDLROCM = 10, kDLROCMHost = 11, kDLExtDev = 12, kDLCUDAManaged = 13,
  kDLOneAPI = 14, kDLWebGPU = 15, kDLHexagon = 16, kDLMAIA = 17
} DLDeviceType;

typedef struct {
  DLDeviceType device_type;
  int32_t device_id;
} DLDevice;

typedef enum {
  kDLInt = 0U, kDLUInt = 1U, kDLFloat = 2U, kDLOpaqueHandle = 3U, kDLBfloat = 4U,
  kDLComplex = 5U, kDLBool = 6U
} DLDataTypeCode;

typedef struct {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
} DLDataType;

/* The tensor view. */
typedef struct {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;
  uint64_t byte_offset;
} DLTensor;

typedef struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(struct DLManagedTensor* self);
  DLPackVersion version; /* appended: legacy readers never look here */
  uint64_t flags;
} DLManagedTensor;

#ifdef __cplusplus
} /* extern "C" */
#endif
#endif /* DLPACK_DLPACK_H_ */
