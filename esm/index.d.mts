// Types of the ES module entry (index.mjs): the CommonJS build's, re-exported, as index.mjs re-exports its values.
export * from '../dist/index.js';
import * as cudaMatmul from '../dist/index.js';
export default cudaMatmul;
