/*
 * Declarations shared by dlconform's design-variant headers (abi/variants/<name>/dlpack/dlpack.h):
 * DLPackVersion and the device and dtype declarations of DLPack v1.0, which no variant changes.
 * Included inside each variant's extern "C" block; not a header to include on its own.
 */
#ifndef DLCONFORM_VARIANT_COMMON_H_
#define DLCONFORM_VARIANT_COMMON_H_

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

/* The v1.0 DLTensor, for the variants that keep it. */
#define DLCONFORM_VARIANT_STANDARD_TENSOR \
  typedef struct {                         \
    void* data;                            \
    DLDevice device;                       \
    int32_t ndim;                          \
    DLDataType dtype;                      \
    int64_t* shape;                        \
    int64_t* strides;                      \
    uint64_t byte_offset;                  \
  } DLTensor;

#endif /* DLCONFORM_VARIANT_COMMON_H_ */
