# What this exporter makes: every whole-byte standard dtype, CPU memory, any strides, read-only
# data, 0-d and zero-size tensors, copy=True. Its own representations only: it does not declare
# null-shape, null-data, null-strides or byte-offset, so declining them is n/a.
dtypes   = i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 bf16 c64 c128 bool 2:32:4
devices  = cpu
strides  = positive negative zero overlapping
features = read-only zero-dim zero-size copy
max_ndim = 32
