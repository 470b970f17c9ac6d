# A planted bug: the same exporter claims representations it declines (an export-refused finding
# of the case's rule whenever it is asked for one).
dtypes   = i8 i16 i32 i64 u8 u16 u32 u64 f16 f32 f64 bf16 c64 c128 bool 2:32:4
devices  = cpu
strides  = positive negative zero overlapping
features = read-only zero-dim zero-size copy null-shape null-data null-strides byte-offset
max_ndim = 32
