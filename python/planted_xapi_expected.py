"""What each planted exchange-API table of planted_xapi.cpp breaks: the table of
planted_xapi_test.py (the bridge's check) and xapi_matrix_test.py (the matrix's cases)."""

# table: None (a control: every record ok), or (rule, words a failed record of it contains)
EXPECTED = {
    "correct": None,
    "major2_prev_to_major1": None,
    "no_dltensor_from_py_object": None,
    "attribute_on_instance": ("XAPI-1", "on the type (dlpack.h: \"this must be defined on the "
                                        "type\") but found it on the instance only"),
    "wrong_capsule_name": ("XAPI-1", "named dlpack_exchange_api but found one named "
                                     "DLPackExchangeAPI"),
    "major2_no_prev": ("XAPI-2", "reaches a major-1 table, but found 2.0 with prev_api NULL"),
    "prev_api_cycle": ("XAPI-2", "chain to end in NULL but found more than 16 tables"),
    "null_allocator": ("XAPI-3", "but found managed_tensor_allocator NULL"),
    "null_from_py_object": ("XAPI-3", "but found managed_tensor_from_py_object_no_sync NULL"),
    "null_to_py_object": ("XAPI-3", "but found managed_tensor_to_py_object_no_sync NULL"),
    "null_current_work_stream": ("XAPI-3", "but found current_work_stream NULL"),
    "allocator_fails_silently": ("XAPI-4", "SetError exactly when the allocator fails"),
    "allocator_seterror_and_succeeds": ("XAPI-4", "no SetError call when the allocator succeeds"),
    "allocator_reads_strides": ("XAPI-4", "data and strides at an unreadable page"),
    "allocator_reads_data": ("XAPI-4", "data and strides at an unreadable page"),
    "allocator_reads_byte_offset": ("XAPI-4", "byte_offset copied from the prototype's"),
    "from_py_object_error_unset": ("XAPI-5", "managed_tensor_from_py_object_no_sync to return 0, "
                                             "or -1 with a Python exception set, but found -1 "
                                             "without a Python exception"),
    "from_py_object_frees_data": ("XAPI-5", "from_py_object's tensor to read [[0, 1, 2], "
                                            "[3, 4, 5]] (its tolist()) but found [[nan"),
    "from_py_object_null_deleter": ("XAPI-5", "with a deleter, but found deleter NULL"),
    "from_py_object_borrows": ("XAPI-5", "tensor to keep its data alive"),
    "from_py_object_deleter_leaks": ("XAPI-5", "the tensor's deleter keeps a reference"),
    "from_py_object_drops_offset": ("XAPI-5", "from_py_object of obj[:, 1:] to read [[1, 2], "
                                              "[4, 5]]"),
    "dltensor_compact_strides": ("XAPI-5", "dltensor_from_py_object of obj[:, 1:] to read "
                                           "[[1, 2], [4, 5]]"),
    "dltensor_drops_offset": ("XAPI-5", "dltensor_from_py_object of obj[:, 1:] to read "
                                        "[[1, 2], [4, 5]]"),
    "dltensor_error_unset": ("XAPI-5", "dltensor_from_py_object_no_sync to return 0, or -1 with "
                                       "a Python exception set, but found -1 without"),
    "to_py_object_error_unset": ("XAPI-5", "managed_tensor_to_py_object_no_sync to return 0, or "
                                           "-1 with a Python exception set, but found -1 "
                                           "without"),
    "to_py_object_deletes_at_once": ("XAPI-5", "to read the tensor it took"),
    "to_py_object_never_deletes": ("XAPI-5", "run once when the object dies, but found 0 call"),
    "current_work_stream_error_unset": ("XAPI-5", "current_work_stream to return 0, or -1 with a "
                                                  "Python exception set, but found -1 without"),
    "throws_in_allocator": ("XAPI-3", "expected managed_tensor_allocator not to throw"),
    "throws_in_from_py_object": ("XAPI-3", "expected managed_tensor_from_py_object_no_sync not "
                                           "to throw"),
    "throws_in_dltensor_from_py_object": ("XAPI-3", "expected dltensor_from_py_object_no_sync "
                                                    "not to throw"),
    "throws_in_current_work_stream": ("XAPI-3", "expected current_work_stream not to throw"),
    "allocator_null_deleter": ("XAPI-4", "owning 2x3 float32 CPU tensor but found"),
    "dltensor_shape_released": ("XAPI-5", "to read a 2-D float32 CPU tensor but found shape [-1, -1]"),
    "unexpressible_value_error": None,  # only its XAPI-5/unexpressible case fails (xapi_matrix_test)
    "work_stream_not_current": None,  # only as a CUDA stand-in's table (its device row fails)
    "from_py_object_drops_read_only": None,  # only its read-only case fails (xapi_matrix_test)
}

# The party of a table in the matrix (xapi-TABLE@1 but for the CUDA stand-in's table), and the
# CUDA stand-ins' device row: its verdict for each party (planted_xapi_adapter.py).
PARTY = {"work_stream_not_current": "xapi-cuda-work-stream-not-current@1"}
WORK_STREAM_ROWS = {"xapi-cuda-stand-in@1": "none",
                    "xapi-cuda-work-stream-not-current@1": "xapi-violation XAPI-5"}
