import sys

from ._numba import use_light_blas_check
from .cli import main

use_light_blas_check()  # a process of the CLI's own: numba's BLAS check need not import scipy.linalg
sys.exit(main())
