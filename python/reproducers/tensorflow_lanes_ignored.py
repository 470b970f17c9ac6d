# finding: tensorflow LAY-1 wrong-metadata: tf.experimental.dlpack.from_dlpack imports a float32x4 tensor (lanes 4) as plain float32, reading a quarter of its values
# env: frameworks
# expect: exit 0
import tensorflow as tf
from dlconform_capsule import capsule
x = tf.experimental.dlpack.from_dlpack(capsule("f32x4", [2]))
assert x.dtype == tf.float32 and x.shape == (2,), "fixed"
