# finding: tensorflow DT-1 out-of-bounds: tf.experimental.dlpack.from_dlpack takes a dtype with 0 lanes instead of refusing it (and then reads storage the tensor does not have)
# env: frameworks
# expect: exit 0
import tensorflow as tf
from dlconform_capsule import capsule
x = tf.experimental.dlpack.from_dlpack(capsule((2, 32, 0), [4]))
