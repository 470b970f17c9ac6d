# finding: tensorflow LAY-4 rejected-valid: tf.experimental.dlpack.from_dlpack refuses every tensor with a non-zero byte_offset ("Unsupported byte_offset ... must be zero")
# env: frameworks
# expect: raises InvalidArgumentError: Unsupported byte_offset \(8\) from DLPack, must be zero
import tensorflow as tf
from dlconform_capsule import capsule
tf.experimental.dlpack.from_dlpack(capsule("f32", [4], byte_offset=8))
