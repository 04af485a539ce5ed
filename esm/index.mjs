// ES module entry: the CommonJS build re-exported, so `import` and `require` share one loaded addon.
import cudaMatmul from '../dist/index.js';

export const { matmul, matmulSync, gemm, info, allocHost, freeHost, Matrix } = cudaMatmul;
export default cudaMatmul;
