# finding: tensorflow DEV-3 wrong-refusal-exception: tf.experimental.dlpack.from_dlpack refuses a tensor on a oneAPI device (kDLOneAPI), which it cannot read, with InvalidArgumentError instead of BufferError
# env: oneapi
# expect: raises InvalidArgumentError: Unsupported Device Type
import tensorflow as tf
from dlconform_capsule import Producer
tf.experimental.dlpack.from_dlpack(Producer("f32", [4], device=(14, 0)).__dlpack__())
