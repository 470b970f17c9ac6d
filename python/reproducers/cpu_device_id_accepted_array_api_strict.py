# finding: array_api_strict DEV-2 accepted-invalid: array_api_strict.from_dlpack imports a CPU tensor whose device_id is 3 (through NumPy)
# env: frameworks
# expect: exit 0
import array_api_strict as xp
from dlconform_capsule import Producer
x = xp.from_dlpack(Producer("f32", [4], device=(1, 3)))
