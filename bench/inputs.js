// What the benchmark scripts share: fresh U[-1,1] inputs and the relative Frobenius error ‖got − ref‖ / ‖ref‖.
'use strict';

function random(length) {
  const x = new Float32Array(length);
  for (let i = 0; i < length; i++) x[i] = Math.random() * 2 - 1;
  return x;
}

function relativeError(got, ref) {
  let diff = 0;
  let norm = 0;
  for (let i = 0; i < ref.length; i++) {
    diff += (got[i] - ref[i]) ** 2;
    norm += ref[i] ** 2;
  }
  return Math.sqrt(diff / norm);
}

module.exports = { random, relativeError };
