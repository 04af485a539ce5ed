// An HTTP server that multiplies per request, without blocking its event loop: POST a JSON body
// { m, k, n, a, b } and get C back. It sends itself a few requests, prints the answers, and closes.
//   node examples/http-server.mjs
import http from 'node:http';
import { matmul } from 'cuda-matmul';

const server = http.createServer(async (request, response) => {
  try {
    let body = '';
    for await (const chunk of request) body += chunk;
    const { m, k, n, a, b } = JSON.parse(body);
    const c = await matmul(Float32Array.from(a), Float32Array.from(b), { m, k, n });
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(Array.from(c)));
  } catch (error) {
    // Bad input is a TypeError or RangeError naming the argument: the client's mistake, not a crash.
    response.writeHead(400, { 'content-type': 'text/plain' }).end(String(error.message));
  }
});

server.listen(0, async () => {
  const url = `http://127.0.0.1:${server.address().port}/`;
  const ask = async (payload) => {
    const reply = await fetch(url, { method: 'POST', body: JSON.stringify(payload) });
    return `${reply.status} ${await reply.text()}`;
  };
  console.log(await ask({ m: 2, k: 2, n: 2, a: [1, 2, 3, 4], b: [5, 6, 7, 8] }));
  console.log(await ask({ m: 1, k: 3, n: 1, a: [1, 2, 3], b: [4, 5, 6] }));
  console.log(await ask({ m: 2, k: 2, n: 2, a: [1, 2, 3], b: [5, 6, 7, 8] })); // a is too short: 400
  server.close();
});
