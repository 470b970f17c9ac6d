# finding: pyarrow FLAG-1b producer-violation: a pyarrow.Tensor (immutable) asked with max_version=(1, 3) is exported as a versioned capsule without READ_ONLY: a consumer's write changes it
# env: frameworks oneapi
# expect: exit 0
import numpy as np, pyarrow as pa
from dlconform_capsule import flags, READ_ONLY
capsule = pa.Tensor.from_numpy(np.arange(4.0)).__dlpack__(max_version=(1, 3))
assert flags(capsule) & READ_ONLY == 0, "fixed: READ_ONLY is set"
