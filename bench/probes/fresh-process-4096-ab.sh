# A probe: 4096³ from plain arrays into new arrays in fresh processes, six alternating pairs of two builds:
# BASE_ADDON (a cuda_matmul.node built from another commit) against this checkout's addon. Each process runs
# fresh-process-4096-faults.js. Run from the package root: BASE_ADDON=/path/base.node bash bench/probes/fresh-process-4096-ab.sh
set -eu
here=$(dirname "$0")
for i in 1 2 3 4 5 6; do
  LABEL=base CUDA_MATMUL_ADDON=$BASE_ADDON node "$here/fresh-process-4096-faults.js"
  LABEL=new node "$here/fresh-process-4096-faults.js"
done
