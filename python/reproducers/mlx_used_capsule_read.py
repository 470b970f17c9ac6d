# finding: mlx LIFE-8 use-after-delete: mlx.core.from_dlpack handed, by a __dlpack__ that breaks LIFE-8, a capsule it consumed already (renamed used_dltensor, its deleter run) reads the freed struct before refusing it
# env: frameworks
# expect: SIGSEGV
import mlx.core as mx
from dlconform_capsule import capsule
c = capsule("f32", [4], guarded=True)  # the struct's page is unreadable once its deleter ran
h = type("H", (), {"__dlpack__": lambda s, **k: c, "__dlpack_device__": lambda s: (1, 0)})()
mx.from_dlpack(h), mx.from_dlpack(h)  # the second meets the used capsule
