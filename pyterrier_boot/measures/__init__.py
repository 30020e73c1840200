"""IR measures on runs and on corpus images: parsing, interned arrays, numba kernels, evaluation."""
