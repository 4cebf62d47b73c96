#!/usr/bin/env python3
"""What XLA makes of a custom element size (`E(n)`) on each kind of element type: the golden
data of tests/data/element_size.json (`python3 tests/data/element_size.py > tests/data/element_size.json`,
with `pip install jax`).

For each shape, two answers from jaxlib's XLA:

- `parsed`: what XLA's HLO text parser prints back for a parameter of that shape (`ok ...`), or
  its error (`err ...`). The parser accepts `E(n)` on any type, and the layout verifier
  (`LayoutUtil::ValidateLayoutForShape`) does not look at it either (../shared/spec, section
  4.3: "`E(n)` vs the type: not checked anywhere").
- `cpu_entry_layout`: the entry computation layout of the executable XLA's CPU compiler makes
  when the shape is the parameter's and the result's layout (PJRT `compile_and_load` with the
  shapes as argument and result layouts): XLA:CPU keeps `E(n)` on sub-byte types and drops it
  on the others. Its shape verifier for CPU and GPU (`xla/service/cpu_gpu_shape_verifier.cc`)
  states the rule: "The XLA CPU/GPU backend does not support custom element sizes on
  non-sub-byte types".
"""
import json
import sys

import jax
from jax._src.lib import xla_client as xc

SHAPES = [
    "bf16[64,384]{1,0:T(8,128)(2,1)E(4)}",
    "bf16[64,384]{1,0:E(4)}",
    "bf16[64,384]{1,0:E(16)}",
    "f32[3,5]{1,0:E(4)}",
    "s8[16]{0:E(4)}",
    "s4[64,128]{1,0:E(4)}",
    "s4[64,128]{1,0:T(64,128)(8,1)E(4)}",
    "u2[8]{0:E(2)}",
    "u2[8]{0:E(4)}",
]


def module(shape: str) -> str:
    return (
        "HloModule m, entry_computation_layout={(%s)->%s}\n"
        "ENTRY e { p = %s parameter(0)\n ROOT n = %s copy(p) }" % (shape, shape, shape, shape)
    )


def first_lines(e: Exception) -> str:
    lines = [l for l in str(e).splitlines() if l.strip()]
    return " | ".join(lines[:2]) if lines else type(e).__name__


def parsed(shape: str) -> str:
    try:
        m = xc.hlo.hlo_module_from_text(module(shape))
    except Exception as e:  # XLA raises XlaRuntimeError / ValueError
        return "err " + first_lines(e)
    for line in m.to_string().splitlines():
        if "parameter(0)" in line:
            body = line.split("=", 1)[1].strip()
            return "ok " + body[: body.rindex(" parameter(0)")]
    return "err no parameter line"


def cpu_entry_layout(shape: str) -> str:
    client = jax.devices("cpu")[0].client
    try:
        m = xc.hlo.hlo_module_from_text(module(shape))
        comp = xc.XlaComputation(m.as_serialized_hlo_module_proto())
        program = comp.program_shape()
        options = xc.CompileOptions()
        options.argument_layouts = program.parameter_shapes()
        options.executable_build_options.result_layout = program.result_shape()
        mlir = xc._xla.mlir.xla_computation_to_mlir_module(comp)
        exe = client.compile_and_load(mlir.encode(), xc.DeviceList(tuple(client.devices())), options)
    except Exception as e:
        return "err " + first_lines(e)
    header = exe.hlo_modules()[0].to_string().splitlines()[0]
    layout = header[header.index("entry_computation_layout={") + len("entry_computation_layout={") :]
    return "ok " + layout[1 : layout.index(")->")]


def main() -> None:
    cases = [{"shape": s, "parsed": parsed(s), "cpu_entry_layout": cpu_entry_layout(s)} for s in SHAPES]
    meta = {
        "generated_with": "jaxlib %s (XLA's HLO parser and printer; XLA:CPU through PJRT)" % jax.__version__,
        "script": "tests/data/element_size.py",
        "fields": {
            "parsed": "XLA's parser: ok and the printed shape, or err and its message",
            "cpu_entry_layout": "the parameter layout of XLA:CPU's executable for that layout",
        },
    }
    json.dump({"meta": meta, "cases": cases}, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
