# finding: tensorflow STRM-3 producer-violation: tf.Tensor.__dlpack__ raises RuntimeError for dl_device=(1, 0), the tensor's own device, instead of exporting
# env: frameworks
# expect: raises RuntimeError: tf.Tensor does not support DLPack export with a non-None dl_device
import tensorflow as tf
tf.constant([1.0, 2.0]).__dlpack__(max_version=(1, 3), dl_device=(1, 0))
