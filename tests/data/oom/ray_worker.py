"""Writes gpu_ray_worker_copied.txt: gpu_peak_buffers.txt as a Ray worker logs it and as it
reads when copied from an issue thread's log view (alpa-projects/alpa#759 has this form):
each line after `(MeshHostWorker pid=489) ` in Ray's dim cyan, whose escape characters the
copy lost (`[2m[36m`, `[0m` are left), and the view's line number before it; a blank line
is the prefix alone, with no space after it. Run from this folder: python3 ray_worker.py
"""

from pathlib import Path

here = Path(__file__).parent
lines = (here / "gpu_peak_buffers.txt").read_text().split("\n")
if lines[-1] == "":
    lines.pop()
out = []
for number, line in enumerate(lines, start=71):
    prefix = f"{number}[2m[36m(MeshHostWorker pid=489)[0m"
    out.append(f"{prefix} {line}" if line else prefix)
(here / "gpu_ray_worker_copied.txt").write_text("\n".join(out) + "\n")
