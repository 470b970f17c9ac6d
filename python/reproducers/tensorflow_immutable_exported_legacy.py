# finding: tensorflow FLAG-1b producer-violation: a TensorFlow tensor (immutable) asked with max_version=(1, 3) is exported as a legacy dltensor, which cannot say READ_ONLY: a consumer's write changes it
# env: frameworks oneapi
# expect: exit 0
import tensorflow as tf
capsule = tf.constant([0.0, 1.0, 2.0, 3.0]).__dlpack__(max_version=(1, 3))
assert '"dltensor"' in repr(capsule), "fixed: TensorFlow answers with a versioned capsule"
