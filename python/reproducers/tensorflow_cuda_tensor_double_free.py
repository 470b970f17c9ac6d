# finding: tensorflow LIFE-1 capsule-not-renamed: tf.experimental.dlpack.from_dlpack calls the deleter of a CUDA tensor a CPU-only build cannot place ("GPU:0 unknown device"), then raises without renaming the capsule, so the producer's capsule destructor deletes it again (a double free)
# env: frameworks
# expect: exit 0
import contextlib, tensorflow as tf
from dlconform_capsule import capsule, deleter_calls, name_of
cap = capsule("f32", (8, 8), device=(2, 0))
with contextlib.suppress(tf.errors.InvalidArgumentError): tf.experimental.dlpack.from_dlpack(cap)
assert deleter_calls() == 1 and name_of(cap) == "dltensor"  # deleted, yet not renamed
