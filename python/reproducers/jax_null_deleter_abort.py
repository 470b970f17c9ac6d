# finding: jax LIFE-4 crash: jax.dlpack.from_dlpack aborts the interpreter (std::bad_function_call) on a tensor whose deleter is NULL, which the rules allow
# env: frameworks latest gpu
# expect: SIGABRT
import jax
from dlconform_capsule import Producer
x = jax.dlpack.from_dlpack(Producer("f32", [4], null_deleter=True)); del x
