# finding: tensorflow STRM-3 wrong-refusal-exception: tf.Tensor.__dlpack__(dl_device=(2, 0)) refuses a CUDA device it cannot export to with RuntimeError instead of BufferError
# env: frameworks
# expect: raises RuntimeError: tf.Tensor does not support DLPack export with a non-None dl_device
import tensorflow as tf
tf.constant([1.0, 2.0]).__dlpack__(max_version=(1, 3), dl_device=(2, 0))
