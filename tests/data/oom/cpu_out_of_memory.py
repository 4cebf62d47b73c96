"""Writes cpu_out_of_memory.txt: what JAX on XLA:CPU raises when a buffer cannot be
allocated, the last lines of the traceback as a user pastes them. XLA:CPU's message is
`ResourceExhausted("Out of memory allocating %d bytes.", size)` (PJRT's CPU client,
xla/pjrt/cpu/tracked_tfrt_cpu_device_buffer.h); 2^37 f32 elements are 512 GiB, more than
the machine can map. Run from this folder with jax installed: python3 cpu_out_of_memory.py
"""

import traceback
from pathlib import Path

import jax

jax.config.update("jax_platforms", "cpu")
import jax.numpy as jnp  # noqa: E402

try:
    jnp.zeros((1 << 37,), jnp.float32).block_until_ready()
except Exception as e:  # noqa: BLE001 - the error is the data
    # The exception's own line, as the traceback ends with it.
    last = "".join(traceback.format_exception_only(type(e), e))
    (Path(__file__).parent / "cpu_out_of_memory.txt").write_text(
        "Traceback (most recent call last):\n  ...\n" + last
    )
else:
    raise SystemExit("the allocation succeeded: nothing to write")
