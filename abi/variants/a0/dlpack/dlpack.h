/*
 * dlconform design variant "a0" of the DLPack versioning RFC: alternative A0, the version as the first field of DLManagedTensor.
 *
 * Not a DLPack release. It declares the layout one of the alternatives weighed while DLPack 1.0
 * was designed, so that the matrix can build producers and consumers of it and show, by running
 * them, which exchanges survive. What the RFC discussion concluded of it:
 * every legacy offset shifts by 8 bytes, so neither an old consumer (S0) nor a new consumer of
 * an old producer's struct (S1) can read the other side without negotiation.
 */
#ifndef DLPACK_DLPACK_H_
#define DLPACK_DLPACK_H_

#include <stddef.h>
#include <stdint.h>

#define DLCONFORM_VARIANT "a0"
#define DLCONFORM_VARIANT_A0 1
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
  DLPackVersion version; /* first, so a consumer can read it before anything else */
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(struct DLManagedTensor* self);
} DLManagedTensor;

#ifdef __cplusplus
} /* extern "C" */
#endif
#endif /* DLPACK_DLPACK_H_ */
