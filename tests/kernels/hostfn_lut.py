# Module tables made by host functions: a gamma lookup table filled element by element in a
# loop (`lut[i] = min(255, int(...))` into np.zeros(256, np.uint8)), read as a global array.
import numpy as np
from numba import cuda


def make_lut(gamma=2.2):
    lut = np.zeros(256, dtype=np.uint8)
    for i in range(256):
        lut[i] = min(255, int(255 * (i / 255.0) ** (1 / gamma) + 0.5))
    return lut


LUT = make_lut()


@cuda.jit
def apply_lut(pixels, out):
    i = cuda.grid(1)
    if i < pixels.size:
        out[i] = LUT[pixels[i]]
