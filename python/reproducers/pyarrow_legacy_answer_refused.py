# finding: pyarrow VER-4 rejected-valid: pyarrow.Tensor.from_dlpack asks for max_version and then refuses the legacy "dltensor" capsule a legacy producer (TensorFlow, MLX, JAX) answers with
# env: frameworks
# expect: raises ValueError: PyCapsule_GetPointer called with incorrect name
import pyarrow as pa
from dlconform_capsule import Producer
pa.Tensor.from_dlpack(Producer("f32", [4], answers_legacy=True))
