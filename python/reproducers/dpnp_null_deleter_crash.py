# finding: dpnp LIFE-4 crash: dpnp.from_dlpack of a host tensor calls its deleter although it is NULL, which the rules allow, and the interpreter dies
# env: oneapi
# expect: SIGSEGV
import dpnp
from dlconform_capsule import Producer
x = dpnp.from_dlpack(Producer("f32", [4], null_deleter=True)); del x
