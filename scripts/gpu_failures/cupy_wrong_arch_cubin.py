"""A cubin compiled for another GPU generation, loaded with CuPy: the driver finds no image for this GPU."""

import sys

import cupy

module = cupy.RawModule(path=sys.argv[1])
kernel = module.get_function("add_one")
x = cupy.zeros(8, dtype=cupy.float32)
kernel((1,), (8,), (x, 8))
cupy.cuda.Device().synchronize()
