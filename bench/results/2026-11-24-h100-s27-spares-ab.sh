# One-off (issue 13, session 27): 4096³ from plain arrays into new arrays in fresh processes, six alternating
# pairs: HEAD b1bd1d8's addon (two blocks made ahead on one thread; copied to base.node) against the build with
# four made ahead on two threads. The script is session 26's (2026-11-24-h100-s26-large2.js).
for i in 1 2 3 4 5 6; do
  LABEL=base CUDA_MATMUL_ADDON=$PWD/.gpu-debug/s27/base.node node .gpu-debug/s27/large2.js
  LABEL=new node .gpu-debug/s27/large2.js
done
