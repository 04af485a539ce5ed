// A probe: what one new result array costs the JavaScript thread on its own, 20 000 kept alive
// (as a round of concurrent calls keeps them), against V8's own Float32Array and Node's Buffer. Medians of 7 rounds.
const native = require(require('path').resolve('dist/native')).native;
const now = () => Number(process.hrtime.bigint()) / 1e3;
const median = (v) => [...v].sort((p, q) => p - q)[v.length >> 1];
for (const len of [256, 4096]) {
  for (const [name, make] of [['resultBuffer', (l) => new Float32Array(native.resultBuffer(l), 0, l)], ['new Float32Array', (l) => new Float32Array(l)], ['Buffer.allocUnsafeSlow', (l) => new Float32Array(Buffer.allocUnsafeSlow(4 * l).buffer, 0, l)], ['Promise only', () => new Promise(() => {})]]) {
    const t = [];
    for (let r = 0; r < 7; r++) {
      const keep = new Array(20000); const s = now();
      for (let i = 0; i < 20000; i++) keep[i] = make(len);
      t.push((now() - s) / 20000);
    }
    console.log(`floor ${len} floats ${name}: ${median(t).toFixed(2)} µs a result (rounds ${t.map((x) => x.toFixed(2)).join(' ')})`);
  }
}
