# finding: tensorflow DT-1 crash: tf.Tensor.__dlpack__ of a string tensor, which no DLPack dtype expresses, aborts the interpreter (a failed CHECK, DataTypeCanUseMemcpy, in tensor.cc) instead of raising BufferError
# env: frameworks
# expect: SIGABRT
import tensorflow as tf
tf.constant(["ab", "cd"]).__dlpack__()
