# finding: tensorflow DEV-3 wrong-refusal-exception: tf.experimental.dlpack.from_dlpack refuses an OpenCL tensor with InvalidArgumentError instead of BufferError
# env: frameworks
# expect: raises InvalidArgumentError: Unsupported Device Type
import tensorflow as tf
from dlconform_capsule import Producer
tf.experimental.dlpack.from_dlpack(Producer("f32", [4], device=(4, 0)).__dlpack__())
