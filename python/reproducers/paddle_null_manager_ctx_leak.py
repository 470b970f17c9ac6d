# finding: paddle LIFE-3 deleter-never-called: paddle.from_dlpack never calls the deleter of a tensor whose manager_ctx is NULL (dlpack.h: "It can also be NULL"), legacy or versioned, so the producer's memory leaks
# env: frameworks
# expect: exit 0
import paddle, gc
from dlconform_capsule import Producer, deleter_calls
x = paddle.from_dlpack(Producer("f32", [8, 8])); del x; gc.collect()
x = paddle.from_dlpack(Producer("f32", [8, 8], legacy=True)); del x; gc.collect()
assert deleter_calls() == 0, "fixed: the deleter ran"
