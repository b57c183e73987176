"""posenc: transformer positional encodings from a posencd daemon, as numpy arrays.

    >>> import posenc
    >>> pe = posenc.Client("http://127.0.0.1:8080")         # or POSENC_URL
    >>> pe.inv_freq("config.json").shape                     # a model's config.json
    (64,)
    >>> q_rot, k_rot = pe.rope(q, k, config="config.json")   # q [B, H, T, D], k [B, Hkv, T, D]

Errors of the daemon are raised as :class:`PosencError` (status, code, detail, pointers); the
warnings of a binary answer (header ``X-Posenc-Warnings``) are issued as :class:`PosencWarning`.
"""

from .client import Client, CosSin, Rotated
from .errors import PosencError, PosencWarning

__all__ = ["Client", "CosSin", "PosencError", "PosencWarning", "Rotated", "__version__"]
__version__ = "0.1.0"
