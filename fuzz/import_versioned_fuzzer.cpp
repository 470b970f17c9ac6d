// Property: whatever DLManagedTensorVersioned the consumer under test is handed in a
// "dltensor_versioned" capsule, it never reads outside the struct, shape, strides or data; never
// reads past version, manager_ctx and deleter of a struct of another major (VER-2); never writes
// a READ_ONLY tensor (FLAG-1); never dereferences a non-CPU data pointer (DEV-3); never touches
// the tensor after its deleter ran (LIFE-6); never calls a NULL deleter (LIFE-4); and, once it
// has taken the tensor (renamed the capsule, LIFE-1), calls the deleter exactly once, also when
// it refuses the tensor (LIFE-3).
//
// The input is a TensorInput (tensor_input.hpp: parameters read from the end). The consumer is a
// plugin: DLCONFORM_PLUGIN=/path/lib.so, or DLCONFORM_CONSUMER=<built-in name>, default
// strict-consumer-v1_3.
#include "fuzz_harness.hpp"

DLC_FUZZ_IMPORT_TARGET(true)
