# finding: tensorflow DEV-2 accepted-invalid: tf.experimental.dlpack.from_dlpack imports a CPU tensor whose device_id is 3
# env: frameworks
# expect: exit 0
import tensorflow as tf
from dlconform_capsule import capsule
x = tf.experimental.dlpack.from_dlpack(capsule("f32", [4], device=(1, 3)))
